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
    }

    /// The request a workspace rule sends: `m+1` is the next workspace on the focused monitor, after focusing the
    /// gesture's output when the daemon knows it (one `[[BATCH]]` request).
    static func workspaceRequest(_ step: WorkspaceStep, output: String?) -> String {
        let move = "dispatch workspace \(step == .next ? "m+1" : "m-1")"
        guard let output else { return move }
        return "[[BATCH]]dispatch focusmonitor \(output);\(move)"
    }

    func perform(_ effect: Effect, facts: TransitionFacts, rule: Rule) {
        let request: String
        switch effect {
        case .workspace(let step): request = Self.workspaceRequest(step, output: facts.output)
        case .hyprland(let r): request = r
        case .sway, .niri, .key, .command, .kwinShortcut, .gnomeOverview:
            logger.error("\(rule): \(effect) is not a Hyprland request")
            return
        }
        logger.debug("\(rule): hyprland <- \(request)")
        // Hyprland answers and closes; the reply is complete only at the close.
        CompositorRequests.send(Array(request.utf8), to: requestSocket, on: eventLoop, isComplete: { _ in false })
            .whenComplete { [logger] result in
                switch result {
                case .success(let reply):
                    let text = String(decoding: reply, as: UTF8.self).trimmed
                    if !Self.isOK(text) { logger.error("\(rule): Hyprland refused '\(request)': \(text.prefix(200))") }
                case .failure(let error):
                    logger.error("\(rule): Hyprland request '\(request)' failed: \(error)")
                }
            }
    }

    /// `ok`, or one `ok` per command of a batch.
    static func isOK(_ text: String) -> Bool {
        let parts = text.split(whereSeparator: \.isWhitespace)
        return !parts.isEmpty && parts.allSatisfy { $0 == "ok" }
    }

    /// The class in an `activewindow>>class,title` event line (empty class: nothing focused).
    static func focusedApp(eventLine line: [UInt8]) -> String?? {
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("activewindow>>") else { return .none }
        let data = text.dropFirst("activewindow>>".count)
        let app = String(data.prefix { $0 != "," })
        return .some(app.isEmpty ? nil : app)
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
                if case .some(let app) = Self.focusedApp(eventLine: line) { focused(app) }
            }
        }
        events = stream
        stream.start()
    }

    func stop() { events?.stop() }
}

extension String {
    /// Without the white space around it (this module does not import Foundation).
    var trimmed: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}
