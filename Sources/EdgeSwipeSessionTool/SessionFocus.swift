import EdgeSwipeSession
import EdgeSwipeSessionModel
import Logging

extension EdgeSwipeSessionCommand {
    /// Whether a rule needs the focused app (`app = …`).
    static func needsFocus(_ rules: RuleSet) -> Bool { rules.rules.contains { $0.match.apps != nil } }

    /// Where no compositor IPC says which window is focused (phoc, cage), the foreign-toplevel protocol does, when
    /// the compositor offers it: `nil` where the IPC works (sway, Hyprland, niri) or neither does (said once, when a
    /// rule needs the app).
    static func foreignToplevels(
        feeding session: Session, compositor: Result<any CompositorIPC, CompositorIPCError>?,
        on wayland: Result<WaylandConnection, WaylandError>?, rules: RuleSet, logger: Logger
    ) -> ForeignToplevels? {
        if case .success? = compositor { return nil }
        guard case .success(let connection)? = wayland else { return nil }
        do {
            let toplevels = try ForeignToplevels(connection: connection) { session.focused($0) }
            logger.notice("focus: following the active window (zwlr_foreign_toplevel_manager_v1)")
            return toplevels
        } catch {
            if needsFocus(rules) { logger.warning("focus: \(error)") }
            return nil
        }
    }
}
