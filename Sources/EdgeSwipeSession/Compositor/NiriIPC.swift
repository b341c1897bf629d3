import EdgeSwipeProtocol
import EdgeSwipeSessionModel
import Logging
import NIOCore

/// niri through `$NIRI_SOCKET`: each action as one JSON request line (`{"Action":{"FocusWorkspaceDown":{}}}`) on a
/// connection of its own, answered by one line (`{"Ok":"Handled"}` or `{"Err":"…"}`); focus from the event stream
/// (`"EventStream"`), whose window events name windows by id, so the windows' app ids are followed too.
final class NiriIPC: CompositorIPC, @unchecked Sendable {
    let desktop = Desktop.niri
    private let socketPath: String
    private let eventLoop: any EventLoop
    private let logger: Logger
    private var events: EventStreamConnection?

    init(socketPath: String, eventLoop: any EventLoop, logger: Logger) {
        self.socketPath = socketPath
        self.eventLoop = eventLoop
        self.logger = logger
        gate = RequestGate(name: "niri", logger: logger)
    }

    /// Requests in flight (an action and the ones after it count as one), capped; complaints throttled.
    let gate: RequestGate

    /// The actions a workspace rule sends, in order: niri's workspaces are a vertical strip per monitor (next is
    /// down), after focusing the gesture's output when the daemon knows it.
    static func workspaceActions(_ step: WorkspaceStep, output: String?) -> [String] {
        let move = step == .next ? "{\"FocusWorkspaceDown\":{}}" : "{\"FocusWorkspaceUp\":{}}"
        guard let output else { return [move] }
        var writer = JSONWriter(capacity: 64)
        writer.string(output)
        return ["{\"FocusMonitor\":{\"output\":\(String(decoding: writer.bytes, as: UTF8.self))}}", move]
    }

    static func request(action: String) -> [UInt8] { Array("{\"Action\":\(action)}\n".utf8) }

    func perform(_ effect: Effect, facts: TransitionFacts, rule: Rule) {
        let actions: [String]
        switch effect {
        case .workspace(let step): actions = Self.workspaceActions(step, output: facts.output)
        case .niri(let a): actions = [a]
        case .sway, .hyprland, .key, .command, .kwinShortcut, .gnomeOverview:
            logger.error("\(rule): \(effect) is not a niri action")
            return
        }
        guard gate.admit(rule) else { return }
        send(actions[...], rule: rule)
    }

    /// One after the other: niri handles each request on its own connection, and focus must move before the step.
    private func send(_ actions: ArraySlice<String>, rule: Rule) {
        guard let action = actions.first else {
            gate.finished()
            return
        }
        logger.debug("\(rule): niri <- \(action)")
        CompositorRequests.send(Self.request(action: action), to: socketPath, on: eventLoop, isComplete: { $0.contains(UInt8(ascii: "\n")) })
            .whenComplete { [self] result in
                switch result {
                case .success(let reply):
                    if let problem = NiriWire.problem(inReply: reply) {
                        gate.finished()
                        gate.complain(rule, "refused", "\(rule): niri refused \(action): \(problem)")
                        return
                    }
                    send(actions.dropFirst(), rule: rule)
                case .failure(let error):
                    gate.finished()
                    gate.complain(rule, "failed", "\(rule): niri action \(action) failed: \(error)")
                }
            }
    }

    func followFocus(_ focused: @escaping @Sendable (String?) -> Void) {
        var lines = LineSplitter()
        var state = NiriWire.FocusState()
        let stream = EventStreamConnection(
            path: socketPath, name: "niri events", greeting: Array("\"EventStream\"\n".utf8), eventLoop: eventLoop, logger: logger
        ) { chunk in
            guard let chunk else {
                lines.reset()
                state = NiriWire.FocusState()
                return
            }
            for line in lines.feed(chunk) {
                if case .some(let app) = state.apply(line) { focused(app) }
            }
        }
        events = stream
        stream.start()
    }

    func stop() { events?.stop() }
}
