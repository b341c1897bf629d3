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
/// With `emits` false (a live touchpad, whose swipes come from libinput itself) it only follows the fingers, for
/// the centroid's location.
public struct MultiFingerDetector: Sendable {
    /// One finger the detector follows.
    struct Finger: Sendable {
        var id: Int32 = -1
        var position = NormalizedPoint(x: 0, y: 0)
        var landing = NormalizedPoint(x: 0, y: 0)
        /// A resting thumb: neither counted nor averaged.
        var thumb = false
    }

    enum Phase: Sendable {
        /// No finger down.
        case idle
        /// Fingers are down; no swipe yet. `since` is when the current count was reached (libinput's
        /// `initial_time`, reset on every change of count).
        case counting(first: MonotonicInstant, since: MonotonicInstant)
        /// A swipe of `fingers` fingers is running; `pending` is a new count and since when it holds.
        case swiping(fingers: Int, pending: (count: Int, since: MonotonicInstant)?)
        /// Not a swipe (a pinch, a rotation, a cancelled swipe's remains): nothing until every finger lifts.
        case rejected
    }

    public let settings: SwipeSettings
    public let emits: Bool
    private let size: MillimeterSize
    private let isTouchpad: Bool
    /// Fixed capacity: fingers past it are ignored (no device reports more than 10).
    private var fingers: [Finger]
    private var phase: Phase = .idle
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
        if case .swiping = phase { return true }
        return false
    }

    /// Feeds one frame; returns the swipe events it makes, in order (at most three: an end, a begin, an update).
    ///
    /// `wanted` has bit n set when some binding wants n fingers. On screens, whose count is fixed at the start, a
    /// swipe of a count no binding wants does not start: the detector keeps counting, so that a finger landing
    /// late (after the window) can still make it the swipe a binding wants. Touchpads start whatever libinput
    /// would, and change count as libinput does.
    public mutating func handle(_ frame: TouchFrame, wanted: UInt16 = .max) -> ActionList<SwipeGestureInput> {
        var out = ActionList<SwipeGestureInput>()
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
        guard emits else {
            if down == 0 { phase = .idle }
            return out
        }
        let time = frame.time
        switch phase {
        case .idle:
            guard down > 0 else { return out }
            travel = .zero
            phase = .counting(first: time, since: time)
        case .counting(let first, let since):
            guard down > 0 else {
                phase = .idle
                return out
            }
            if landed || lifted {
                // The count changed: libinput resets its UNKNOWN state, its initial time and positions.
                travel = .zero
                rebase()
                phase = .counting(first: first, since: time)
            } else {
                travel = MillimeterVector(x: travel.x + delta.x, y: travel.y + delta.y)
            }
            let count = counted
            guard count >= max(2, settings.minimumFingers), count <= 5 else { return out }
            if !isTouchpad && time - first < settings.fingerWindow { return out }
            switch judge(count: count, since: since, at: time) {
            case .undecided:
                break
            case .swipe where settings.switchTimeout == nil && wanted & (1 << UInt16(count)) == 0:
                break
            case .swipe:
                phase = .swiping(fingers: count, pending: nil)
                out.append(.begin(fingers: count))
                if travel.x != 0 || travel.y != 0 { out.append(.update(delta: travel)) }
                travel = .zero
            case .notSwipe:
                phase = .rejected
            }
        case .swiping(let n, let pending):
            guard down > 0 else {
                phase = .idle
                out.append(.end(cancelled: false))
                return out
            }
            let count = counted
            if let timeout = settings.switchTimeout, count != n {
                // libinput debounces a change of count, sending nothing meanwhile, and cancels if it holds.
                let since = (pending?.count == count ? pending?.since : nil) ?? time
                if time - since >= timeout {
                    out.append(.end(cancelled: true))
                    travel = .zero
                    rebase()
                    phase = .counting(first: time, since: time)
                } else {
                    phase = .swiping(fingers: n, pending: (count, since))
                }
                return out
            }
            phase = .swiping(fingers: n, pending: nil)
            if delta.x != 0 || delta.y != 0 { out.append(.update(delta: delta)) }
        case .rejected:
            if down == 0 { phase = .idle }
        }
        return out
    }

    /// The device's touches are lost (events dropped, device removed): forget them without a word.
    public mutating func reset() {
        lifting = false
        for i in fingers.indices { fingers[i] = Finger() }
        down = 0
        phase = .idle
        travel = .zero
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
    private mutating func judge(count: Int, since: MonotonicInstant, at time: MonotonicInstant) -> Judgement {
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
