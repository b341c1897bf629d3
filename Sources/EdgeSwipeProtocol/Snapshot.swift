public import EdgeSwipeCore

/// What a client is told about the configuration: enough to show which edge does what, not the whole file.
public struct ConfigSummary: Hashable, Sendable, Codable {
    /// Where the configuration came from: a file path, or `built-in`.
    public var source: String
    public var containers: [String]
    public var bindings: [BindingSummary]
    public var animator: AnimatorSummary
    public var completionCurve: String
    public var completionSpeed: Double
    /// The run-out frame rate the engine ticks at while something animates.
    public var tickHz: Double

    public init(
        source: String, containers: [String], bindings: [BindingSummary], animator: AnimatorSummary,
        completionCurve: String, completionSpeed: Double, tickHz: Double
    ) {
        self.source = source
        self.containers = containers
        self.bindings = bindings
        self.animator = animator
        self.completionCurve = completionCurve
        self.completionSpeed = completionSpeed
        self.tickHz = tickHz
    }

    public init(configuration c: EngineConfiguration, source: String) {
        self.init(
            source: source, containers: c.containers.map(\.name),
            bindings: c.bindings.map(BindingSummary.init),
            animator: AnimatorSummary(c.animator), completionCurve: c.completionCurve.name,
            completionSpeed: c.completionSpeed,
            tickHz: c.tickInterval.value > 0 ? 1 / c.tickInterval.seconds : 0)
    }

    enum CodingKeys: String, CodingKey {
        case source, containers, bindings, animator
        case completionCurve = "completion_curve"
        case completionSpeed = "completion_speed"
        case tickHz = "tick_hz"
    }
}

/// One binding: which edge (or multi-finger swipe) drives which operation on which container.
public struct BindingSummary: Hashable, Sendable, Codable {
    /// `edge` or `swipe`; absent from servers that knew only edges.
    public var gesture: GestureKind
    /// An edge binding's edge.
    public var edge: Edge?
    /// A swipe binding's direction.
    public var direction: SwipeDirection?
    public var container: String
    public var operation: String
    /// Empty means every kind.
    public var deviceKinds: [DeviceKind]
    public var fingers: FingerRange

    public struct FingerRange: Hashable, Sendable, Codable {
        public var min: Int
        public var max: Int
        public init(min: Int, max: Int) {
            self.min = min
            self.max = max
        }
    }

    public init(
        trigger: GestureTrigger, container: String, operation: String, deviceKinds: [DeviceKind], fingers: FingerRange
    ) {
        self.gesture = trigger.kind
        self.edge = trigger.edge
        self.direction = trigger.direction
        self.container = container
        self.operation = operation
        self.deviceKinds = deviceKinds
        self.fingers = fingers
    }

    public init(_ b: Binding) {
        self.init(
            trigger: b.trigger, container: b.container, operation: b.operation.name, deviceKinds: b.deviceKinds,
            fingers: FingerRange(min: b.fingers.lowerBound, max: b.fingers.upperBound))
    }

    enum CodingKeys: String, CodingKey {
        case gesture, edge, direction, container, operation, fingers
        case deviceKinds = "device_kinds"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        gesture = try c.decodeIfPresent(GestureKind.self, forKey: .gesture) ?? .edge
        edge = try c.decodeIfPresent(Edge.self, forKey: .edge)
        direction = try c.decodeIfPresent(SwipeDirection.self, forKey: .direction)
        container = try c.decode(String.self, forKey: .container)
        operation = try c.decode(String.self, forKey: .operation)
        deviceKinds = try c.decode([DeviceKind].self, forKey: .deviceKinds)
        fingers = try c.decode(FingerRange.self, forKey: .fingers)
    }
}

/// The default animator.
public struct AnimatorSummary: Hashable, Sendable, Codable {
    public var style: Animator.Style
    public var durationUS: Int64
    public var curve: String

    public init(style: Animator.Style, durationUS: Int64, curve: String) {
        self.style = style
        self.durationUS = durationUS
        self.curve = curve
    }

    public init(_ a: Animator) {
        self.init(style: a.style, durationUS: a.duration.value, curve: a.curve.name)
    }

    enum CodingKeys: String, CodingKey {
        case style, curve
        case durationUS = "duration_us"
    }
}

/// A transition that is running, as a snapshot lists it.
public struct RunningTransitionSummary: Hashable, Sendable {
    public var id: TransitionID
    public var container: String
    /// The wire name of the operation (`push`, `select-tab`, ...).
    public var operation: String
    public var phase: PercentDrivenInteractiveTransition.Phase
    public var percent: Percent

    public init(id: TransitionID, container: String, operation: String, phase: PercentDrivenInteractiveTransition.Phase, percent: Percent) {
        self.id = id
        self.container = container
        self.operation = operation
        self.phase = phase
        self.percent = percent
    }
}

/// Everything a `hello` and a `status` reply describe: devices, configuration, containers and running
/// transitions.
///
/// The server keeps one up to date by applying every event it publishes, so a client that connects gets a
/// snapshot that is consistent with the first event it receives after it.
public struct ServerSnapshot: Hashable, Sendable {
    public var serverVersion: String
    public var devices: [TouchDevice]
    public var config: ConfigSummary
    public var containers: [Container]
    public var running: [RunningTransitionSummary]
    /// The latest event time seen.
    public var time: MonotonicInstant

    public init(
        serverVersion: String, devices: [TouchDevice], config: ConfigSummary, containers: [Container],
        running: [RunningTransitionSummary] = [], time: MonotonicInstant = .zero
    ) {
        self.serverVersion = serverVersion
        self.devices = devices
        self.config = config
        self.containers = containers
        self.running = running
        self.time = time
    }

    /// From the engine's own snapshot (`Engine.snapshot`, `Engine.knownDevices`).
    public init(serverVersion: String, devices: [TouchDevice], config: ConfigSummary, state: StateSnapshot) {
        self.init(
            serverVersion: serverVersion, devices: devices, config: config, containers: state.containers,
            running: state.running.map(RunningTransitionSummary.init), time: state.time)
    }
}

extension RunningTransitionSummary {
    /// A running transition as the engine's own snapshot lists it.
    public init(_ r: StateSnapshot.RunningSummary) {
        self.init(id: r.id, container: r.container, operation: r.operation.name, phase: r.phase, percent: r.percent)
    }
}
