import EdgeSwipeSession
import EdgeSwipeSessionModel
import Logging

extension EdgeSwipeSessionCommand {
    /// The overlay (`[overlay]`), on by default where the compositor offers layer-shell; where it does not, or the
    /// session has no Wayland display, it says so once and the effects carry on without it.
    static func overlay(_ settings: OverlaySettings, on wayland: Result<WaylandConnection, WaylandError>?, logger: Logger) -> Overlay? {
        guard settings.enabled else {
            logger.notice("overlay: off ([overlay] enabled = false)")
            return nil
        }
        switch wayland {
        case .success(let connection)?:
            do {
                let overlay = try Overlay(connection: connection, settings: settings, logger: logger)
                logger.notice("overlay: drawing feedback under the finger (zwlr_layer_shell_v1, \(settings.outputs))")
                return overlay
            } catch {
                logger.warning("overlay: \(error)")
                return nil
            }
        case .failure(let error)?:
            logger.warning("overlay: no feedback is drawn under the finger: \(error); the effects keep working")
            return nil
        case nil:
            return nil
        }
    }

    /// What `--check-config` says of the overlay in this session.
    static func overlayStatus(_ settings: OverlaySettings, on wayland: Result<WaylandConnection, WaylandError>?) -> String {
        guard settings.enabled else { return "off ([overlay] enabled = false)" }
        switch wayland {
        case .success(let connection)?:
            return connection.global("zwlr_layer_shell_v1") != nil ? "on (the compositor offers zwlr_layer_shell_v1)" : Overlay.unsupportedHint
        case .failure(let error)?:
            return "cannot draw: \(error)"
        case nil:
            return "off"
        }
    }
}
