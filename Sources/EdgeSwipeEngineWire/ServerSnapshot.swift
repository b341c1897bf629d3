public import EdgeSwipeCore
public import EdgeSwipeProtocol

// What a `hello` and a `status` reply describe, in the engine's values (`ServerSnapshot`), and the configuration
// summary built from the engine's configuration. The summaries themselves are the protocol's (`Snapshot.swift`).

/// A transition that is running, as a snapshot lists it.
public struct RunningTransitionSummary: Hashable, Sendable {
    public var id: TransitionID
    public var container: String
    /// The wire name of the operation (`push`, `select-tab`, ...).
    public var operation: String
    public var phase: TransitionPhase
    public var percent: Percent

    public init(id: TransitionID, container: String, operation: String, phase: TransitionPhase, percent: Percent) {
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

extension ConfigSummary {
    public init(configuration c: EngineConfiguration, source: String) {
        let rubberBandLimit: Double? = if case .rubberBand(let band) = c.overscroll { band.limit.value } else { nil }
        self.init(
            source: source, containers: c.containers.map(\.name),
            bindings: c.bindings.map(BindingSummary.init),
            animator: AnimatorSummary(c.animator), completionCurve: c.completionCurve.name,
            completionSpeed: c.completionSpeed,
            tickHz: c.tickInterval.value > 0 ? 1 / c.tickInterval.seconds : 0,
            rubberBandLimit: rubberBandLimit)
    }
}

extension BindingSummary {
    public init(_ b: Binding) {
        self.init(
            gesture: b.trigger.kind, edge: b.trigger.edge, direction: b.trigger.direction, container: b.container,
            operation: b.operation.name, deviceKinds: b.deviceKinds,
            fingers: FingerRange(min: b.fingers.lowerBound, max: b.fingers.upperBound))
    }
}

extension AnimatorSummary {
    public init(_ a: Animator) {
        self.init(style: a.style, durationUS: a.duration.value, curve: a.curve.name)
    }
}
