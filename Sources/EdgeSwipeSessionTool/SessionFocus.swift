import EdgeSwipeSession
import EdgeSwipeSessionModel
import Logging
import SystemPackage

extension EdgeSwipeSessionCommand {
    /// Whether a rule needs the focused app (`app = …`).
    static func needsFocus(_ rules: RuleSet) -> Bool { rules.rules.contains { $0.match.apps != nil } }

    /// Where no compositor IPC says which window is focused (phoc, cage), the Wayland thread follows the
    /// foreign-toplevel protocol when the compositor offers it (it says so once); where the IPC works (sway, Hyprland,
    /// niri) it is the IPC's.
    static func followFocus(of session: Session, compositor: Result<any CompositorIPC, CompositorIPCError>?, on wayland: Result<WaylandThread, WaylandError>?) {
        if case .success? = compositor { return }
        guard case .success(let thread)? = wayland else { return }
        thread.followFocus { session.focused($0) }
    }
}

extension EdgeSwipeSessionCommand {
    /// On KDE Plasma, KWin's focus script on the session's bus thread (Bus/KWinFocus.swift): loaded now (and whenever
    /// KWin comes back), reporting the active window to `session`; `nil` elsewhere, or without a bus or a
    /// `$XDG_RUNTIME_DIR` (said once).
    static func followKWinFocus(
        of session: Session, desktop: Desktop?, desktopBus: Result<DesktopBus, Errno>?, environment: [String: String], logger: Logger
    ) -> KWinFocusFollower? {
        guard desktop == .kde else { return nil }
        // A dry run has no bus: it fires nothing, and follows no focus on KWin.
        guard case .success(let bus)? = desktopBus else { return nil }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else {
            logger.warning("focus: \(KWinFocusError.noRuntimeDirectory); rules with 'app' cannot match on KWin")
            return nil
        }
        return KWinFocusFollower(loop: bus.loop, runtimeDirectory: runtime) { session.focused($0) }
    }
}
