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
    }

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
        send(actions[...], rule: rule)
    }

    /// One after the other: niri handles each request on its own connection, and focus must move before the step.
    private func send(_ actions: ArraySlice<String>, rule: Rule) {
        guard let action = actions.first else { return }
        logger.debug("\(rule): niri <- \(action)")
        CompositorRequests.send(Self.request(action: action), to: socketPath, on: eventLoop, isComplete: { $0.contains(UInt8(ascii: "\n")) })
            .whenComplete { [self] result in
                switch result {
                case .success(let reply):
                    if let problem = Self.problem(inReply: reply) {
                        logger.error("\(rule): niri refused \(action): \(problem)")
                        return
                    }
                    send(actions.dropFirst(), rule: rule)
                case .failure(let error):
                    logger.error("\(rule): niri action \(action) failed: \(error)")
                }
            }
    }

    /// Why a reply line is not `{"Ok":…}`, or `nil` when it is.
    static func problem(inReply reply: [UInt8]) -> String? {
        let line = Array(reply.prefix { $0 != UInt8(ascii: "\n") })
        guard let value = try? JSONValue.parse(line) else {
            return "the reply is not JSON: \(String(decoding: line.prefix(80), as: UTF8.self))"
        }
        if value["Ok"] != nil { return nil }
        if let err = value["Err"]?.stringValue { return err }
        return "the reply is neither Ok nor Err: \(String(decoding: line.prefix(80), as: UTF8.self))"
    }

    /// The app ids of niri's windows, and which is focused, from its event stream.
    struct FocusState {
        var apps: [Int64: String] = [:]
        var focused: Int64?

        /// Applies one event line; the focused app when it may have changed.
        mutating func apply(_ line: [UInt8]) -> String?? {
            guard let event = try? JSONValue.parse(line, maxDepth: 64) else { return .none }
            if case .array(let windows)? = event["WindowsChanged"]?["windows"] {
                apps = [:]
                focused = nil
                for w in windows {
                    guard let id = w["id"]?.intValue else { continue }
                    apps[id] = w["app_id"]?.stringValue ?? ""
                    if w["is_focused"]?.boolValue == true { focused = id }
                }
                return .some(current)
            }
            if let w = event["WindowOpenedOrChanged"]?["window"], let id = w["id"]?.intValue {
                apps[id] = w["app_id"]?.stringValue ?? ""
                if w["is_focused"]?.boolValue == true { focused = id }
                return .some(current)
            }
            if let id = event["WindowClosed"]?["id"]?.intValue {
                apps[id] = nil
                if focused == id { focused = nil }
                return .some(current)
            }
            if let change = event["WindowFocusChanged"] {
                focused = change["id"]?.intValue
                return .some(current)
            }
            return .none
        }

        var current: String? { focused.flatMap { apps[$0] }.flatMap { $0.isEmpty ? nil : $0 } }
    }

    func followFocus(_ focused: @escaping @Sendable (String?) -> Void) {
        var lines = LineSplitter()
        var state = FocusState()
        let stream = EventStreamConnection(
            path: socketPath, name: "niri events", greeting: Array("\"EventStream\"\n".utf8), eventLoop: eventLoop, logger: logger
        ) { chunk in
            guard let chunk else {
                lines.reset()
                state = FocusState()
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
