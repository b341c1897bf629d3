import RealModule

/// Tuning for one device kind's screen-edge-pan recognizer.
///
/// Zones are physical where the device reports a resolution, and fractions of the axis where it does not. The
/// defaults, and where they come from, are in `docs/ARCHITECTURE.md` ("Edge zones").
public struct EdgeRecognizerSettings: Hashable, Sendable, Codable {
    /// How far from the edge a touch may land and still start a swipe, on devices of known size.
    public var zone: Millimeters
    /// The same, as a fraction of the axis across the edge, on devices that hide their size.
    public var zoneFraction: Double
    /// How far a touch must move before its direction is judged, in real millimetres or, on devices that
    /// hide their size, in millimetres of the assumed size (a direction needs a distance, not a fraction).
    public var hysteresis: Millimeters
    /// The largest angle between the first motion and the edge's inward normal that still counts as a swipe.
    public var angleToleranceDegrees: Double
    /// In a corner (a touch inside two zones), a first motion this close to parallel to one of the two edges
    /// slides along that edge and fails, as a slide along a single edge does; only a motion between this and
    /// `angleToleranceDegrees` off an edge's normal resolves the corner.
    public var cornerAlongDegrees: Double
    /// How much recent motion the release velocity is fitted over.
    public var velocityWindow: Microseconds

    public init(
        zone: Millimeters, zoneFraction: Double, hysteresis: Millimeters,
        angleToleranceDegrees: Double = 30, cornerAlongDegrees: Double = 15,
        velocityWindow: Microseconds = .milliseconds(150)
    ) {
        self.zone = zone
        self.zoneFraction = zoneFraction
        self.hysteresis = hysteresis
        self.angleToleranceDegrees = angleToleranceDegrees
        self.cornerAlongDegrees = cornerAlongDegrees
        self.velocityWindow = velocityWindow
    }

    /// 4 mm (3 % of the axis without a size) for screens; see ARCHITECTURE.md for the comparison with Android,
    /// GNOME, KWin and lisgd.
    public static let touchscreen = EdgeRecognizerSettings(
        zone: Millimeters(4), zoneFraction: 0.03, hysteresis: Millimeters(2))
    /// 5 mm (5 % without a size) for touchpads, whose fingers land less precisely and whose edges are felt.
    public static let touchpad = EdgeRecognizerSettings(
        zone: Millimeters(5), zoneFraction: 0.05, hysteresis: Millimeters(2))

    public static func defaults(for kind: DeviceKind) -> EdgeRecognizerSettings {
        switch kind {
        case .touchscreen: .touchscreen
        case .touchpad: .touchpad
        }
    }

    /// The zone across `edge` on `device`, as a fraction of that axis.
    public func zoneFraction(across edge: Edge, on device: TouchDevice) -> Double {
        guard device.hasPhysicalSize else { return zoneFraction }
        let axis = edge.isHorizontal ? device.size.width : device.size.height
        return zone.value / max(axis.value, 1e-9)
    }

}

/// UIKit's `UIScreenEdgePanGestureRecognizer`, as a value: one per device, tracking the first touch of each
/// touch sequence.
///
/// Decisions, all documented in `docs/ARCHITECTURE.md`:
/// - Only the first touch of a sequence (the first to land while no finger is down) is judged. If it lands
///   outside every candidate zone, the sequence fails, so a pinch or scroll that strays near an edge later never
///   becomes a swipe. Further fingers are counted (`fingers`) but never move the tracked point.
/// - The touch must move past the hysteresis distance before its direction is judged. A first motion within the
///   angle tolerance of an edge's inward normal begins; one along the edge or outward fails. When the touch lies
///   in two zones (a corner), a motion parallel to either edge slides along it and fails (on a touchpad that is
///   edge scrolling); otherwise the edge whose normal is closest to the motion wins.
/// - After ended, cancelled or failed the recognizer waits for every finger to lift, then is possible again.
public struct ScreenEdgePanRecognizer: Sendable {
    public enum State: String, Hashable, Sendable, Codable {
        case possible, began, changed, ended, cancelled, failed
    }

    /// The events that move the state machine; their raw values appear in the `old -> event -> new` log.
    public enum Event: String, Hashable, Sendable, Codable {
        case touchDown = "touch-down"
        case touchMotion = "touch-motion"
        case touchUp = "touch-up"
        case touchCancel = "touch-cancel"
        case caught = "caught"
        case deviceRemoved = "device-removed"
        case eventsDropped = "events-dropped"
        case allTouchesUp = "all-touches-up"
        case bindingUnavailable = "binding-unavailable"
    }

    /// What the caller must do after an event.
    public enum Action: Hashable, Sendable {
        /// The state changed; log it as `old -> event -> new`.
        case transitioned(from: State, event: Event, to: State)
        case began(Edge)
        case changed
        case ended
        case cancelled
        case failed
    }

    public private(set) var state: State = .possible
    public private(set) var edge: Edge?
    /// The id of the tracked touch, while one is tracked.
    public private(set) var trackedTouch: Int32?
    /// Every finger currently down on the device, tracked or not.
    public private(set) var fingers = 0
    public private(set) var start = NormalizedPoint(x: 0, y: 0)
    public private(set) var location = NormalizedPoint(x: 0, y: 0)
    public private(set) var lastTime = MonotonicInstant.zero
    /// Edges whose zone the tracked touch landed in (and that the caller allowed).
    public private(set) var candidates: Edges = []
    private var velocity: VelocityTracker
    public let settings: EdgeRecognizerSettings

    public init(settings: EdgeRecognizerSettings) {
        self.settings = settings
        self.velocity = VelocityTracker(window: settings.velocityWindow)
    }

    /// The edges whose zone contains `p` on `device`.
    public func zones(containing p: NormalizedPoint, on device: TouchDevice, among edges: Edges) -> Edges {
        var result: Edges = []
        for e in Edge.allCases where edges.contains(e.edges) {
            if e.distance(of: p) <= settings.zoneFraction(across: e, on: device) { result.insert(e.edges) }
        }
        return result
    }

    /// Translation from the landing point, in normalized units of the user's orientation.
    public var translation: (dx: Double, dy: Double) { (location.x - start.x, location.y - start.y) }

    /// The fitted velocity in normalized units per second.
    public func velocity(at time: MonotonicInstant) -> (x: Double, y: Double) { velocity.velocity(at: time) }

    /// A touch landed. `allowed` is the set of edges that could start something now (bindings that apply, or
    /// transitions that could be caught); the recognizer never begins on any other edge.
    public mutating func touchDown(
        id: Int32, at p: NormalizedPoint, time: MonotonicInstant, device: TouchDevice, allowed: Edges,
        into actions: inout [Action]
    ) {
        fingers += 1
        guard state == .possible, trackedTouch == nil, fingers == 1 else { return }
        trackedTouch = id
        edge = nil
        start = p
        location = p
        lastTime = time
        velocity.reset()
        velocity.add(x: p.x, y: p.y, at: time)
        candidates = zones(containing: p, on: device, among: allowed)
        if candidates.isEmpty { move(to: .failed, on: .touchDown, into: &actions); actions.append(.failed) }
    }

    /// Begins at once on `edge`, without hysteresis: used when the touch catches a running transition, which it
    /// holds from the moment it lands.
    public mutating func catchTransition(on edge: Edge, into actions: inout [Action]) {
        guard state == .possible, trackedTouch != nil else { return }
        self.edge = edge
        candidates = edge.edges
        move(to: .began, on: .caught, into: &actions)
        actions.append(.began(edge))
    }

    /// The tracked touch (or another) moved.
    public mutating func touchMotion(
        id: Int32, to p: NormalizedPoint, time: MonotonicInstant, device: TouchDevice, into actions: inout [Action]
    ) {
        guard id == trackedTouch else { return }
        location = p
        lastTime = time
        velocity.add(x: p.x, y: p.y, at: time)
        switch state {
        case .possible:
            decideWhetherToBegin(device: device, into: &actions)
        case .began, .changed:
            if state == .began { move(to: .changed, on: .touchMotion, into: &actions) }
            actions.append(.changed)
        case .ended, .cancelled, .failed:
            return
        }
    }

    /// The edge that a touch in `possible` has now committed to, if the caller must check a binding first.
    /// `nil` while still undecided or after failing.
    private mutating func decideWhetherToBegin(device: TouchDevice, into actions: inout [Action]) {
        let size = device.size
        let dxMM = (location.x - start.x) * size.width.value
        let dyMM = (location.y - start.y) * size.height.value
        let distance = (dxMM * dxMM + dyMM * dyMM).squareRoot()
        guard distance >= settings.hysteresis.value else { return }
        let cosTolerance = Double.cos(settings.angleToleranceDegrees * .pi / 180)
        // |cos| to a normal above this means "parallel to that edge" (within cornerAlongDegrees of it).
        let sinAlong = Double.sin(settings.cornerAlongDegrees * .pi / 180)
        let corner = candidates.members.count > 1
        var best: (edge: Edge, cosine: Double)? = nil
        var slidesAlongAnEdge = false
        for e in candidates.members {
            let n = e.inwardNormal
            let cosine = (dxMM * n.x + dyMM * n.y) / distance
            if corner && abs(cosine) <= sinAlong { slidesAlongAnEdge = true }
            if cosine >= cosTolerance, cosine > (best?.cosine ?? -2) { best = (e, cosine) }
        }
        guard let chosen = best?.edge, !slidesAlongAnEdge else {
            move(to: .failed, on: .touchMotion, into: &actions)
            actions.append(.failed)
            return
        }
        edge = chosen
        move(to: .began, on: .touchMotion, into: &actions)
        actions.append(.began(chosen))
    }

    /// The caller found no binding that applies any more: the touch is left alone.
    public mutating func bindingUnavailable(into actions: inout [Action]) {
        guard state == .began else { return }
        move(to: .failed, on: .bindingUnavailable, into: &actions)
    }

    public mutating func touchUp(id: Int32, time: MonotonicInstant, into actions: inout [Action]) {
        fingers = max(0, fingers - 1)
        if id == trackedTouch {
            lastTime = max(lastTime, time)
            trackedTouch = nil
            switch state {
            case .possible:
                move(to: .failed, on: .touchUp, into: &actions)
                actions.append(.failed)
            case .began, .changed:
                move(to: .ended, on: .touchUp, into: &actions)
                actions.append(.ended)
            case .ended, .cancelled, .failed:
                break
            }
        }
        resetIfIdle(into: &actions)
    }

    /// A touch was cancelled by the kernel or libinput (palm, device suspend).
    public mutating func touchCancel(id: Int32, into actions: inout [Action]) {
        fingers = max(0, fingers - 1)
        if id == trackedTouch {
            trackedTouch = nil
            abandon(on: .touchCancel, tracking: true, into: &actions)
        }
        resetIfIdle(into: &actions)
    }

    /// The device went away, or the kernel dropped events (`SYN_DROPPED`): nothing about the touch can be
    /// trusted, so a gesture in flight is cancelled and the sequence is forgotten.
    public mutating func lost(_ event: Event, into actions: inout [Action]) {
        let wasTracking = trackedTouch != nil
        trackedTouch = nil
        fingers = 0
        abandon(on: event, tracking: wasTracking, into: &actions)
        resetIfIdle(into: &actions)
    }

    /// Gives up the tracked touch. A sequence that was never a candidate (or whose touch already ended) has
    /// nothing to fail.
    private mutating func abandon(on event: Event, tracking: Bool, into actions: inout [Action]) {
        switch state {
        case .possible:
            guard tracking, !candidates.isEmpty else { return }
            move(to: .failed, on: event, into: &actions)
            actions.append(.failed)
        case .began, .changed:
            move(to: .cancelled, on: event, into: &actions)
            actions.append(.cancelled)
        case .ended, .cancelled, .failed:
            break
        }
    }

    private mutating func resetIfIdle(into actions: inout [Action]) {
        guard fingers == 0 else { return }
        switch state {
        case .possible:
            trackedTouch = nil
        case .ended, .cancelled, .failed:
            // The edge, candidates and last location stay readable until the next sequence starts, so the
            // caller can still describe the gesture that just ended.
            move(to: .possible, on: .allTouchesUp, into: &actions)
            trackedTouch = nil
        case .began, .changed:
            break
        }
    }

    private mutating func move(to new: State, on event: Event, into actions: inout [Action]) {
        let old = state
        state = new
        actions.append(.transitioned(from: old, event: event, to: new))
    }
}

