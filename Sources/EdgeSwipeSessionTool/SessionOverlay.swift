import EdgeSwipeSession
import EdgeSwipeSessionModel
import Logging

extension EdgeSwipeSessionCommand {
    /// What the overlay (`[overlay]`, on by default) will be, said once at start-up: off, or drawn by the Wayland
    /// thread (which says itself, once connected, whether the compositor offers layer-shell), or impossible without
    /// a Wayland display. The effects carry on without it.
    static func sayOverlay(_ settings: OverlaySettings, on wayland: Result<WaylandThread, WaylandError>?, logger: Logger) {
        guard settings.enabled else {
            logger.notice("overlay: off ([overlay] enabled = false)")
            return
        }
        if case .failure(let error)? = wayland {
            logger.warning("overlay: no feedback is drawn under the finger: \(error); the effects keep working")
        }
    }

    /// What `--check-config` says of the overlay in this session.
    static func overlayStatus(_ settings: OverlaySettings, globals: Result<[WaylandGlobal], WaylandError>?) -> String {
        guard settings.enabled else { return "off ([overlay] enabled = false)" }
        switch globals {
        case .success(let list)?:
            return list.contains { $0.interface == "zwlr_layer_shell_v1" } ? "on (the compositor offers zwlr_layer_shell_v1)" : WaylandThread.noOverlayProtocol
        case .failure(let error)?:
            return "cannot draw: \(error)"
        case nil:
            return "off"
        }
    }
}
