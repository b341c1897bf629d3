public import EdgeSwipeCore

#if canImport(Glibc)
import Glibc  // exp, for AnimationSpec.percent(at:)
#elseif canImport(Darwin)
import Darwin
#endif

// The Codable side of the wire format: what clients decode. The server writes the same shapes with the fast
// encoder in MessageEncoding.swift; the tests check that every line it writes decodes into these types and
// validates against docs/protocol.schema.json.

/// An `{x, y}` pair: normalized coordinates, millimetres or millimetres per second, as the field name says.
public struct Vector2: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A physical size.
public struct SizeMM: Hashable, Sendable, Codable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A touch device, as `hello`, `device` and the `devices` reply describe it.
public struct DeviceInfo: Hashable, Sendable, Codable {
    public var id: UInt32
    public var name: String
    public var kind: DeviceKind
    /// The event node, a recording path, or a synthetic name.
    public var path: String
    /// In the user's orientation (after rotation).
    public var sizeMM: SizeMM
    /// Whether the size is measured (resolution or libinput) rather than assumed.
    public var sizeKnown: Bool
    /// Clockwise degrees: 0, 90, 180 or 270.
    public var rotation: Int

    public init(_ d: TouchDevice) {
        id = d.id.rawValue
        name = d.name
        kind = d.kind
        path = d.path
        sizeMM = SizeMM(width: d.size.width.value, height: d.size.height.value)
        sizeKnown = d.hasPhysicalSize
        rotation = d.rotation.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case id, name, kind, path, rotation
        case sizeMM = "size_mm"
        case sizeKnown = "size_known"
    }
}

/// One presented scene of a modal container.
public struct PresentationInfo: Hashable, Sendable, Codable {
    public var scene: String
    public var style: PresentationStyle
    public var frame: NormalizedRect
}

/// A container and its kind-specific state. Exactly the fields of its `kind` are present.
public struct ContainerInfo: Hashable, Sendable, Codable {
    public var name: String
    /// `navigation`, `tabs`, `modal` or `custom`.
    public var kind: String
    /// The scene the user sees on top.
    public var visible: String
    /// navigation: root first, visible last.
    public var stack: [String]?
    /// tabs.
    public var tabs: [String]?
    public var selected: Int?
    /// modal: the base scene and the presentations over it, topmost last.
    public var base: String?
    public var presented: [PresentationInfo]?
    /// custom: the children and the index of the one showing.
    public var children: [String]?
    public var active: Int?

    /// The core's view of the same state; `nil` when a field of the kind is missing or the kind is unknown.
    public var content: ContainerContent? {
        switch kind {
        case "navigation": stack.map { .navigation(stack: $0) }
        case "tabs": tabs.flatMap { t in selected.map { .tabs(tabs: t, selected: $0) } }
        case "modal": base.flatMap { b in presented.map { .modal(base: b, presented: $0.map { Presentation(scene: $0.scene, style: $0.style, frame: $0.frame) }) } }
        case "custom": children.flatMap { c in active.map { .custom(children: c, active: $0) } }
        default: nil
        }
    }
}

/// A running transition in a snapshot.
public struct RunningInfo: Hashable, Sendable, Codable {
    public var id: UInt64
    public var container: String
    public var operation: String
    public var phase: PercentDrivenInteractiveTransition.Phase
    public var percent: Double
}

/// Containers and running transitions: the body of `state`, and `state` inside `hello` and `status`.
public struct StateInfo: Hashable, Sendable, Codable {
    public var containers: [ContainerInfo]
    public var running: [RunningInfo]
}

/// What this connection may do.
public struct AccessInfo: Hashable, Sendable, Codable {
    public var read: Bool
    public var control: Bool
    public init(read: Bool, control: Bool) {
        self.read = read
        self.control = control
    }
}

/// The first message of every connection: versions, devices, configuration, state and access.
public struct HelloMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var protocolVersion: Int
    public var server: String
    public var maxLineBytes: Int
    public var access: AccessInfo
    public var devices: [DeviceInfo]
    public var config: ConfigSummary
    public var state: StateInfo

    enum CodingKeys: String, CodingKey {
        case seq, server, access, devices, config, state
        case timeUS = "time_us"
        case protocolVersion = "protocol"
        case maxLineBytes = "max_line_bytes"
    }
}

/// A screen-edge-pan recognizer's state (topic `gesture`).
public struct GestureMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var edge: Edge
    public var state: GestureState
    public var device: UInt32
    public var deviceKind: DeviceKind
    public var fingers: Int
    /// Normalized, in the user's orientation.
    public var location: Vector2
    public var translationMM: Vector2
    public var velocityMMPerS: Vector2
    /// A `changed` update, which a slow client may receive only the latest of.
    public var progress: Bool
    /// The transition this gesture drives, once it drives one.
    public var transition: UInt64?
    /// Why a gesture that began drives nothing (`no-applicable-binding`); a string, so that a newer server's
    /// reasons still decode.
    public var blocked: String?
    /// A blocked gesture's rubber-band displacement, in percent of the transition it would have driven.
    public var overscroll: Double?
    /// The same displacement along the edge's inward normal, in millimetres.
    public var overscrollMM: Double?
    /// On a blocked gesture's `ended` or `cancelled`: the spring back to 0 (`from_percent` and `to_percent` are
    /// overscroll amounts).
    public var animation: AnimationInfo?
    /// On `failed`: why (`not-inward`, `edge-scroll`, `lifted`, …), kept as a string for the same reason.
    public var reason: String?

    enum CodingKeys: String, CodingKey {
        case seq, edge, state, device, fingers, location, progress, transition, blocked, overscroll, animation, reason
        case timeUS = "time_us"
        case deviceKind = "device_kind"
        case translationMM = "translation_mm"
        case velocityMMPerS = "velocity_mm_s"
        case overscrollMM = "overscroll_mm"
    }

    /// The displacement at `timeUS`: the finger's while it is down, then the spring back to exactly 0.
    public func overscroll(atTimeUS timeUS: UInt64) -> Double? {
        if let animation { return animation.percent(atTimeUS: timeUS) }
        return overscroll
    }
}

/// Cubic Bézier control points, as CSS `cubic-bezier(x1, y1, x2, y2)`.
public struct ControlPoints: Hashable, Sendable, Codable {
    public var x1, y1, x2, y2: Double
}

/// A run-out, so that a client can interpolate it at its own refresh rate.
public struct AnimationInfo: Hashable, Sendable, Codable {
    /// `linear`, `ease-in`, `ease-out`, `ease-in-out` or `spring`.
    public var curve: String
    /// `cubic-bezier` (with ``controlPoints``) or `spring` (with ``omega``).
    public var timing: String
    public var controlPoints: ControlPoints?
    /// Angular frequency of the critically damped spring, rad/s.
    public var omega: Double?
    public var durationUS: Int64
    public var fromPercent: Double
    public var toPercent: Double
    public var startTimeUS: UInt64
    public var endTimeUS: UInt64
    /// Percent per second at the start (the release velocity).
    public var initialVelocity: Double

    /// The spec as the wire carries it (the same fields `MessageEncoding` writes), for in-process clients such as
    /// a plot, which then evaluate it exactly as remote clients do.
    public init(_ spec: AnimationSpec) {
        curve = spec.curve.name
        switch spec.timing {
        case .cubicBezier(let b):
            timing = "cubic-bezier"
            controlPoints = ControlPoints(x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2)
            omega = nil
        case .criticallyDampedSpring(let w):
            timing = "spring"
            controlPoints = nil
            omega = w
        }
        durationUS = spec.duration.value
        fromPercent = spec.fromPercent.value
        toPercent = spec.toPercent.value
        startTimeUS = spec.start.microseconds
        endTimeUS = spec.end.microseconds
        initialVelocity = spec.initialVelocity.value
    }

    /// The percent at `timeUS` (same clock as `time_us`), clamped to 0...1 and exactly `toPercent` from the end.
    public func percent(atTimeUS timeUS: UInt64) -> Double {
        if timeUS >= endTimeUS || durationUS <= 0 { return toPercent }
        let elapsed = Double(timeUS > startTimeUS ? timeUS - startTimeUS : 0) / 1_000_000
        let value: Double
        if let p = controlPoints {
            let bezier = CubicBezier(x1: p.x1, y1: p.y1, x2: p.x2, y2: p.y2)
            value = fromPercent + (toPercent - fromPercent) * bezier.value(at: elapsed * 1_000_000 / Double(durationUS))
        } else {
            // x(t) = (d0 + (v0 + w d0) t) e^(-w t): the critically damped spring of AnimationSpec.
            let omega = self.omega ?? 0
            let d0 = fromPercent - toPercent
            value = toPercent + (d0 + (initialVelocity + omega * d0) * elapsed) * exp(-omega * elapsed)
        }
        return min(1, max(0, value))
    }

    enum CodingKeys: String, CodingKey {
        case curve, timing, omega
        case controlPoints = "control_points"
        case durationUS = "duration_us"
        case fromPercent = "from_percent"
        case toPercent = "to_percent"
        case startTimeUS = "start_time_us"
        case endTimeUS = "end_time_us"
        case initialVelocity = "initial_velocity"
    }
}

/// Where one scene is.
public struct SceneGeometryInfo: Hashable, Sendable, Codable {
    public var scene: String
    public var frame: NormalizedRect
    public var alpha: Double
    /// Higher is nearer the viewer.
    public var zIndex: Int
    public var onStage: Bool

    enum CodingKeys: String, CodingKey {
        case scene, frame, alpha
        case zIndex = "z_index"
        case onStage = "on_stage"
    }
}

/// Both scenes of a transition at one percent.
public struct GeometryInfo: Hashable, Sendable, Codable {
    public var from: SceneGeometryInfo
    public var to: SceneGeometryInfo
    /// The dimming layer under a custom presentation; absent when there is none.
    public var dimmingAlpha: Double?

    enum CodingKeys: String, CodingKey {
        case from, to
        case dimmingAlpha = "dimming_alpha"
    }
}

/// One step of a transition (topic `transition`).
public struct TransitionMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var id: UInt64
    public var operation: String
    public var container: String
    public var from: String
    public var to: String
    public var direction: TransitionDirection
    public var phase: PercentDrivenInteractiveTransition.Phase
    /// 0...1.
    public var percent: Double
    /// Percent per second.
    public var velocity: Double
    public var interactive: Bool
    /// A progress-only update (finger move or run-out frame), which a slow client may receive only the latest of.
    public var progress: Bool
    public var presentationStyle: PresentationStyle?
    public var edge: Edge?
    public var device: UInt32?
    /// On the event that starts a run-out.
    public var animation: AnimationInfo?
    public var geometry: GeometryInfo

    enum CodingKeys: String, CodingKey {
        case seq, id, operation, container, from, to, direction, phase, percent, velocity, interactive, progress
        case edge, device, animation, geometry
        case timeUS = "time_us"
        case presentationStyle = "presentation_style"
    }
}

/// An appearance callback of a scene (topic `lifecycle`).
public struct LifecycleMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var transition: UInt64
    public var container: String
    public var scene: String
    public var event: LifecycleKind

    enum CodingKeys: String, CodingKey {
        case seq, transition, container, scene, event
        case timeUS = "time_us"
    }
}

/// The presentation controller's callback around a modal transition (topic `lifecycle`).
public struct PresentationMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var transition: UInt64
    public var container: String
    /// `presentation` or `dismissal`.
    public var kind: PresentationEvent.Kind
    /// `will-begin` or `did-end`.
    public var phase: PresentationEvent.Phase
    /// On `did-end`: whether the transition completed.
    public var completed: Bool?
    public var presented: String
    public var presenting: String
    public var style: PresentationStyle
    /// Where the presented scene rests.
    public var frame: NormalizedRect

    enum CodingKeys: String, CodingKey {
        case seq, transition, container, kind, phase, completed, presented, presenting, style, frame
        case timeUS = "time_us"
    }
}

/// The transition coordinator's interaction change (topic `transition`).
public struct InteractionMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var transition: UInt64
    public var container: String
    /// `ended` (the finger let go) or `began` (a touch caught the run-out).
    public var phase: InteractionEvent.Phase
    /// On `ended`: whether the run-out goes back.
    public var cancelled: Bool?
    public var percent: Double
    /// Percent per second.
    public var velocity: Double

    enum CodingKeys: String, CodingKey {
        case seq, transition, container, phase, cancelled, percent, velocity
        case timeUS = "time_us"
    }
}

/// The containers' state after a transition ended (topic `state`).
public struct StateMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var containers: [ContainerInfo]
    public var running: [RunningInfo]

    enum CodingKeys: String, CodingKey {
        case seq, containers, running
        case timeUS = "time_us"
    }
}

/// A device came or went; the device's fields sit beside `change` on the wire.
public struct DeviceMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var change: DeviceEvent.Change
    public var device: DeviceInfo

    enum CodingKeys: String, CodingKey {
        case seq, change
        case timeUS = "time_us"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        seq = try c.decode(UInt64.self, forKey: .seq)
        timeUS = try c.decode(UInt64.self, forKey: .timeUS)
        change = try c.decode(DeviceEvent.Change.self, forKey: .change)
        device = try DeviceInfo(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(seq, forKey: .seq)
        try c.encode(timeUS, forKey: .timeUS)
        try c.encode(change, forKey: .change)
        try device.encode(to: encoder)
    }
}

/// How a configuration reload went (topic `config`).
public struct ConfigMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var result: ConfigResult
    public var message: String
    /// The new configuration, when it was reloaded.
    public var config: ConfigSummary?

    enum CodingKeys: String, CodingKey {
        case seq, result, message, config
        case timeUS = "time_us"
    }
}

/// A request failed, or a line could not be read.
public struct ErrorMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var code: ErrorCode
    public var message: String
    /// The request it answers, when its `id` could be read.
    public var id: RequestID?
    public var op: String?

    enum CodingKeys: String, CodingKey {
        case seq, code, message, id, op
        case timeUS = "time_us"
    }
}

/// The result of a request; which fields are present depends on the op (`docs/PROTOCOL.md`).
public struct ReplyPayload: Hashable, Sendable, Codable {
    /// `status`.
    public var protocolVersion: Int?
    public var server: String?
    public var config: ConfigSummary?
    public var state: StateInfo?
    /// `status` and `devices`.
    public var devices: [DeviceInfo]?
    /// `subscribe`.
    public var topics: [Topic]?
    /// `subscribe`: absent means every run-out frame, 0 none.
    public var tickHz: Double?
    /// Control ops: the transition started.
    public var transition: UInt64?

    enum CodingKeys: String, CodingKey {
        case server, config, state, devices, topics, transition
        case protocolVersion = "protocol"
        case tickHz = "tick_hz"
    }
}

/// The answer to a request, with its `id`.
public struct ReplyMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    public var id: RequestID?
    public var op: String
    public var result: ReplyPayload

    enum CodingKeys: String, CodingKey {
        case seq, id, op, result
        case timeUS = "time_us"
    }
}

/// The server is closing the connection.
public struct GoodbyeMessage: Hashable, Sendable, Codable {
    public var seq: UInt64
    public var timeUS: UInt64
    /// A ``GoodbyeReason`` raw value; kept as a string so that a newer server's reasons still decode.
    public var reason: String
    public var message: String

    enum CodingKeys: String, CodingKey {
        case seq, reason, message
        case timeUS = "time_us"
    }
}

/// A message whose `type` this client does not know (from a newer server): skipped, not fatal.
public struct UnknownMessage: Hashable, Sendable, Codable {
    public var type: String
    public var seq: UInt64
    public var timeUS: UInt64

    enum CodingKeys: String, CodingKey {
        case type, seq
        case timeUS = "time_us"
    }
}

/// One line from the server.
public enum ServerMessage: Hashable, Sendable, Codable {
    case hello(HelloMessage)
    case gesture(GestureMessage)
    case transition(TransitionMessage)
    case lifecycle(LifecycleMessage)
    case presentation(PresentationMessage)
    case interaction(InteractionMessage)
    case state(StateMessage)
    case device(DeviceMessage)
    case config(ConfigMessage)
    case error(ErrorMessage)
    case reply(ReplyMessage)
    case goodbye(GoodbyeMessage)
    case unknown(UnknownMessage)

    private enum TypeKey: String, CodingKey { case type }

    public init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
        switch MessageType(rawValue: type) {
        case .hello: self = .hello(try HelloMessage(from: decoder))
        case .gesture: self = .gesture(try GestureMessage(from: decoder))
        case .transition: self = .transition(try TransitionMessage(from: decoder))
        case .lifecycle: self = .lifecycle(try LifecycleMessage(from: decoder))
        case .presentation: self = .presentation(try PresentationMessage(from: decoder))
        case .interaction: self = .interaction(try InteractionMessage(from: decoder))
        case .state: self = .state(try StateMessage(from: decoder))
        case .device: self = .device(try DeviceMessage(from: decoder))
        case .config: self = .config(try ConfigMessage(from: decoder))
        case .error: self = .error(try ErrorMessage(from: decoder))
        case .reply: self = .reply(try ReplyMessage(from: decoder))
        case .goodbye: self = .goodbye(try GoodbyeMessage(from: decoder))
        case nil: self = .unknown(try UnknownMessage(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let m) = self {
            try m.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: TypeKey.self)
        try c.encode(type, forKey: .type)
        switch self {
        case .hello(let m): try m.encode(to: encoder)
        case .gesture(let m): try m.encode(to: encoder)
        case .transition(let m): try m.encode(to: encoder)
        case .lifecycle(let m): try m.encode(to: encoder)
        case .presentation(let m): try m.encode(to: encoder)
        case .interaction(let m): try m.encode(to: encoder)
        case .state(let m): try m.encode(to: encoder)
        case .device(let m): try m.encode(to: encoder)
        case .config(let m): try m.encode(to: encoder)
        case .error(let m): try m.encode(to: encoder)
        case .reply(let m): try m.encode(to: encoder)
        case .goodbye(let m): try m.encode(to: encoder)
        case .unknown: break
        }
    }

    /// The `type` field.
    public var type: String {
        switch self {
        case .hello: MessageType.hello.rawValue
        case .gesture: MessageType.gesture.rawValue
        case .transition: MessageType.transition.rawValue
        case .lifecycle: MessageType.lifecycle.rawValue
        case .presentation: MessageType.presentation.rawValue
        case .interaction: MessageType.interaction.rawValue
        case .state: MessageType.state.rawValue
        case .device: MessageType.device.rawValue
        case .config: MessageType.config.rawValue
        case .error: MessageType.error.rawValue
        case .reply: MessageType.reply.rawValue
        case .goodbye: MessageType.goodbye.rawValue
        case .unknown(let m): m.type
        }
    }

    /// The per-connection sequence number: 1 for `hello`, then gap-free.
    public var seq: UInt64 {
        switch self {
        case .hello(let m): m.seq
        case .gesture(let m): m.seq
        case .transition(let m): m.seq
        case .lifecycle(let m): m.seq
        case .presentation(let m): m.seq
        case .interaction(let m): m.seq
        case .state(let m): m.seq
        case .device(let m): m.seq
        case .config(let m): m.seq
        case .error(let m): m.seq
        case .reply(let m): m.seq
        case .goodbye(let m): m.seq
        case .unknown(let m): m.seq
        }
    }

    /// Monotonic time of the message, in microseconds.
    public var timeUS: UInt64 {
        switch self {
        case .hello(let m): m.timeUS
        case .gesture(let m): m.timeUS
        case .transition(let m): m.timeUS
        case .lifecycle(let m): m.timeUS
        case .presentation(let m): m.timeUS
        case .interaction(let m): m.timeUS
        case .state(let m): m.timeUS
        case .device(let m): m.timeUS
        case .config(let m): m.timeUS
        case .error(let m): m.timeUS
        case .reply(let m): m.timeUS
        case .goodbye(let m): m.timeUS
        case .unknown(let m): m.timeUS
        }
    }

    /// The topic the message belongs to; `nil` for hello, reply, error, goodbye and unknown types.
    public var topic: Topic? { MessageType(rawValue: type)?.topic }
}
