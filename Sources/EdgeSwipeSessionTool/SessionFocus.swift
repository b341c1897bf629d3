import EdgeSwipeSession
import EdgeSwipeSessionModel

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
