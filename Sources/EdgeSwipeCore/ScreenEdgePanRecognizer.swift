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
    /// The largest angle between the first motion and an edge's inward normal that still counts as a swipe from
    /// that edge.
    public var angleToleranceDegrees: Double
    /// The edges a finger scrolls along on this kind of device: a touchpad's right edge, where libinput and
    /// xf86-input-synaptics scroll vertically. In a corner that one of them shares with another edge, a first
    /// motion along the scroll edge is a scroll, not a swipe inward from the other edge.
    public var scrollEdges: Edges
    /// How much recent motion the release velocity is fitted over.
    public var velocityWindow: Microseconds

    public init(
        zone: Millimeters, zoneFraction: Double, hysteresis: Millimeters,
        angleToleranceDegrees: Double = 30, scrollEdges: Edges = [],
        velocityWindow: Microseconds = .milliseconds(150)
    ) {
        self.zone = zone
        self.zoneFraction = zoneFraction
        self.hysteresis = hysteresis
        self.angleToleranceDegrees = angleToleranceDegrees
        self.scrollEdges = scrollEdges
        self.velocityWindow = velocityWindow
    }

    /// 4 mm (3 % of the axis without a size) for screens; see ARCHITECTURE.md for the comparison with Android,
    /// GNOME, KWin and lisgd. Screens have no scroll edges.
    public static let touchscreen = EdgeRecognizerSettings(
        zone: Millimeters(4), zoneFraction: 0.03, hysteresis: Millimeters(2))
    /// 5 mm (5 % without a size) for touchpads, whose fingers land less precisely and whose edges are felt. The
    /// right edge is where touchpads scroll (libinput's `tp_touch_get_edge`, xf86-input-synaptics'
    /// `VertEdgeScroll`, on by default).
    public static let touchpad = EdgeRecognizerSettings(
        zone: Millimeters(5), zoneFraction: 0.05, hysteresis: Millimeters(2), scrollEdges: .right)

    public static func defaults(for kind: DeviceKind) -> EdgeRecognizerSettings {
        switch kind {
        case .touchscreen: .touchscreen
        case .touchpad: .touchpad
        }
    }

    /// The zone across `edge` on `device`, as a fraction of that axis: at most half of it, so that opposite
    /// zones never overlap however small the device.
    public func zoneFraction(across edge: Edge, on device: TouchDevice) -> Double {
        let fraction: Double
        if device.hasPhysicalSize {
            let axis = edge.isHorizontal ? device.size.width : device.size.height
            fraction = zone.value / max(axis.value, 1e-9)
        } else {
            fraction = zoneFraction
        }
        return fraction.isFinite ? min(0.5, max(0, fraction)) : 0.5
    }
}

/// UIKit's `UIScreenEdgePanGestureRecognizer`, as a value: one per device, tracking the first touch of each
/// touch sequence.
///
/// It is a state machine in the shape of libinput's touchpad gesture machine (`evdev-mt-touchpad-gestures.c`):
/// one entry point, ``handle(_:at:)``; a function per state; the data of a state in its case, so a gesture that
/// began always has an edge; actions that carry their data, so the caller never reads the state back; every
/// state change reported as `old -> event -> new` (by the shared dispatcher, ``StateMachine/step(_:at:into:)``);
/// and an event that cannot happen in a state reported as a bug (`invalid event X in state Y`, as libinput's
/// `log_gesture_bug`) and then ignored.
///
/// Decisions, all documented in `docs/ARCHITECTURE.md`:
/// - Only the first touch of a sequence (the first to land while no finger is down) is judged. If it lands
///   outside every candidate zone, the sequence fails, so a pinch or scroll that strays near an edge later never
///   becomes a swipe. Further fingers are counted (`fingers`) but never move the tracked point.
/// - A touch past the edge of the surface lies on the edge: positions are clamped to the unit square.
/// - The touch must move past the hysteresis distance before its direction is judged. A first motion within
///   the angle tolerance of a candidate edge's inward normal begins on that edge, whatever it does relative to
///   the other edge of a corner; a motion inward for no candidate (along the edge, toward the corner, outward)
///   fails. Two candidates within tolerance: the closer normal wins; an exact tie goes to the edge whose zone
///   the touch is deeper in, then to the first of left, right, top, bottom. In a corner with a scroll edge, a
///   motion along the scroll edge fails as edge scrolling.
/// - After ended, cancelled or failed the recognizer waits for every finger to lift, then is possible again.
public struct ScreenEdgePanRecognizer: StateMachine, Sendable {
    /// The tracked touch while its direction is not yet judged.
    public struct Tracking: Hashable, Sendable {
        public var touch: Int32
        public var start: NormalizedPoint
        public var location: NormalizedPoint
        /// The zones it landed in, among the edges the caller allowed.
        public var candidates: Edges
        /// The scroll edges whose zone it landed in (allowed or not: a finger scrolls whatever is bound).
        public var scrollZones: Edges
    }

    /// The tracked touch of a gesture that began.
    public struct Pan: Hashable, Sendable {
        public var edge: Edge
        public var touch: Int32
        public var start: NormalizedPoint
        public var location: NormalizedPoint
    }

    /// Where the machine is, with the data that belongs there.
    public enum State: Hashable, Sendable {
        /// No touch sequence is tracked.
        case possible
        /// The sequence's first touch landed in a candidate zone; its direction is not judged yet.
        case tracking(Tracking)
        case began(Pan)
        case changed(Pan)
        /// The gesture is over; the recognizer waits for every finger to lift.
        case ended(Edge)
        case cancelled(Edge)
        case failed(FailureReason)
    }

    public static func name(of state: State) -> StateName {
        switch state {
        case .possible: .possible
        case .tracking: .tracking
        case .began: .began
        case .changed: .changed
        case .ended: .ended
        case .cancelled: .cancelled
        case .failed: .failed
        }
    }

    /// The names of the states, as the `old -> event -> new` log and `docs/ARCHITECTURE.md` write them.
    public enum StateName: String, MachineName, Codable {
        case possible, tracking, began, changed, ended, cancelled, failed
    }

    /// What can happen to the recognizer.
    public enum Event: Hashable, Sendable {
        /// A finger landed. `allowed` is the set of edges that could start something: edges with a binding for
        /// this kind of device, and edges whose transition is running out and could be caught.
        case touchDown(touch: Int32, at: NormalizedPoint, allowed: Edges)
        case touchMotion(touch: Int32, to: NormalizedPoint)
        case touchUp(touch: Int32)
        /// The kernel or libinput cancelled a touch (palm, suspend).
        case touchCancel(touch: Int32)
        /// The tracked touch landed in the zone of a transition that is running out: begin on `edge` at once.
        case caught(Edge)
        /// The gesture began on an edge with no binding for this device kind and finger count.
        case bindingUnavailable
        /// The touch sequence is a multi-finger swipe (a swipe began on the device, or the gesture would begin
        /// with as many fingers as a swipe binding wants): the edge gives way, silently.
        case swipe
        case deviceRemoved
        /// The kernel dropped events (`SYN_DROPPED`): nothing about the touches can be trusted.
        case eventsDropped
        /// Raised by the recognizer itself when the last finger of a finished sequence lifts.
        case allTouchesUp
    }

    public static func name(of event: Event) -> EventName {
        switch event {
        case .touchDown: .touchDown
        case .touchMotion: .touchMotion
        case .touchUp: .touchUp
        case .touchCancel: .touchCancel
        case .caught: .caught
        case .bindingUnavailable: .bindingUnavailable
        case .swipe: .swipe
        case .deviceRemoved: .deviceRemoved
        case .eventsDropped: .eventsDropped
        case .allTouchesUp: .allTouchesUp
        }
    }

    /// The names of the events, as the log writes them.
    public enum EventName: String, MachineName, Codable {
        case touchDown = "touch-down"
        case touchMotion = "touch-motion"
        case touchUp = "touch-up"
        case touchCancel = "touch-cancel"
        case caught = "caught"
        case bindingUnavailable = "binding-unavailable"
        case swipe = "swipe"
        case deviceRemoved = "device-removed"
        case eventsDropped = "events-dropped"
        case allTouchesUp = "all-touches-up"
    }

    /// Why a sequence failed.
    public enum FailureReason: String, Hashable, Sendable, Codable, CaseIterable {
        /// The first touch landed outside every candidate zone: not a gesture at all, and never reported.
        case outsideZones = "outside-zones"
        /// The first motion was inward for no candidate edge: along the edge, toward the corner, or outward.
        case notInward = "not-inward"
        /// In a corner with a scroll edge, the first motion ran along the scroll edge.
        case edgeScroll = "edge-scroll"
        /// The touch lifted before it moved far enough to be judged.
        case lifted = "lifted"
        /// The kernel or libinput cancelled the touch before it was judged.
        case touchCancelled = "touch-cancelled"
        /// The device went away, or events were dropped, before the touch was judged.
        case eventsLost = "events-lost"
        /// The gesture began on an edge that has no binding for this kind of device and number of fingers.
        case noBinding = "no-binding"
        /// The sequence is a multi-finger swipe: never reported as an edge gesture.
        case swipe = "swipe"
    }

    /// The tracked finger when an action is taken, in the user's normalized orientation.
    public struct Motion: Hashable, Sendable {
        public var edge: Edge
        /// Fingers down on the device after the event (at least 1 for an `end` or `cancel`, whose finger has
        /// just lifted).
        public var fingers: Int
        public var location: NormalizedPoint
        /// From where the touch landed.
        public var translation: NormalizedVector
        /// Per second, fitted over the velocity window: once per event.
        public var velocity: NormalizedVector
    }

    /// What the caller must do (beside the log lines of ``MachineAction``).
    public enum Output: Hashable, Sendable {
        /// A sequence's first touch landed in the zones of `candidates`: the caller may catch a run-out there.
        case track(touch: Int32, candidates: Edges)
        case begin(Motion)
        case change(Motion)
        case end(Motion)
        case cancel(Motion)
        /// The sequence failed; `motion` is `nil` when the touch was never in a zone (nothing to report).
        case fail(FailureReason, Motion?)
    }

    public let settings: EdgeRecognizerSettings
    public private(set) var state: State = .possible
    /// Every finger currently down on the device, tracked or not.
    public private(set) var fingers = 0
    private var velocity: VelocityTracker
    /// The surface's size as the user sees it, real or assumed.
    private let size: MillimeterSize
    private let zones: ZoneWidths
    private let cosTolerance: Double

    /// Each edge's zone, as a fraction of the axis across it.
    private struct ZoneWidths: Sendable {
        var left, right, top, bottom: Double
        subscript(edge: Edge) -> Double {
            switch edge {
            case .left: left
            case .right: right
            case .top: top
            case .bottom: bottom
            }
        }
    }

    public init(settings: EdgeRecognizerSettings, device: TouchDevice) {
        self.settings = settings
        self.velocity = VelocityTracker(window: settings.velocityWindow)
        self.size = device.size
        self.zones = ZoneWidths(
            left: settings.zoneFraction(across: .left, on: device), right: settings.zoneFraction(across: .right, on: device),
            top: settings.zoneFraction(across: .top, on: device), bottom: settings.zoneFraction(across: .bottom, on: device))
        let tolerance = min(89.999, max(0, settings.angleToleranceDegrees.isFinite ? settings.angleToleranceDegrees : 30))
        self.cosTolerance = Double.cos(tolerance * .pi / 180)
    }

    /// Whether no sequence is in flight: possible, with no finger down.
    public var isIdle: Bool { state == .possible && fingers == 0 }

    /// The edges whose zone contains `p` (clamped to the surface first: a touch past the edge lies on it).
    public func zones(containing p: NormalizedPoint) -> Edges {
        let p = p.clamped
        var result: Edges = []
        for e in Edge.ordered where e.distance(of: p) <= zones[e] { result.insert(e.edges) }
        return result
    }

    // MARK: - The machine

    /// Feeds one event; returns what the caller must do, in order. When the last finger of a finished sequence
    /// lifts, the recognizer goes back to possible in the same step (`ended -> all-touches-up -> possible`).
    public mutating func handle(_ event: Event, at time: MonotonicInstant) -> ActionList<Action> {
        var actions = ActionList<Action>()
        step(event, at: time, into: &actions)
        if fingers == 0, Self.name(of: event) != .allTouchesUp {
            switch state {
            case .ended, .cancelled, .failed: step(.allTouchesUp, at: time, into: &actions)
            case .possible, .tracking, .began, .changed: break
            }
        }
        return actions
    }

    public mutating func dispatch(_ event: Event, at time: MonotonicInstant, into actions: inout ActionList<Action>) {
        switch state {
        case .possible: onPossible(event, time, &actions)
        case .tracking(let tracking): onTracking(tracking, event, time, &actions)
        case .began(let pan): onBegan(pan, event, time, &actions)
        case .changed(let pan): onChanged(pan, event, time, &actions)
        case .ended: onEnded(event, &actions)
        case .cancelled: onCancelled(event, &actions)
        case .failed: onFailed(event, &actions)
        }
    }

    private mutating func onPossible(_ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .touchDown(let touch, let at, let allowed):
            fingers += 1
            let p = at.clamped
            let landed = zones(containing: p)
            let candidates = landed.intersection(allowed)
            guard !candidates.isEmpty else {
                state = .failed(.outsideZones)
                actions.append(.output(.fail(.outsideZones, nil)))
                return
            }
            velocity.reset()
            velocity.add(x: p.x, y: p.y, at: time)
            state = .tracking(Tracking(
                touch: touch, start: p, location: p, candidates: candidates,
                scrollZones: landed.intersection(settings.scrollEdges)))
            actions.append(.output(.track(touch: touch, candidates: candidates)))
        case .touchMotion, .touchUp, .touchCancel:
            // A finger still down from before lost events: it is not trusted until it lifts, and was never
            // counted.
            break
        case .deviceRemoved, .eventsDropped:
            fingers = 0
        case .caught, .bindingUnavailable, .swipe, .allTouchesUp:
            actions.append(bug(event))
        }
    }

    private mutating func onTracking(
        _ tracking: Tracking, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>
    ) {
        switch event {
        case .touchDown:
            fingers += 1
        case .touchMotion(let touch, let to):
            guard touch == tracking.touch else { return }
            var t = tracking
            t.location = to.clamped
            velocity.add(x: t.location.x, y: t.location.y, at: time)
            switch decide(t) {
            case .undecided:
                state = .tracking(t)
            case .begin(let edge):
                state = .began(Pan(edge: edge, touch: t.touch, start: t.start, location: t.location))
                actions.append(.output(.begin(motion(edge, t.start, t.location, time))))
            case .fail(let reason, let edge):
                state = .failed(reason)
                actions.append(.output(.fail(reason, motion(edge, t.start, t.location, time))))
            }
        case .touchUp(let touch):
            lift(touch, tracked: tracking, failing: .lifted, time, &actions)
        case .touchCancel(let touch):
            lift(touch, tracked: tracking, failing: .touchCancelled, time, &actions)
        case .caught(let edge):
            guard tracking.candidates.contains(edge.edges) else {
                actions.append(bug(event))
                return
            }
            state = .began(Pan(edge: edge, touch: tracking.touch, start: tracking.start, location: tracking.location))
            actions.append(.output(.begin(motion(edge, tracking.start, tracking.location, time))))
        case .deviceRemoved, .eventsDropped:
            fingers = 0
            state = .failed(.eventsLost)
            actions.append(.output(.fail(.eventsLost, motion(nearest(tracking), tracking.start, tracking.location, time))))
        case .swipe:
            state = .failed(.swipe)
            actions.append(.output(.fail(.swipe, nil)))
        case .bindingUnavailable, .allTouchesUp:
            actions.append(bug(event))
        }
    }

    /// A finger lifted (or was cancelled) while the tracked one was still undecided: the sequence fails with
    /// `reason` if it was the tracked one.
    private mutating func lift(
        _ touch: Int32, tracked tracking: Tracking, failing reason: FailureReason, _ time: MonotonicInstant,
        _ actions: inout ActionList<Action>
    ) {
        fingers = max(0, fingers - 1)
        guard touch == tracking.touch else { return }
        state = .failed(reason)
        actions.append(.output(.fail(reason, motion(nearest(tracking), tracking.start, tracking.location, time))))
    }

    /// The gesture has just begun: the caller may still refuse it (no binding, or a swipe's sequence).
    private mutating func onBegan(_ pan: Pan, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .bindingUnavailable:
            state = .failed(.noBinding)
            actions.append(.output(.fail(.noBinding, motion(pan.edge, pan.start, pan.location, time))))
        case .swipe:
            // Like a missing binding, decided at `begin`, before anything was reported.
            state = .failed(.swipe)
            actions.append(.output(.fail(.swipe, nil)))
        case .touchDown, .touchMotion, .touchUp, .touchCancel, .deviceRemoved, .eventsDropped, .caught, .allTouchesUp:
            follow(pan, event, time, &actions)
        }
    }

    /// The gesture follows its finger; it can no longer be refused.
    private mutating func onChanged(_ pan: Pan, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .bindingUnavailable, .swipe:
            // Only a gesture that has just begun can be refused: the caller decides at `begin`.
            actions.append(bug(event))
        case .touchDown, .touchMotion, .touchUp, .touchCancel, .deviceRemoved, .eventsDropped, .caught, .allTouchesUp:
            follow(pan, event, time, &actions)
        }
    }

    /// What began and changed do alike: follow the tracked finger until it lifts or is lost.
    private mutating func follow(_ pan: Pan, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .touchDown:
            fingers += 1
        case .touchMotion(let touch, let to):
            guard touch == pan.touch else { return }
            var p = pan
            p.location = to.clamped
            velocity.add(x: p.location.x, y: p.location.y, at: time)
            state = .changed(p)
            actions.append(.output(.change(motion(p.edge, p.start, p.location, time))))
        case .touchUp(let touch):
            fingers = max(0, fingers - 1)
            guard touch == pan.touch else { return }
            state = .ended(pan.edge)
            actions.append(.output(.end(liftMotion(pan, time))))
        case .touchCancel(let touch):
            fingers = max(0, fingers - 1)
            guard touch == pan.touch else { return }
            state = .cancelled(pan.edge)
            actions.append(.output(.cancel(liftMotion(pan, time))))
        case .deviceRemoved, .eventsDropped:
            fingers = 0
            var m = motion(pan.edge, pan.start, pan.location, time)
            m.fingers = 1
            state = .cancelled(pan.edge)
            actions.append(.output(.cancel(m)))
        case .caught, .allTouchesUp, .bindingUnavailable, .swipe:
            actions.append(bug(event))
        }
    }

    /// The motion of a gesture whose finger has just lifted: it counts as one finger still.
    private func liftMotion(_ pan: Pan, _ time: MonotonicInstant) -> Motion {
        var m = motion(pan.edge, pan.start, pan.location, time)
        m.fingers = max(1, m.fingers)
        return m
    }

    private mutating func onEnded(_ event: Event, _ actions: inout ActionList<Action>) { waitForLift(event, &actions) }
    private mutating func onCancelled(_ event: Event, _ actions: inout ActionList<Action>) { waitForLift(event, &actions) }
    private mutating func onFailed(_ event: Event, _ actions: inout ActionList<Action>) { waitForLift(event, &actions) }

    /// Ended, cancelled and failed alike wait for every finger to lift, then the sequence is over.
    private mutating func waitForLift(_ event: Event, _ actions: inout ActionList<Action>) {
        switch event {
        case .touchDown:
            fingers += 1
        case .touchMotion:
            break
        case .touchUp, .touchCancel:
            fingers = max(0, fingers - 1)
        case .deviceRemoved, .eventsDropped:
            fingers = 0
        case .allTouchesUp:
            guard fingers == 0 else {
                actions.append(bug(event))
                return
            }
            state = .possible
        case .caught, .bindingUnavailable, .swipe:
            actions.append(bug(event))
        }
    }

    // MARK: - Judging the first motion

    private enum Decision {
        case undecided
        case begin(Edge)
        case fail(FailureReason, Edge)
    }

    /// Two cosines (or depths) this close are the same angle (or place) to the precision of the input.
    static let tieEpsilon = 1e-9

    private func decide(_ t: Tracking) -> Decision {
        let dx = (t.location.x - t.start.x) * size.width.value
        let dy = (t.location.y - t.start.y) * size.height.value
        let distance = (dx * dx + dy * dy).squareRoot()
        guard distance > 0, distance >= settings.hysteresis.value else { return .undecided }
        var best: (edge: Edge, cosine: Double, depth: Double)? = nil
        for e in Edge.ordered where t.candidates.contains(e.edges) {
            let n = e.inwardNormal
            let cosine = (dx * n.x + dy * n.y) / distance
            guard cosine >= cosTolerance else { continue }
            let depth = e.distance(of: t.start) / max(zones[e], 1e-12)
            guard let b = best else {
                best = (e, cosine, depth)
                continue
            }
            if cosine > b.cosine + Self.tieEpsilon
                || (abs(cosine - b.cosine) <= Self.tieEpsilon && depth < b.depth - Self.tieEpsilon)
            {
                best = (e, cosine, depth)
            }
        }
        guard let chosen = best?.edge else { return .fail(.notInward, nearest(t)) }
        // In a corner with a scroll edge, a motion that would begin on the perpendicular edge runs along the
        // scroll edge: the finger is scrolling, unless the motion is inward for the scroll edge too.
        for s in Edge.ordered where t.scrollZones.contains(s.edges) && s.isHorizontal != chosen.isHorizontal {
            let n = s.inwardNormal
            if (dx * n.x + dy * n.y) / distance < cosTolerance { return .fail(.edgeScroll, s) }
        }
        return .begin(chosen)
    }

    /// The candidate edge closest to where the touch landed, to name a sequence that failed before choosing one.
    private func nearest(_ t: Tracking) -> Edge {
        var best: (edge: Edge, distance: Double)? = nil
        for e in Edge.ordered where t.candidates.contains(e.edges) {
            let d = e.distance(of: t.start)
            if best.map({ d < $0.distance }) ?? true { best = (e, d) }
        }
        return best?.edge ?? .left
    }

    private func motion(_ edge: Edge, _ start: NormalizedPoint, _ location: NormalizedPoint, _ time: MonotonicInstant) -> Motion {
        let v = velocity.velocity(at: time)
        return Motion(
            edge: edge, fingers: fingers, location: location,
            translation: NormalizedVector(x: location.x - start.x, y: location.y - start.y),
            velocity: NormalizedVector(x: v.x, y: v.y))
    }
}
