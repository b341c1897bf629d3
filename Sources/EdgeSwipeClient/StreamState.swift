public import EdgeSwipeProtocol

/// The stream's state for a Swift client that draws what the daemon decides: the counterpart, line for line, of
/// `edgeswipe.js`'s `EdgeSwipeState`, `geometryAt`, `percentAt` and `scenesAt` (`Sources/EdgeSwipeWeb/Web/`), so
/// that the session's overlay and a web page draw the same frames from the same stream. Messages in
/// (``apply(_:)``), frames at any instant out (``Transition/scenes(atTimeUS:)``); no server ticks needed.
///
/// One difference, in the clock only: a page must estimate the daemon's clock (`DaemonClock`), while a Swift client
/// on the daemon's machine reads the very clock the daemon stamps `time_us` with (`CLOCK_MONOTONIC`,
/// `MonotonicClock.now()`), so instants are passed in as the daemon's microseconds.
public struct StreamState: Sendable {
    /// A transition as the stream told it: the latest message's fields, plus what interpolation needs (its
    /// geometry at 0 and at the percent furthest from 0, and the run-out in flight).
    public struct Transition: Hashable, Sendable {
        public var id: UInt64
        public var container: String
        public var operation: String
        public var from: String
        public var to: String
        public var direction: TransitionDirection
        public var interactive: Bool
        public var edge: Edge?
        public var swipeDirection: SwipeDirection?
        public var swipeFingers: Int?
        public var presentationStyle: PresentationStyle?
        public var device: UInt32?
        public var phase: TransitionPhase
        public var percent: Double
        public var velocity: Double
        public var geometry: GeometryInfo
        public var timeUS: UInt64
        /// The geometry at percent 0 (the `began` message's).
        public var geometryAtZero: GeometryInfo?
        /// The geometry at the percent furthest from 0 seen so far.
        public var reference: Reference?
        /// The run-out in flight; `nil` while a finger drives it.
        public var animation: AnimationInfo?
        /// The finger's projection on the latest finger-driven message (`nil` from servers without it).
        public var release: ReleaseInfo?
        public var terminal: Bool
    }

    /// A transition's geometry at one percent.
    public struct Reference: Hashable, Sendable {
        public var percent: Double
        public var geometry: GeometryInfo
    }

    /// Both scenes of a transition at one instant (`scenesAt`'s result).
    public struct Scenes: Hashable, Sendable {
        public var percent: Double
        public var phase: TransitionPhase
        public var from: SceneGeometryInfo
        public var to: SceneGeometryInfo
        public var dimmingAlpha: Double?
    }

    public private(set) var hello: HelloMessage?
    public private(set) var connected = false
    /// By name, as `hello` and `state` describe them.
    public private(set) var containers: [String: ContainerInfo] = [:]
    public private(set) var devices: [UInt32: DeviceInfo] = [:]
    /// Running transitions by id.
    public private(set) var transitions: [UInt64: Transition] = [:]
    /// The id of the last transition of each container.
    public private(set) var lastTransition: [String: UInt64] = [:]
    /// The latest gesture message of each device (a blocked swipe's rubber band among them).
    public private(set) var gestures: [UInt32: GestureMessage] = [:]

    /// Transitions followed at once (``ClientBounds``): past it the oldest is dropped.
    public static let maxTransitions = ClientBounds.maxTransitions
    /// Devices, and gestures by device, remembered at once (``ClientBounds``).
    public static let maxDevices = ClientBounds.maxDevices

    public init() {}

    /// Takes one message.
    public mutating func apply(_ message: ServerMessage) {
        switch message {
        case .hello(let m):
            self = StreamState()
            hello = m
            connected = true
            for d in m.devices.prefix(Self.maxDevices) { devices[d.id] = d }
            setContainers(m.state.containers)
        case .state(let m):
            setContainers(m.containers)
        case .device(let m):
            if m.change == .removed {
                devices[m.device.id] = nil
                gestures[m.device.id] = nil
            } else if devices[m.device.id] != nil || devices.count < Self.maxDevices {
                devices[m.device.id] = m.device
            }
        case .transition(let m):
            applyTransition(m)
        case .gesture(let m):
            if gestures[m.device] != nil || gestures.count < Self.maxDevices { gestures[m.device] = m }
        case .lifecycle, .presentation, .interaction, .config, .error, .reply, .goodbye, .unknown:
            break
        }
    }

    /// The connection dropped: what it said stays until the next `hello` replaces it.
    public mutating func disconnected() { connected = false }

    private mutating func setContainers(_ list: [ContainerInfo]) {
        containers = Dictionary(list.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    private mutating func applyTransition(_ m: TransitionMessage) {
        var t = transitions[m.id] ?? Transition(
            id: m.id, container: m.container, operation: m.operation, from: m.from, to: m.to, direction: m.direction,
            interactive: m.interactive, edge: m.edge, swipeDirection: m.swipeDirection, swipeFingers: m.swipeFingers,
            presentationStyle: m.presentationStyle, device: m.device, phase: m.phase, percent: m.percent,
            velocity: m.velocity, geometry: m.geometry, timeUS: m.timeUS, geometryAtZero: nil, reference: nil,
            animation: nil, release: nil, terminal: false)
        let isNew = transitions[m.id] == nil
        t.phase = m.phase
        t.percent = m.percent
        t.velocity = m.velocity
        t.geometry = m.geometry
        t.timeUS = m.timeUS
        if m.device != nil { t.device = m.device }
        if m.phase == .began || (m.percent == 0 && t.geometryAtZero == nil) { t.geometryAtZero = m.geometry }
        if t.reference.map({ abs(m.percent) > abs($0.percent) }) ?? true { t.reference = Reference(percent: m.percent, geometry: m.geometry) }
        if let animation = m.animation {
            t.animation = animation
        } else if m.phase == .changed || m.phase == .began {
            // A re-grab: the finger has it again.
            t.animation = nil
        }
        if m.phase == .changed || m.phase == .began { t.release = m.release }
        if m.phase.isTerminal {
            forget(m.id)
        } else {
            // A transition whose first line is its terminal one is never followed, and points no container at it.
            if isNew {
                if transitions.count >= Self.maxTransitions, let oldest = transitions.keys.min() { forget(oldest) }
                lastTransition[m.container] = m.id
            }
            transitions[m.id] = t
        }
    }

    /// Drops a transition that ended (or the oldest, at the cap), and its container's pointer to it: neither map
    /// outgrows the transitions running.
    private mutating func forget(_ id: UInt64) {
        guard let t = transitions.removeValue(forKey: id) else { return }
        if lastTransition[t.container] == id { lastTransition[t.container] = nil }
    }

    /// The running transition of `container`, if any.
    public func transition(of container: String) -> Transition? {
        lastTransition[container].flatMap { transitions[$0] }
    }
}

extension StreamState.Transition {
    /// The geometry at percent `p` (`geometryAt`). Every animator the daemon has moves frames, alphas and the
    /// dimming linearly with the percent, so geometry is affine in it: known at 0 and at one other percent, it is
    /// known everywhere.
    public func geometry(atPercent p: Double) -> GeometryInfo {
        if terminal { return geometry }
        guard let g0 = geometryAtZero, let ref = reference, abs(ref.percent) >= 1e-6 else { return geometry }
        let f = p / ref.percent
        return GeometryInfo(
            from: Self.lerp(g0.from, ref.geometry.from, f), to: Self.lerp(g0.to, ref.geometry.to, f),
            dimmingAlpha: ref.geometry.dimmingAlpha.map { Self.lerp(g0.dimmingAlpha ?? 0, $0, f) })
    }

    /// The percent at the daemon's `timeUS` (`percentAt`): the run-out's spec while it runs out, else the last
    /// message's.
    public func percent(atTimeUS timeUS: UInt64) -> Double {
        if let animation, !terminal { return animation.percent(atTimeUS: timeUS) }
        return percent
    }

    /// Both scenes at the daemon's `timeUS` (`scenesAt`).
    public func scenes(atTimeUS timeUS: UInt64) -> StreamState.Scenes {
        let p = percent(atTimeUS: timeUS)
        let g = geometry(atPercent: p)
        return StreamState.Scenes(percent: p, phase: phase, from: g.from, to: g.to, dimmingAlpha: g.dimmingAlpha)
    }

    /// `edgeswipe.js`'s `lerp`, in its order of operations.
    static func lerp(_ a: Double, _ b: Double, _ f: Double) -> Double { a + (b - a) * f }

    static func lerp(_ a: SceneGeometryInfo, _ b: SceneGeometryInfo, _ f: Double) -> SceneGeometryInfo {
        SceneGeometryInfo(
            scene: b.scene,
            frame: NormalizedRect(
                x: lerp(a.frame.x, b.frame.x, f), y: lerp(a.frame.y, b.frame.y, f),
                width: lerp(a.frame.width, b.frame.width, f), height: lerp(a.frame.height, b.frame.height, f)),
            alpha: lerp(a.alpha, b.alpha, f), zIndex: b.zIndex, onStage: b.onStage)
    }
}
