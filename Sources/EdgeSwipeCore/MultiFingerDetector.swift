/// Turns touch frames into the swipe gestures libinput would report (`begin` with a finger count, centroid
/// `update`s, `end` with its `cancelled` flag), for the devices libinput gives no gestures for: touchscreens
/// (libinput has no touchscreen gestures) and recorded touchpads (recordings carry raw evdev events).
///
/// It follows libinput 1.22.1's touchpad gesture code (`src/evdev-mt-touchpad-gestures.c`) where that code has
/// an answer, and says where it differs (`docs/ARCHITECTURE.md`, "The multi-finger detector"):
/// - **Counting.** Before a swipe starts, the count is the fingers down now (`tp_gesture_handle_state`: "switch to
///   new mode to avoid initial latency"). On screens a swipe may not start before `fingerWindow` (150 ms,
///   `DEFAULT_GESTURE_SWIPE_TIMEOUT`) has passed since the first finger landed, so fingers landing over 50 to
///   150 ms all count, as they do in libinput by the time its UNKNOWN state times out.
/// - **Swipe or not.** The two touches furthest apart horizontally are judged, as libinput judges its two
///   gesture touches (`tp_gesture_detect_motion_gestures`): once both moved `1.5 + 0.5 (n - 2)` mm, the same
///   way (within 90°) is a swipe and ways apart a pinch; one past `4 + 2 (n - 2)` mm while the other is below
///   the smaller threshold is a resting thumb, which stops counting (`tp_thumb_suppress`). On touchpads, two
///   touches within 40 x 7 mm of each other past 150 ms are a swipe as soon as one moved a millimetre.
/// - **The motion** is the centroid's: each frame's delta is the average delta of the touches that moved
///   (`tp_get_average_touches_delta`), so a finger landing or lifting never makes the centroid jump.
/// - **Count changes** during a swipe: on touchpads a new count that lasts `switchTimeout` (100 ms,
///   `DEFAULT_GESTURE_SWITCH_TIMEOUT`) cancels it, and no update is sent meanwhile (`finger_count_pending`); on
///   screens the count of the start holds until the last finger lifts, so a finger lifting early does not
///   cancel. All fingers lifting ends the swipe (`tp_gesture_stop`), never cancelled.
///
/// It is a state machine of the shape every machine here has (``StateMachine``: one entry, a function per state,
/// the data of a state in its case, `old -> event -> new` written by the shared dispatcher, impossible pairs as
/// bugs). Its events are what a frame did to the fingers it follows (``take(_:)``: a finger landed or lifted, they
/// moved, the last one lifted), as libinput's gesture code reacts to its finger count and motion once per frame
/// (`tp_gesture_handle_state`); its outputs are the swipe events.
///
/// With `emits` false (a live touchpad, whose swipes come from libinput itself) it only follows the fingers, for
/// the centroid's location.
public struct MultiFingerDetector: StateMachine, Sendable {
    /// One finger the detector follows.
    struct Finger: Sendable {
        var id: Int32 = -1
        var position = NormalizedPoint(x: 0, y: 0)
        var landing = NormalizedPoint(x: 0, y: 0)
        /// A resting thumb: neither counted nor averaged.
        var thumb = false
    }

    /// Where the machine is, with the data that belongs there.
    public enum State: Hashable, Sendable {
        /// No finger down.
        case idle
        /// Fingers are down; no swipe yet. `since` is when the current count was reached (libinput's
        /// `initial_time`, reset on every change of count).
        case counting(first: MonotonicInstant, since: MonotonicInstant)
        /// A swipe of `fingers` fingers is running; `pending` is a new count and since when it holds.
        case swiping(fingers: Int, pending: PendingCount?)
        /// Not a swipe (a pinch, a rotation, a cancelled swipe's remains): nothing until every finger lifts.
        case rejected
    }

    /// A finger count that differs from a running swipe's, and since when it holds (touchpads debounce it).
    public struct PendingCount: Hashable, Sendable {
        public var count: Int
        public var since: MonotonicInstant
    }

    public enum StateName: String, MachineName {
        case idle, counting, swiping, rejected
    }

    public static func name(of state: State) -> StateName {
        switch state {
        case .idle: .idle
        case .counting: .counting
        case .swiping: .swiping
        case .rejected: .rejected
        }
    }

    /// What one frame did to the fingers (``take(_:)``), with the average delta of the touches that moved in it.
    public enum Event: Hashable, Sendable {
        /// A finger landed or lifted, and some are still down.
        case fingersChanged(delta: MillimeterVector)
        /// Fingers moved (or stayed), none landed or lifted.
        case motion(delta: MillimeterVector)
        /// The last finger lifted.
        case allLifted
        /// The device's touches are lost (events dropped): they are forgotten without a word.
        case eventsDropped
    }

    public enum EventName: String, MachineName {
        case fingersChanged = "fingers-changed"
        case motion
        case allLifted = "all-lifted"
        case eventsDropped = "events-dropped"
    }

    public static func name(of event: Event) -> EventName {
        switch event {
        case .fingersChanged: .fingersChanged
        case .motion: .motion
        case .allLifted: .allLifted
        case .eventsDropped: .eventsDropped
        }
    }

    /// The swipe events libinput would send.
    public typealias Output = SwipeGestureInput

    public let settings: SwipeSettings
    public let emits: Bool
    private let size: MillimeterSize
    private let isTouchpad: Bool
    /// Fixed capacity: fingers past it are ignored (no device reports more than 10).
    private var fingers: [Finger]
    public private(set) var state: State = .idle
    /// The finger counts (bit n for n fingers) some binding wants: see ``handle(_:wanted:)``.
    private var wanted: UInt16 = .max
    /// The centroid's travel since the current count was reached (before a swipe) or since the last update.
    private var travel = MillimeterVector.zero

    public static let capacity = 10

    public init(settings: SwipeSettings, device: TouchDevice, emits: Bool) {
        self.settings = settings
        self.emits = emits
        self.size = device.size
        self.isTouchpad = device.kind == .touchpad
        self.fingers = Array(repeating: Finger(), count: Self.capacity)
    }

    /// Fingers down (thumbs included).
    public private(set) var down = 0

    /// The centroid of the fingers down (thumbs left out); once one of them lifted, where it was just before
    /// (fingers lift one by one, and the last one's position is not where the hand was); `nil` before any finger
    /// landed.
    public var centroid: NormalizedPoint? { lifting ? lastCentroid : currentCentroid ?? lastCentroid }
    private var lastCentroid: NormalizedPoint?
    /// A finger lifted since the last landing.
    private var lifting = false

    private var currentCentroid: NormalizedPoint? {
        var x = 0.0, y = 0.0, n = 0.0
        for f in fingers where f.id >= 0 && !f.thumb {
            x += f.position.x
            y += f.position.y
            n += 1
        }
        return n > 0 ? NormalizedPoint(x: x / n, y: y / n) : nil
    }

    /// Whether a swipe is running.
    public var isSwiping: Bool {
        if case .swiping = state { return true }
        return false
    }

    /// Feeds one frame; returns what the caller must do: the swipe events it makes, in order (at most three: an
    /// end, a begin, an update), after the log line of a change of state.
    ///
    /// `wanted` has bit n set when some binding wants n fingers. On screens, whose count is fixed at the start, a
    /// swipe of a count no binding wants does not start: the detector keeps counting, so that a finger landing
    /// late (after the window) can still make it the swipe a binding wants. Touchpads start whatever libinput
    /// would, and change count as libinput does.
    public mutating func handle(_ frame: TouchFrame, wanted: UInt16 = .max) -> ActionList<Action> {
        let event = take(frame)
        guard emits else { return ActionList() }
        self.wanted = wanted
        return handle(event, at: frame.time)
    }

    /// The device's touches are lost (events dropped): forget them without a word (a swipe in flight is the
    /// swipe recognizer's to cancel).
    public mutating func reset(at time: MonotonicInstant) -> ActionList<Action> {
        lifting = false
        for i in fingers.indices { fingers[i] = Finger() }
        down = 0
        guard emits else { return ActionList() }
        return handle(.eventsDropped, at: time)
    }

    /// Follows the fingers through one frame (where each is, which landed and lifted, the centroid), and says
    /// what the frame did to them: the machine's event.
    mutating func take(_ frame: TouchFrame) -> Event {
        // Where the fingers were before this frame: what is reported once one of them lifted in it.
        let before = currentCentroid
        defer { if !lifting { lastCentroid = currentCentroid ?? before ?? lastCentroid } }
        // The average delta of the touches that moved, in mm; landings and lifts move nothing.
        var sumX = 0.0, sumY = 0.0, moved = 0.0
        var landed = false, lifted = false
        for t in frame.touches {
            let p = t.position.clamped
            switch t.phase {
            case .down:
                if let i = slot(of: t.id) {
                    fingers[i].position = p
                    continue
                }
                guard let i = slot(of: -1) else { continue }
                fingers[i] = Finger(id: t.id, position: p, landing: p, thumb: false)
                down += 1
                landed = true
                lifting = false
            case .motion:
                guard let i = slot(of: t.id) else { continue }
                if !fingers[i].thumb {
                    sumX += (p.x - fingers[i].position.x) * size.width.value
                    sumY += (p.y - fingers[i].position.y) * size.height.value
                    moved += 1
                }
                fingers[i].position = p
            case .up, .cancel:
                guard let i = slot(of: t.id) else { continue }
                if !lifting { lastCentroid = before }
                fingers[i] = Finger()
                down = max(0, down - 1)
                lifted = true
                lifting = true
            }
        }
        let delta = moved > 0 ? MillimeterVector(x: sumX / moved, y: sumY / moved) : .zero
        if down == 0 { return .allLifted }
        return landed || lifted ? .fingersChanged(delta: delta) : .motion(delta: delta)
    }

    // MARK: - The machine

    public mutating func dispatch(_ event: Event, at time: MonotonicInstant, into actions: inout ActionList<Action>) {
        switch state {
        case .idle: onIdle(event, time, &actions)
        case .counting(let first, let since): onCounting(first, since, event, time, &actions)
        case .swiping(let fingers, let pending): onSwiping(fingers, pending, event, time, &actions)
        case .rejected: onRejected(event, &actions)
        }
    }

    private mutating func onIdle(_ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .fingersChanged:
            // The first finger landed: counting starts, and nothing is judged before the next frame.
            travel = .zero
            state = .counting(first: time, since: time)
        case .allLifted:
            // A frame of touches from before lost events (or past the capacity): nothing is down.
            break
        case .eventsDropped:
            travel = .zero
        case .motion:
            // With nothing down, a frame in which nobody landed leaves nothing down.
            actions.append(bug(event))
        }
    }

    private mutating func onCounting(
        _ first: MonotonicInstant, _ since: MonotonicInstant, _ event: Event, _ time: MonotonicInstant,
        _ actions: inout ActionList<Action>
    ) {
        switch event {
        case .fingersChanged:
            // The count changed: libinput resets its UNKNOWN state, its initial time and positions. Nothing has
            // moved since, so there is nothing to judge before the next frame.
            travel = .zero
            rebase()
            state = .counting(first: first, since: time)
        case .motion(let delta):
            travel = MillimeterVector(x: travel.x + delta.x, y: travel.y + delta.y)
            judge(first: first, since: since, at: time, &actions)
        case .allLifted, .eventsDropped:
            travel = .zero
            state = .idle
        }
    }

    /// Whether the fingers counting since `since` are a swipe yet (libinput's UNKNOWN state deciding).
    private mutating func judge(first: MonotonicInstant, since: MonotonicInstant, at time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        let count = counted
        guard count >= max(2, settings.minimumFingers), count <= 5 else { return }
        if !isTouchpad && time - first < settings.fingerWindow { return }
        switch judgement(count: count, since: since, at: time) {
        case .undecided:
            break
        case .swipe where settings.switchTimeout == nil && wanted & (1 << UInt16(count)) == 0:
            break
        case .swipe:
            state = .swiping(fingers: count, pending: nil)
            actions.append(.output(.begin(fingers: count)))
            if travel.x != 0 || travel.y != 0 { actions.append(.output(.update(delta: travel))) }
            travel = .zero
        case .notSwipe:
            state = .rejected
        }
    }

    private mutating func onSwiping(
        _ n: Int, _ pending: PendingCount?, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>
    ) {
        switch event {
        case .fingersChanged(let delta), .motion(let delta):
            // A landing or a lift changes nothing by itself: the count it leaves does.
            follow(n, pending, delta, time, &actions)
        case .allLifted:
            state = .idle
            actions.append(.output(.end(cancelled: false)))
        case .eventsDropped:
            travel = .zero
            state = .idle
        }
    }

    /// A running swipe's frame: its update, or, on touchpads, a new count debounced and then cancelling it.
    private mutating func follow(
        _ n: Int, _ pending: PendingCount?, _ delta: MillimeterVector, _ time: MonotonicInstant, _ actions: inout ActionList<Action>
    ) {
        let count = counted
        if let timeout = settings.switchTimeout, count != n {
            // libinput debounces a change of count, sending nothing meanwhile, and cancels if it holds.
            let since = (pending?.count == count ? pending?.since : nil) ?? time
            if time - since >= timeout {
                actions.append(.output(.end(cancelled: true)))
                travel = .zero
                rebase()
                state = .counting(first: time, since: time)
            } else {
                state = .swiping(fingers: n, pending: PendingCount(count: count, since: since))
            }
            return
        }
        state = .swiping(fingers: n, pending: nil)
        if delta.x != 0 || delta.y != 0 { actions.append(.output(.update(delta: delta))) }
    }

    private mutating func onRejected(_ event: Event, _ actions: inout ActionList<Action>) {
        switch event {
        case .fingersChanged, .motion:
            break
        case .allLifted:
            state = .idle
        case .eventsDropped:
            travel = .zero
            state = .idle
        }
    }

    /// Motion is judged from here on: libinput measures each touch from where the current gesture started.
    private mutating func rebase() {
        for i in fingers.indices where fingers[i].id >= 0 { fingers[i].landing = fingers[i].position }
    }

    /// Fingers counted: down and not a resting thumb.
    private var counted: Int {
        var n = 0
        for f in fingers where f.id >= 0 && !f.thumb { n += 1 }
        return n
    }

    private func slot(of id: Int32) -> Int? {
        for i in fingers.indices where fingers[i].id == id { return i }
        return nil
    }

    private enum Judgement { case undecided, swipe, notSwipe }

    /// libinput's `tp_gesture_detect_motion_gestures` for `count` fingers: two touches far apart are judged
    /// (libinput takes its leftmost and rightmost; here the leftmost and the touch furthest from it, so that
    /// fingers side by side along a vertical line are judged as well).
    private mutating func judgement(count: Int, since: MonotonicInstant, at time: MonotonicInstant) -> Judgement {
        var a: Int? = nil
        for i in fingers.indices where fingers[i].id >= 0 && !fingers[i].thumb {
            if a.map({ fingers[i].position.x < fingers[$0].position.x }) ?? true { a = i }
        }
        guard let first = a else { return .undecided }
        var b: Int? = nil
        var furthest = -1.0
        for i in fingers.indices where i != first && fingers[i].id >= 0 && !fingers[i].thumb {
            let dx = (fingers[i].position.x - fingers[first].position.x) * size.width.value
            let dy = (fingers[i].position.y - fingers[first].position.y) * size.height.value
            if dx * dx + dy * dy > furthest {
                furthest = dx * dx + dy * dy
                b = i
            }
        }
        guard let second = b else { return .undecided }
        let m1 = moved(first), m2 = moved(second)
        let d1 = m1.length.value, d2 = m2.length.value
        let minMove = 1.5 + 0.5 * Double(count - 2)
        let maxMove = 4.0 + 2.0 * Double(count - 2)
        if d1 < 1 && d2 < 1 { return .undecided }
        if isTouchpad {
            let dx = abs(fingers[first].position.x - fingers[second].position.x) * size.width.value
            let dy = abs(fingers[first].position.y - fingers[second].position.y) * size.height.value
            if dx < 40, dy < 7, time - since > settings.fingerWindow { return .swipe }
        }
        if d1 >= maxMove || d2 >= maxMove {
            // A resting thumb: the lower of the two, if it is the one that stays.
            let thumb = fingers[first].position.y > fingers[second].position.y ? first : second
            let thumbMoved = thumb == first ? d1 : d2
            if thumbMoved < minMove {
                fingers[thumb].thumb = true
                return .undecided
            }
        }
        if d1 < minMove || d2 < minMove { return .undecided }
        // Within 90°: libinput's eight compass directions, a neighbour counting as the same way.
        return m1.x * m2.x + m1.y * m2.y > 0 ? .swipe : .notSwipe
    }

    private func moved(_ i: Int) -> MillimeterVector {
        MillimeterVector(
            x: (fingers[i].position.x - fingers[i].landing.x) * size.width.value,
            y: (fingers[i].position.y - fingers[i].landing.y) * size.height.value)
    }
}
