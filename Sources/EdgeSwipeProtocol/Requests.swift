/// How many run-out frames (transition progress while it finishes or cancels) a connection wants.
public enum TickRate: Hashable, Sendable {
    /// Every frame the engine ticks (the default).
    case every
    /// None: the client interpolates the `animation` spec itself and gets only phase and terminal events.
    case none
    /// At most this many frames per second per transition.
    case hz(Double)
}

/// Which messages a connection receives. A new connection receives everything.
public struct Subscription: Hashable, Sendable {
    public var topics: TopicSet
    public var ticks: TickRate

    public init(topics: TopicSet = .all, ticks: TickRate = .every) {
        self.topics = topics
        self.ticks = ticks
    }

    public static let everything = Subscription()
}

/// A transition a client asks for (non-interactive: it runs the animator's full duration).
public struct ControlRequest: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        case push(scene: String)
        case pop
        case popToRoot
        case present(scene: String, style: PresentationStyle, frame: NormalizedRect?)
        case dismiss
        case selectTab(TabSelection)
        case show(child: String)
    }

    /// A tab by position, or by the scene it shows.
    public enum TabSelection: Hashable, Sendable {
        case index(Int)
        case scene(String)
    }

    public var container: String
    public var action: Action
    /// `false` completes at once without animating.
    public var animated: Bool

    public init(container: String, action: Action, animated: Bool = true) {
        self.container = container
        self.action = action
        self.animated = animated
    }

    /// The wire name of the op.
    public var op: String {
        switch action {
        case .push: "push"
        case .pop: "pop"
        case .popToRoot: "pop-to-root"
        case .present: "present"
        case .dismiss: "dismiss"
        case .selectTab: "select-tab"
        case .show: "show"
        }
    }
}

/// The requests the server hands to the daemon, which owns the engine.
/// `set-rotation`: which way the user sees one or more devices, from the next touch sequence on.
public struct RotationRequest: Hashable, Sendable {
    /// A fixed rotation, or ``RotationSetting/automatic`` (`"auto"`): back to the configuration's (the
    /// accelerometer's, for a device with `rotation = "auto"`).
    public var setting: RotationSetting
    public var target: RotationTarget

    public init(setting: RotationSetting, target: RotationTarget = .allTouchscreens) {
        self.setting = setting
        self.target = target
    }
}

public enum DaemonRequest: Hashable, Sendable {
    case status
    case devices
    case control(ControlRequest)
    case setRotation(RotationRequest)

    public var op: String {
        switch self {
        case .status: "status"
        case .devices: "devices"
        case .control(let c): c.op
        case .setRotation: "set-rotation"
        }
    }
}

/// A client request. `subscribe` and `ping` are answered by the server itself.
public enum Request: Hashable, Sendable {
    case subscribe(Subscription)
    case ping
    case daemon(DaemonRequest)

    public static var status: Request { .daemon(.status) }
    public static var devices: Request { .daemon(.devices) }
    public static func control(_ c: ControlRequest) -> Request { .daemon(.control(c)) }

    public var op: String {
        switch self {
        case .subscribe: "subscribe"
        case .ping: "ping"
        case .daemon(let d): d.op
        }
    }

    /// Whether the peer needs the control grant (rather than only the read grant).
    public var requiresControl: Bool {
        switch self {
        case .subscribe, .ping, .daemon(.status), .daemon(.devices): false
        case .daemon(.control), .daemon(.setRotation): true
        }
    }

    /// The request as one protocol line, newline included.
    public func line(id: RequestID?) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        w.raw(#"{"op":"#)
        w.string(op)
        if let id {
            w.raw(#","id":"#)
            id.write(to: &w)
        }
        switch self {
        case .ping, .daemon(.status), .daemon(.devices):
            break
        case .subscribe(let s):
            w.raw(#","topics":["#)
            for (i, t) in s.topics.members.enumerated() {
                if i > 0 { w.byte(UInt8(ascii: ",")) }
                w.string(t.rawValue)
            }
            w.byte(UInt8(ascii: "]"))
            s.ticks.write(to: &w)
        case .daemon(.control(let c)):
            w.raw(#","container":"#)
            w.string(c.container)
            c.action.writeFields(to: &w)
            if !c.animated { w.raw(#","animated":false"#) }
        case .daemon(.setRotation(let r)):
            w.raw(#","rotation":"#)
            switch r.setting {
            case .fixed(let rotation): w.integer(rotation.rawValue)
            case .automatic: w.string("auto")
            }
            switch r.target {
            case .allTouchscreens: break
            case .device(let id):
                w.raw(#","device":"#)
                w.integer(UInt64(id.rawValue))
            case .output(let name):
                w.raw(#","output":"#)
                w.string(name)
            }
        }
        w.raw("}\n")
        return w.bytes
    }
}

extension TickRate {
    /// `,"tick_hz":N` (nothing for every frame, 0 for none).
    func write(to w: inout JSONWriter) {
        switch self {
        case .every: break
        case .none: w.raw(#","tick_hz":0"#)
        case .hz(let hz):
            w.raw(#","tick_hz":"#)
            w.number(hz)
        }
    }
}

extension ControlRequest.Action {
    func writeFields(to w: inout JSONWriter) {
        switch self {
        case .pop, .popToRoot, .dismiss:
            break
        case .push(let scene):
            w.raw(#","scene":"#)
            w.string(scene)
        case .present(let scene, let style, let frame):
            w.raw(#","scene":"#)
            w.string(scene)
            w.raw(#","style":"#)
            w.string(style.rawValue)
            if let frame {
                w.raw(#","frame":"#)
                frame.write(to: &w)
            }
        case .selectTab(.index(let i)):
            w.raw(#","index":"#)
            w.integer(i)
        case .selectTab(.scene(let scene)):
            w.raw(#","scene":"#)
            w.string(scene)
        case .show(let child):
            w.raw(#","child":"#)
            w.string(child)
        }
    }
}

/// A request that failed: it could not be read, was not allowed, or the daemon refused it.
///
/// The message names the place (the line, and the request's `id` and op when they could be read) and the
/// problem, e.g. `line 3 (id 7, op "push"): field "container" is missing (expected a string)`.
public struct RequestError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    /// The problem, without the place.
    public var reason: String
    /// The request's `id`, when one could be read.
    public var id: RequestID?
    public var op: String?
    /// The 1-based line on the connection.
    public var line: Int?

    public init(code: ErrorCode, reason: String, id: RequestID? = nil, op: String? = nil, line: Int? = nil) {
        self.code = code
        self.reason = reason
        self.id = id
        self.op = op
        self.line = line
    }

    /// A `set-rotation` that names no device: `unknown-device`, `unknown-output` or `no-device`.
    public init(code: String, rotationRefusal reason: String) {
        self.init(code: ErrorCode(code), reason: reason)
    }

    /// The same error, placed at a request.
    public func answering(id: RequestID?, op: String?, line: Int?) -> RequestError {
        var e = self
        e.id = e.id ?? id
        e.op = e.op ?? op
        e.line = e.line ?? line
        return e
    }

    /// The `message` field: place, then problem.
    public var message: String {
        var place: [String] = []
        if let id { place.append("id \(id)") }
        if let op { place.append("op \"\(op)\"") }
        let detail = place.isEmpty ? "" : " (" + place.joined(separator: ", ") + ")"
        if let line { return "line \(line)\(detail): \(reason)" }
        if place.isEmpty { return reason }
        return "request\(detail): \(reason)"
    }

    public var description: String { "\(code): \(message)" }
}
