import EdgeSwipeProtocol

/// What the bridge makes of one message from a page before the daemon is asked: the control request to forward,
/// or the `bridge-error` line that refuses it. Pure (no client, no socket), so that tests and the `web-request`
/// fuzz target feed it bytes; ``Bridge`` forwards what it accepts and answers with ``reply(transition:)``.
struct PageRequest: Hashable, Sendable {
    /// The ops a `--control` page may send; anything else is refused before the daemon sees it.
    static let controlOps: Set<String> = ["push", "pop", "present", "dismiss", "select-tab"]

    /// The request to forward: the protocol decoder's own reading of the page's message.
    var request: ControlRequest
    /// The page's `id`, echoed in the answer.
    var id: RequestID?

    enum Outcome: Hashable, Sendable {
        case forward(PageRequest)
        /// The answer for the tab: a `bridge-error` line (without a newline).
        case refuse([UInt8])
    }

    /// Judges a page's message: read by the protocol's own request decoder (as line 1), then only the
    /// ``controlOps``, and only on a bridge started with `--control`.
    static func read(_ bytes: [UInt8], control: Bool) -> Outcome {
        let envelope: RequestEnvelope
        do {
            envelope = try RequestDecoder.decode(bytes, line: 1)
        } catch {
            return .refuse(refusal(code: error.code.rawValue, message: error.reason, id: error.id))
        }
        guard case .daemon(.control(let request)) = envelope.request, controlOps.contains(request.op) else {
            return .refuse(refusal(
                code: "unsupported", message: "the page may send only \(controlOps.sorted().joined(separator: ", "))",
                id: envelope.id))
        }
        guard control else {
            return .refuse(refusal(
                code: "read-only",
                message: "this bridge is read-only: start edgeswipe-web with --control to let the page drive transitions",
                id: envelope.id))
        }
        return .forward(PageRequest(request: request, id: envelope.id))
    }

    /// The `bridge-reply` for the transition the daemon started.
    func reply(transition: TransitionID) -> [UInt8] {
        var w = JSONWriter(capacity: 96)
        w.raw(#"{"type":"bridge-reply","op":"#)
        w.string(request.op)
        if let id { w.raw(#","id":"#); Self.write(id, into: &w) }
        w.raw(#","transition":"#)
        w.integer(transition.rawValue)
        w.raw("}")
        return w.bytes
    }

    /// The daemon refused the forwarded request (or could not be asked): its code and message, for this page.
    func refusal(code: String, message: String) -> [UInt8] {
        Self.refusal(code: code, message: message, id: id)
    }

    /// A `bridge-error` line: `{"type":"bridge-error","code":…,"id":…,"message":…}`.
    static func refusal(code: String, message: String, id: RequestID?) -> [UInt8] {
        var w = JSONWriter(capacity: 160)
        w.raw(#"{"type":"bridge-error","code":"#)
        w.string(code)
        if let id { w.raw(#","id":"#); write(id, into: &w) }
        w.raw(#","message":"#)
        w.string(message)
        w.raw("}")
        return w.bytes
    }

    private static func write(_ id: RequestID, into w: inout JSONWriter) {
        switch id {
        case .int(let n): w.integer(n)
        case .string(let s): w.string(s)
        }
    }
}
