/// A multi-finger swipe anywhere on a device, as a value: one per device, fed libinput's swipe gestures (live
/// touchpads) or the multi-finger detector's emulation of them (touchscreens, recordings).
///
/// It has the shape of ``ScreenEdgePanRecognizer`` and of libinput's gesture machine
/// (`evdev-mt-touchpad-gestures.c`): one entry point, ``handle(_:at:)``; a function per state; the data of a state
/// in its case; actions that carry their data; every change of state reported as `old -> event -> new` (by the
/// shared dispatcher, ``StateMachine/step(_:at:into:)``); an event that cannot happen in a state reported as a bug
/// (`invalid event X in state Y`) and then ignored.
///
/// Decisions, all documented in `docs/ARCHITECTURE.md` ("The swipe recognizer"):
/// - A swipe is `pending` until its centroid has travelled the lock distance (GNOME Shell's
///   `DRAG_THRESHOLD_DISTANCE`, 16 libinput units, 1.52 mm); it then locks to the dominant axis, and its direction
///   is that axis's sign. A swipe that ends before locking was never a gesture: it fails silently.
/// - After the lock, the direction never changes: travel back past the start is negative travel along it (the
///   engine clamps the transition's percent at 0, so a swipe back past the start and a release cancel).
/// - libinput's `cancelled` flag (a finger added or lifted mid-swipe) cancels.
/// - A swipe that ends or is cancelled leaves the machine possible at once: libinput's gestures have an explicit
///   end, so there is nothing to wait for. A swipe refused at its start (no binding) is `failed` until its
///   source ends it, and its remaining updates are ignored.
public struct SwipeRecognizer: StateMachine, Sendable {
    /// A swipe whose axis is not locked yet.
    public struct Pending: Hashable, Sendable {
        public var fingers: Int
        /// The centroid's travel since the swipe began, in the user's orientation.
        public var translation: MillimeterVector
    }

    /// A swipe that locked to a direction.
    public struct Swipe: Hashable, Sendable {
        public var direction: SwipeDirection
        public var fingers: Int
        public var translation: MillimeterVector
    }

    /// Where the machine is, with the data that belongs there.
    public enum State: Hashable, Sendable {
        case possible
        case pending(Pending)
        case began(Swipe)
        case changed(Swipe)
        /// Refused at its start: the rest of the source's gesture is ignored.
        case failed(FailureReason)
    }

    public static func name(of state: State) -> StateName {
        switch state {
        case .possible: .possible
        case .pending: .pending
        case .began: .began
        case .changed: .changed
        case .failed: .failed
        }
    }

    /// The names of the states, as the `old -> event -> new` log and `docs/ARCHITECTURE.md` write them.
    public enum StateName: String, MachineName, Codable {
        case possible, pending, began, changed, failed
    }

    /// What can happen to the recognizer.
    public enum Event: Hashable, Sendable {
        /// libinput's `GESTURE_SWIPE_BEGIN` with its finger count.
        case begin(fingers: Int)
        /// `GESTURE_SWIPE_UPDATE`: the centroid's unaccelerated delta, in millimetres.
        case update(delta: MillimeterVector)
        /// `GESTURE_SWIPE_END`, not cancelled: the fingers lifted.
        case end
        /// `GESTURE_SWIPE_END` with libinput's `cancelled` flag: a finger was added or lifted mid-swipe.
        case cancel
        /// A swipe with as many fingers as a transition that is running out: begin in its direction at once.
        case caught(SwipeDirection)
        /// The swipe locked on a direction with no binding for this device kind and finger count.
        case bindingUnavailable
        case deviceRemoved
        /// The kernel dropped events (`SYN_DROPPED`): nothing about the touches can be trusted.
        case eventsDropped
    }

    public static func name(of event: Event) -> EventName {
        switch event {
        case .begin: .begin
        case .update: .update
        case .end: .end
        case .cancel: .cancel
        case .caught: .caught
        case .bindingUnavailable: .bindingUnavailable
        case .deviceRemoved: .deviceRemoved
        case .eventsDropped: .eventsDropped
        }
    }

    /// The names of the events, as the log writes them.
    public enum EventName: String, MachineName, Codable {
        case begin, update, end, cancel, caught
        case bindingUnavailable = "binding-unavailable"
        case deviceRemoved = "device-removed"
        case eventsDropped = "events-dropped"
    }

    /// Why a swipe failed.
    public enum FailureReason: String, Hashable, Sendable, Codable, CaseIterable {
        /// The fingers lifted before the centroid travelled the lock distance.
        case lifted
        /// libinput cancelled the swipe before it locked.
        case cancelled
        /// The device went away, or events were dropped, before it locked.
        case eventsLost = "events-lost"
        /// It locked on a direction with no binding for this kind of device and number of fingers.
        case noBinding = "no-binding"
    }

    /// The swipe when an action is taken.
    public struct Motion: Hashable, Sendable {
        public var direction: SwipeDirection
        public var fingers: Int
        /// The centroid's travel since the swipe began.
        public var translation: MillimeterVector
        /// Fitted over the velocity window: once per event.
        public var velocity: MillimeterVector
    }

    /// What the caller must do (beside the log lines of ``MachineAction``).
    public enum Output: Hashable, Sendable {
        /// A swipe of `fingers` fingers began: the caller may catch a run-out of a swipe with as many.
        case track(fingers: Int)
        case begin(Motion)
        case change(Motion)
        case end(Motion)
        case cancel(Motion)
        /// The swipe failed; `motion` is `nil` when it never locked (nothing to report).
        case fail(FailureReason, Motion?)
    }

    public let settings: SwipeSettings
    public private(set) var state: State = .possible
    /// Whether the source's gesture is running (between its begin and its end).
    public private(set) var isActive = false
    private var velocity: VelocityTracker

    public init(settings: SwipeSettings) {
        self.settings = settings
        self.velocity = VelocityTracker(window: settings.velocityWindow)
    }

    /// Whether no swipe is in flight.
    public var isIdle: Bool { state == .possible && !isActive }

    // MARK: - The machine

    public mutating func dispatch(_ event: Event, at time: MonotonicInstant, into actions: inout ActionList<Action>) {
        switch state {
        case .possible: onPossible(event, time, &actions)
        case .pending(let pending): onPending(pending, event, time, &actions)
        case .began(let swipe): onBegan(swipe, event, time, &actions)
        case .changed(let swipe): onChanged(swipe, event, time, &actions)
        case .failed: onFailed(event, &actions)
        }
    }

    private mutating func onPossible(_ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .begin(let fingers):
            isActive = true
            velocity.reset()
            velocity.add(x: 0, y: 0, at: time)
            state = .pending(Pending(fingers: fingers, translation: .zero))
            actions.append(.output(.track(fingers: fingers)))
        case .update, .end, .cancel:
            // The rest of a gesture from before lost events, or one the caller did not hand over: not ours.
            break
        case .deviceRemoved, .eventsDropped:
            isActive = false
        case .caught, .bindingUnavailable:
            actions.append(bug(event))
        }
    }

    private mutating func onPending(_ pending: Pending, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .update(let delta):
            var p = pending
            p.translation = Self.sum(p.translation, delta)
            velocity.add(x: p.translation.x, y: p.translation.y, at: time)
            guard p.translation.length >= settings.lockDistance, p.translation.length.value > 0 else {
                state = .pending(p)
                return
            }
            let swipe = Swipe(
                direction: .dominant(dx: p.translation.x, dy: p.translation.y), fingers: p.fingers, translation: p.translation)
            state = .began(swipe)
            actions.append(.output(.begin(motion(swipe, time))))
        case .caught(let direction):
            let swipe = Swipe(direction: direction, fingers: pending.fingers, translation: pending.translation)
            state = .began(swipe)
            actions.append(.output(.begin(motion(swipe, time))))
        case .end:
            neverLocked(.lifted, &actions)
        case .cancel:
            neverLocked(.cancelled, &actions)
        case .deviceRemoved, .eventsDropped:
            neverLocked(.eventsLost, &actions)
        case .begin, .bindingUnavailable:
            actions.append(bug(event))
        }
    }

    /// The source's gesture ended before the axis locked: it was never a swipe, and says nothing.
    private mutating func neverLocked(_ reason: FailureReason, _ actions: inout ActionList<Action>) {
        isActive = false
        state = .possible
        actions.append(.output(.fail(reason, nil)))
    }

    /// The swipe has just begun: the caller may still refuse it.
    private mutating func onBegan(_ swipe: Swipe, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .bindingUnavailable:
            state = .failed(.noBinding)
            actions.append(.output(.fail(.noBinding, motion(swipe, time))))
        case .begin, .update, .end, .cancel, .caught, .deviceRemoved, .eventsDropped:
            follow(swipe, event, time, &actions)
        }
    }

    /// The swipe follows the centroid; it can no longer be refused.
    private mutating func onChanged(_ swipe: Swipe, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .bindingUnavailable:
            // Only a swipe that has just begun can be refused: the caller decides at `begin`.
            actions.append(bug(event))
        case .begin, .update, .end, .cancel, .caught, .deviceRemoved, .eventsDropped:
            follow(swipe, event, time, &actions)
        }
    }

    /// What began and changed do alike: follow the centroid until the source ends the swipe.
    private mutating func follow(_ swipe: Swipe, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .update(let delta):
            var s = swipe
            s.translation = Self.sum(s.translation, delta)
            velocity.add(x: s.translation.x, y: s.translation.y, at: time)
            state = .changed(s)
            actions.append(.output(.change(motion(s, time))))
        case .end:
            isActive = false
            state = .possible
            actions.append(.output(.end(motion(swipe, time))))
        case .cancel, .deviceRemoved, .eventsDropped:
            isActive = false
            state = .possible
            actions.append(.output(.cancel(motion(swipe, time))))
        case .begin, .caught, .bindingUnavailable:
            actions.append(bug(event))
        }
    }

    private mutating func onFailed(_ event: Event, _ actions: inout ActionList<Action>) {
        switch event {
        case .update:
            // The rest of a swipe that was refused.
            break
        case .end, .cancel, .deviceRemoved, .eventsDropped:
            isActive = false
            state = .possible
        case .begin, .caught, .bindingUnavailable:
            actions.append(bug(event))
        }
    }

    private static func sum(_ a: MillimeterVector, _ b: MillimeterVector) -> MillimeterVector {
        // A non-finite delta (a broken source) is no motion: it must never poison the translation.
        guard b.x.isFinite, b.y.isFinite else { return a }
        return MillimeterVector(x: a.x + b.x, y: a.y + b.y)
    }

    private func motion(_ swipe: Swipe, _ time: MonotonicInstant) -> Motion {
        let v = velocity.velocity(at: time)
        return Motion(
            direction: swipe.direction, fingers: swipe.fingers, translation: swipe.translation,
            velocity: MillimeterVector(x: v.x, y: v.y))
    }
}
