// The server's messages, each described once by its `wire(_:)` (or `body(_:)`) method: the server writes them with
// that description (MessageEncoding.swift), clients read them with it (MessageDecoding.swift), and their `Codable`
// conformance follows it too (Wire.swift). Property defaults are only the placeholders a reader fills in (a field
// missing from a line is an error) and the daemon's side sets from the engine's values (EdgeSwipeEngineWire).

/// An `{x, y}` pair: normalized coordinates, millimetres or millimetres per second, as the field name says.
public struct Vector2: Hashable, Sendable, Codable, WireObject {
    public var x = 0.0
    public var y = 0.0

    init() {}

    @inlinable public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("x", &x)
        try c.field("y", &y)
    }
}

/// A physical size.
public struct SizeMM: Hashable, Sendable, Codable, WireObject {
    public var width = 0.0
    public var height = 0.0

    init() {}

    @inlinable public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("width", &width)
        try c.field("height", &height)
    }
}

/// A touch device, as `hello`, `device` and the `devices` reply describe it.
public struct DeviceInfo: Hashable, Sendable, Codable, WireObject {
    public var id: UInt32 = 0
    public var name = ""
    public var kind = DeviceKind.touchscreen
    /// The event node, a recording path, or a synthetic name.
    public var path = ""
    /// In the user's orientation (after rotation).
    public var sizeMM = SizeMM()
    /// Whether the size is measured (resolution or libinput) rather than assumed.
    public var sizeKnown = false
    /// Clockwise degrees: 0, 90, 180 or 270; the rotation in force (configured, set by a client, or the
    /// accelerometer's).
    public var rotation = 0
    /// Whether the device is configured `rotation = "auto"`: it follows the accelerometer while no client's
    /// `set-rotation` names it.
    public var autoRotation = false
    /// The output (monitor) the device drives (udev's `WL_OUTPUT` or the configuration's); absent when unknown.
    public var output: String?
    /// The calibration matrix in effect, before the rotation: `[a, b, c, d, e, f]` (identity when none is set).
    public var calibration = [1.0, 0, 0, 0, 1, 0]

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("id", &id)
        try c.field("name", &name)
        try c.field("kind", &kind)
        try c.field("path", &path)
        try c.field("size_mm", &sizeMM)
        try c.field("size_known", &sizeKnown)
        try c.field("rotation", &rotation)
        try c.field("auto_rotation", &autoRotation)
        try c.field("output", &output)
        try c.field("calibration", &calibration)
    }
}

/// One presented scene of a modal container.
public struct PresentationInfo: Hashable, Sendable, Codable, WireObject {
    public var scene = ""
    public var style = PresentationStyle.fullScreen
    public var frame = NormalizedRect.full

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("scene", &scene)
        try c.field("style", &style)
        try c.field("frame", &frame)
    }
}

/// A container and its kind-specific state. Exactly the fields of its `kind` are present.
public struct ContainerInfo: Hashable, Sendable, Codable, WireObject {
    public var name = ""
    /// `navigation`, `tabs`, `modal` or `custom`.
    public var kind = ""
    /// The scene the user sees on top.
    public var visible = ""
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

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("name", &name)
        try c.field("kind", &kind)
        try c.field("visible", &visible)
        try c.field("stack", &stack)
        try c.field("tabs", &tabs)
        try c.field("selected", &selected)
        try c.field("base", &base)
        try c.field("presented", &presented)
        try c.field("children", &children)
        try c.field("active", &active)
    }
}

/// A running transition in a snapshot.
public struct RunningInfo: Hashable, Sendable, Codable, WireObject {
    public var id: UInt64 = 0
    public var container = ""
    public var operation = ""
    public var phase = TransitionPhase.began
    public var percent = 0.0

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("id", &id)
        try c.field("container", &container)
        try c.field("operation", &operation)
        try c.field("phase", &phase)
        try c.field("percent", &percent)
    }
}

/// Containers and running transitions: the body of `state`, and `state` inside `hello` and `status`.
public struct StateInfo: Hashable, Sendable, Codable, WireObject {
    public var containers: [ContainerInfo] = []
    public var running: [RunningInfo] = []

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("containers", &containers)
        try c.field("running", &running)
    }
}

/// What this connection may do.
public struct AccessInfo: Hashable, Sendable, Codable, WireObject {
    public var read = false
    public var control = false

    init() {}

    public init(read: Bool, control: Bool) {
        self.read = read
        self.control = control
    }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("read", &read)
        try c.field("control", &control)
    }
}

/// The first message of every connection: versions, devices, configuration, state and access.
public struct HelloMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.hello
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var protocolVersion = WireProtocol.version
    public var server = ""
    public var maxLineBytes = WireProtocol.maxLineBytes
    public var access = AccessInfo()
    public var devices: [DeviceInfo] = []
    public var config = ConfigSummary()
    public var state = StateInfo()

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("protocol", &protocolVersion)
        try c.field("server", &server)
        try c.field("max_line_bytes", &maxLineBytes)
        try c.field("access", &access)
        try c.field("devices", &devices)
        try c.field("config", &config)
        try c.field("state", &state)
    }
}

/// A screen-edge-pan recognizer's state (topic `gesture`).
public struct GestureMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.gesture
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    /// `edge` or `swipe`; a string, so that a newer server's kinds still decode. Always sent; absent from
    /// servers older than multi-finger swipes, whose gestures were all edge gestures (``gestureKind``).
    public var kind: String?
    /// An edge gesture's edge.
    public var edge: Edge?
    /// A multi-finger swipe's direction (`left`, `right`, `up`, `down`: the way the fingers move).
    public var direction: SwipeDirection?
    public var state = GestureState.began
    public var device: UInt32 = 0
    public var deviceKind = DeviceKind.touchscreen
    public var fingers = 0
    /// Normalized, in the user's orientation.
    public var location = Vector2()
    public var translationMM = Vector2()
    public var velocityMMPerS = Vector2()
    /// A `changed` update, which a slow client may receive only the latest of.
    public var progress = false
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

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("kind", &kind)
        try c.field("edge", &edge)
        try c.field("direction", &direction)
        try c.field("state", &state)
        try c.field("device", &device)
        try c.field("device_kind", &deviceKind)
        try c.field("fingers", &fingers)
        try c.field("location", &location)
        try c.field("translation_mm", &translationMM)
        try c.field("velocity_mm_s", &velocityMMPerS)
        try c.field("progress", &progress)
        try c.field("transition", &transition)
        try c.field("blocked", &blocked)
        try c.field("overscroll", &overscroll)
        try c.field("overscroll_mm", &overscrollMM)
        try c.field("animation", &animation)
        try c.field("reason", &reason)
    }

    /// The displacement at `timeUS`: the finger's while it is down, then the spring back to exactly 0.
    public func overscroll(atTimeUS timeUS: UInt64) -> Double? {
        if let animation { return animation.percent(atTimeUS: timeUS) }
        return overscroll
    }

    /// ``kind``, an older server's absent one read as `edge`.
    public var gestureKind: String { kind ?? GestureKind.edge.rawValue }
}

/// Cubic Bézier control points, as CSS `cubic-bezier(x1, y1, x2, y2)`.
public struct ControlPoints: Hashable, Sendable, Codable, WireObject {
    public var x1 = 0.0, y1 = 0.0, x2 = 0.0, y2 = 0.0

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("x1", &x1)
        try c.field("y1", &y1)
        try c.field("x2", &x2)
        try c.field("y2", &y2)
    }
}

/// A run-out, so that a client can interpolate it at its own refresh rate.
public struct AnimationInfo: Hashable, Sendable, Codable, WireObject {
    /// `linear`, `ease-in`, `ease-out`, `ease-in-out` or `spring`.
    public var curve = ""
    /// `cubic-bezier` (with ``controlPoints``) or `spring` (with ``omega``).
    public var timing = ""
    public var controlPoints: ControlPoints?
    /// Angular frequency of the critically damped spring, rad/s.
    public var omega: Double?
    public var durationUS: Int64 = 0
    public var fromPercent = 0.0
    public var toPercent = 0.0
    public var startTimeUS: UInt64 = 0
    public var endTimeUS: UInt64 = 0
    /// Percent per second at the start (the release velocity).
    public var initialVelocity = 0.0

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("curve", &curve)
        try c.field("timing", &timing)
        try c.field("control_points", &controlPoints)
        try c.field("omega", &omega)
        try c.field("duration_us", &durationUS)
        try c.field("from_percent", &fromPercent)
        try c.field("to_percent", &toPercent)
        try c.field("start_time_us", &startTimeUS)
        try c.field("end_time_us", &endTimeUS)
        try c.field("initial_velocity", &initialVelocity)
    }
}

extension AnimationInfo {
    public init(_ spec: AnimationSpec) {
        curve = spec.curve.name
        switch spec.timing {
        case .cubicBezier(let b):
            timing = "cubic-bezier"
            controlPoints = ControlPoints(x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2)
        case .criticallyDampedSpring(let omega):
            timing = "spring"
            self.omega = omega
        }
        durationUS = spec.duration.value
        fromPercent = spec.fromPercent.value
        toPercent = spec.toPercent.value
        startTimeUS = spec.start.microseconds
        endTimeUS = spec.end.microseconds
        initialVelocity = spec.initialVelocity.value
    }

    /// The run-out as the engine computes it (its curve's name aside, which the timing makes redundant).
    public var spec: AnimationSpec {
        let timing: AnimationSpec.Timing =
            if let p = controlPoints {
                .cubicBezier(CubicBezier(x1: p.x1, y1: p.y1, x2: p.x2, y2: p.y2))
            } else {
                .criticallyDampedSpring(omega: omega ?? 0)
            }
        return AnimationSpec(
            curve: .linear, timing: timing, start: MonotonicInstant(microseconds: startTimeUS),
            duration: Microseconds(durationUS), fromPercent: Percent(fromPercent), toPercent: Percent(toPercent),
            initialVelocity: PercentPerSecond(initialVelocity))
    }

    /// The percent at `timeUS` (same clock as `time_us`), clamped to 0...1 and exactly `toPercent` from the end.
    public func percent(atTimeUS timeUS: UInt64) -> Double {
        spec.percent(at: MonotonicInstant(microseconds: timeUS)).value
    }
}

/// Where one scene is.
public struct SceneGeometryInfo: Hashable, Sendable, Codable, WireObject {
    public var scene = ""
    public var frame = NormalizedRect.full
    public var alpha = 0.0
    /// Higher is nearer the viewer.
    public var zIndex = 0
    public var onStage = false

    init() {}

    @inlinable public init(scene: String, frame: NormalizedRect, alpha: Double, zIndex: Int, onStage: Bool) {
        self.scene = scene
        self.frame = frame
        self.alpha = alpha
        self.zIndex = zIndex
        self.onStage = onStage
    }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("scene", &scene)
        try c.field("frame", &frame)
        try c.field("alpha", &alpha)
        try c.field("z_index", &zIndex)
        try c.field("on_stage", &onStage)
    }
}

/// Both scenes of a transition at one percent.
public struct GeometryInfo: Hashable, Sendable, Codable, WireObject {
    public var from = SceneGeometryInfo()
    public var to = SceneGeometryInfo()
    /// The dimming layer under a custom presentation; absent when there is none.
    public var dimmingAlpha: Double?

    init() {}

    @inlinable public init(from: SceneGeometryInfo, to: SceneGeometryInfo, dimmingAlpha: Double?) {
        self.from = from
        self.to = to
        self.dimmingAlpha = dimmingAlpha
    }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("from", &from)
        try c.field("to", &to)
        try c.field("dimming_alpha", &dimmingAlpha)
    }
}

/// What the release decision concludes: where the release velocity would carry the transition and the percent it
/// must reach to finish. On a finger-driven `transition` `changed`: if the finger lifted now; on `interaction`
/// `ended`: the judgement that decided.
public struct ReleaseInfo: Hashable, Sendable, Codable, WireObject {
    /// The percent the release would carry the transition to (the percent itself below the flick velocity); may
    /// lie outside 0...1.
    public var projectedPercent = 0.0
    /// The projected percent at or past which a release finishes.
    public var threshold = 0.0

    init() {}

    @inlinable public init(projectedPercent: Double, threshold: Double) {
        self.projectedPercent = projectedPercent
        self.threshold = threshold
    }

    /// Whether the release finishes the transition (or cancels it).
    public var finishes: Bool { projectedPercent >= threshold }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("projected_percent", &projectedPercent)
        try c.field("threshold", &threshold)
    }
}

/// One step of a transition (topic `transition`).
public struct TransitionMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.transition
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var id: UInt64 = 0
    public var operation = ""
    public var container = ""
    public var from = ""
    public var to = ""
    public var direction = TransitionDirection.forward
    public var phase = TransitionPhase.began
    /// 0...1.
    public var percent = 0.0
    /// Percent per second.
    public var velocity = 0.0
    public var interactive = false
    /// A progress-only update (finger move or run-out frame), which a slow client may receive only the latest of.
    public var progress = false
    public var presentationStyle: PresentationStyle?
    public var edge: Edge?
    public var device: UInt32?
    /// The direction and finger count of the multi-finger swipe that drives it (a new swipe with as many fingers
    /// catches its run-out).
    public var swipeDirection: SwipeDirection?
    public var swipeFingers: Int?
    /// On the event that starts a run-out.
    public var animation: AnimationInfo?
    public var geometry = GeometryInfo()
    /// On a finger-driven `changed`: what a release now would conclude.
    public var release: ReleaseInfo?

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("id", &id)
        try c.field("operation", &operation)
        try c.field("container", &container)
        try c.field("from", &from)
        try c.field("to", &to)
        try c.field("direction", &direction)
        try c.field("phase", &phase)
        try c.field("percent", &percent)
        try c.field("velocity", &velocity)
        try c.field("interactive", &interactive)
        try c.field("progress", &progress)
        try c.field("presentation_style", &presentationStyle)
        try c.field("edge", &edge)
        try c.field("device", &device)
        try c.field("swipe_direction", &swipeDirection)
        try c.field("swipe_fingers", &swipeFingers)
        try c.field("animation", &animation)
        try c.field("geometry", &geometry)
        try c.field("release", &release)
    }
}

/// An appearance callback of a scene (topic `lifecycle`).
public struct LifecycleMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.lifecycle
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var transition: UInt64 = 0
    public var container = ""
    public var scene = ""
    public var event = LifecycleKind.willAppear

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("transition", &transition)
        try c.field("container", &container)
        try c.field("scene", &scene)
        try c.field("event", &event)
    }
}

/// The presentation controller's callback around a modal transition (topic `lifecycle`).
public struct PresentationMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.presentation
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var transition: UInt64 = 0
    public var container = ""
    /// `presentation` or `dismissal`.
    public var kind = PresentationKind.presentation
    /// `will-begin` or `did-end`.
    public var phase = PresentationPhase.willBegin
    /// On `did-end`: whether the transition completed.
    public var completed: Bool?
    public var presented = ""
    public var presenting = ""
    public var style = PresentationStyle.fullScreen
    /// Where the presented scene rests.
    public var frame = NormalizedRect.full

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("transition", &transition)
        try c.field("container", &container)
        try c.field("kind", &kind)
        try c.field("phase", &phase)
        try c.field("completed", &completed)
        try c.field("presented", &presented)
        try c.field("presenting", &presenting)
        try c.field("style", &style)
        try c.field("frame", &frame)
    }
}

/// The transition coordinator's interaction change (topic `transition`).
public struct InteractionMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.interaction
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var transition: UInt64 = 0
    public var container = ""
    /// `ended` (the finger let go) or `began` (a touch caught the run-out).
    public var phase = InteractionPhase.began
    /// On `ended`: whether the run-out goes back.
    public var cancelled: Bool?
    public var percent = 0.0
    /// Percent per second.
    public var velocity = 0.0
    /// On `ended`, when the release decision judged it (not for a cancelled touch): the projection that decided.
    public var release: ReleaseInfo?

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("transition", &transition)
        try c.field("container", &container)
        try c.field("phase", &phase)
        try c.field("cancelled", &cancelled)
        try c.field("percent", &percent)
        try c.field("velocity", &velocity)
        try c.field("release", &release)
    }
}

/// The containers' state after a transition ended (topic `state`).
public struct StateMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.state
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var containers: [ContainerInfo] = []
    public var running: [RunningInfo] = []

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("containers", &containers)
        try c.field("running", &running)
    }
}

/// A device came or went; the device's fields sit beside `change` on the wire.
public struct DeviceMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.device
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var change = DeviceChange.added
    public var device = DeviceInfo()

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("change", &change)
        try c.inline(&device)
    }
}

/// How a configuration reload went (topic `config`).
public struct ConfigMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.config
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var result = ConfigResult.reloaded
    public var message = ""
    /// The new configuration, when it was reloaded.
    public var config: ConfigSummary?

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("result", &result)
        try c.field("message", &message)
        try c.field("config", &config)
    }
}

/// A request failed, or a line could not be read.
public struct ErrorMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.error
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var code = ErrorCode.internal
    public var message = ""
    /// The request it answers, when its `id` could be read.
    public var id: RequestID?
    public var op: String?

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("code", &code)
        try c.field("message", &message)
        try c.field("id", &id)
        try c.field("op", &op)
    }
}

extension ErrorMessage {
    /// The `error` for `error`; its `message` names the place and the problem (``RequestError/message``).
    public init(_ error: RequestError, time: MonotonicInstant) {
        timeUS = time.microseconds
        code = error.code
        message = error.message
        id = error.id
        op = error.op
    }
}

/// The result of a request; which fields are present depends on the op (`docs/PROTOCOL.md`).
public struct ReplyPayload: Hashable, Sendable, Codable, WireObject {
    /// `status`.
    public var protocolVersion: Int?
    public var server: String?
    /// `status` and `devices`.
    public var devices: [DeviceInfo]?
    /// `status`.
    public var config: ConfigSummary?
    public var state: StateInfo?
    /// `subscribe`.
    public var topics: [Topic]?
    /// `subscribe`: absent means every run-out frame, 0 none.
    public var tickHz: Double?
    /// Control ops: the transition started.
    public var transition: UInt64?
    /// `set-rotation`: the devices turned now, and those that turn when their fingers lift.
    public var applied: [UInt32]?
    public var pending: [UInt32]?

    /// Every field at its placeholder, set field by field by a reader or by the daemon's side.
    @inlinable public init() {}

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("protocol", &protocolVersion)
        try c.field("server", &server)
        try c.field("devices", &devices)
        try c.field("config", &config)
        try c.field("state", &state)
        try c.field("topics", &topics)
        try c.field("tick_hz", &tickHz)
        try c.field("transition", &transition)
        try c.field("applied", &applied)
        try c.field("pending", &pending)
    }
}

/// The answer to a request, with its `id`.
public struct ReplyMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.reply
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    public var id: RequestID?
    public var op = ""
    public var result = ReplyPayload()

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("id", &id)
        try c.field("op", &op)
        try c.field("result", &result)
    }
}

/// The server is closing the connection.
public struct GoodbyeMessage: Hashable, Sendable, Codable, WireMessage {
    static let type = MessageType.goodbye
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0
    /// A ``GoodbyeReason`` raw value; kept as a string so that a newer server's reasons still decode.
    public var reason = ""
    public var message = ""

    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("reason", &reason)
        try c.field("message", &message)
    }
}

/// A message whose `type` this client does not know (from a newer server): skipped, not fatal.
public struct UnknownMessage: Hashable, Sendable, Codable, WireObject {
    public var type = ""
    public var seq: UInt64 = 0
    public var timeUS: UInt64 = 0

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("type", &type)
        try c.field("seq", &seq)
        try c.field("time_us", &timeUS)
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
    public var type: String { common.type }

    /// The per-connection sequence number: 1 for `hello`, then gap-free.
    public var seq: UInt64 { common.seq }

    /// Monotonic time of the message, in microseconds.
    public var timeUS: UInt64 { common.timeUS }

    /// The fields every message has, from one switch over the kinds: an enum of structs has no stored field in
    /// common, so each kind's message is asked for its own.
    private var common: (type: String, seq: UInt64, timeUS: UInt64) {
        switch self {
        case .hello(let m): m.common
        case .gesture(let m): m.common
        case .transition(let m): m.common
        case .lifecycle(let m): m.common
        case .presentation(let m): m.common
        case .interaction(let m): m.common
        case .state(let m): m.common
        case .device(let m): m.common
        case .config(let m): m.common
        case .error(let m): m.common
        case .reply(let m): m.common
        case .goodbye(let m): m.common
        case .unknown(let m): (m.type, m.seq, m.timeUS)
        }
    }

    /// The topic the message belongs to; `nil` for hello, reply, error, goodbye and unknown types.
    public var topic: Topic? { MessageType(rawValue: type)?.topic }
}
