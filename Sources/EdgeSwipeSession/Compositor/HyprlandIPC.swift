import EdgeSwipeProtocol
import EdgeSwipeSessionModel
import Logging
import NIOCore

/// Hyprland through its sockets in `$XDG_RUNTIME_DIR/hypr/$HYPRLAND_INSTANCE_SIGNATURE/`: each request on a
/// connection of its own to `.socket.sock` (`dispatch workspace m+1`; answered `ok` or with the error), closed as soon
/// as the answer is in; focus from `.socket2.sock`'s `activewindow>>class,title` lines.
final class HyprlandIPC: CompositorIPC, @unchecked Sendable {
    let desktop = Desktop.hyprland
    private let requestSocket: String
    private let eventSocket: String
    private let eventLoop: any EventLoop
    private let logger: Logger
    private var events: EventStreamConnection?

    init(requestSocket: String, eventSocket: String, eventLoop: any EventLoop, logger: Logger) {
        self.requestSocket = requestSocket
        self.eventSocket = eventSocket
        self.eventLoop = eventLoop
        self.logger = logger
        gate = RequestGate(name: "Hyprland", logger: logger)
    }

    /// Requests in flight, capped; complaints throttled.
    let gate: RequestGate

    func perform(_ effect: Effect, facts: TransitionFacts, rule: Rule) {
        let request: String
        switch effect {
        case .workspace(let step):
            switch HyprlandWire.workspaceRequest(step, output: facts.output) {
            case .success(let r): request = r
            case .failure(let error):
                gate.complain(rule, "output", "\(rule): \(error)")
                return
            }
        case .hyprland(let r): request = r
        case .sway, .niri, .key, .command, .kwinShortcut, .gnomeOverview:
            logger.error("\(rule): \(effect) is not a Hyprland request")
            return
        }
        guard gate.admit(rule) else { return }
        logger.debug("\(rule): hyprland <- \(request)")
        // Hyprland answers and closes; the reply is complete only at the close.
        CompositorRequests.send(Array(request.utf8), to: requestSocket, on: eventLoop, isComplete: { _ in false })
            .whenComplete { [self] result in
                // On the event loop (the future's), which owns the gate, as it owns this object.
                gate.finished()
                switch result {
                case .success(let reply):
                    let text = HyprlandWire.text(ofReply: reply)
                    if !HyprlandWire.isOK(text) { gate.complain(rule, "refused", "\(rule): Hyprland refused '\(request)': \(text.prefix(200))") }
                case .failure(let error):
                    gate.complain(rule, "failed", "\(rule): Hyprland request '\(request)' failed: \(error)")
                }
            }
    }

    func followFocus(_ focused: @escaping @Sendable (String?) -> Void) {
        var lines = LineSplitter()
        let stream = EventStreamConnection(
            path: eventSocket, name: "Hyprland events", greeting: [], eventLoop: eventLoop, logger: logger
        ) { chunk in
            guard let chunk else {
                lines.reset()
                return
            }
            for line in lines.feed(chunk) {
                if case .some(let app) = HyprlandWire.focusedApp(eventLine: line) { focused(app) }
            }
        }
        events = stream
        stream.start()
    }

    func stop() { events?.stop() }
}
