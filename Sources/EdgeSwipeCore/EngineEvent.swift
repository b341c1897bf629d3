/// A device came, changed (its rotation or output) or went.
public struct DeviceEvent: Hashable, Sendable {
    public typealias Change = DeviceChange
    public var time: MonotonicInstant
    public var change: Change
    public var device: TouchDevice
}

/// Why a gesture that began moves nothing.
public enum BlockReason: String, Hashable, Sendable, Codable, CaseIterable {
    /// Its edge has bindings, but none of them can run now (the root of a stack, the last tab, a busy
    /// container).
    case noApplicableBinding = "no-applicable-binding"
}

/// A gesture recognizer's state (a screen-edge pan, or a multi-finger swipe), with where the fingers are.
public struct GestureEvent: Hashable, Sendable {
    public var time: MonotonicInstant
    public var device: DeviceID
    public var deviceKind: DeviceKind
    /// The edge of an edge gesture, or the direction of a multi-finger swipe.
    public var trigger: GestureTrigger
    public var state: GestureState
    /// Fingers down on the device (the tracked one and any others); for a swipe, the swipe's finger count.
    public var fingers: Int
    /// The tracked finger (a swipe: the centroid of the fingers, where the device reports them), normalized in
    /// the user's orientation.
    public var location: NormalizedPoint
    /// From the landing point (a swipe: the centroid's travel), in (real or assumed) millimetres.
    public var translation: MillimeterVector
    /// Millimetres per second, fitted over the velocity window.
    public var velocity: MillimeterVector
    /// The transition this gesture drives, once it drives one.
    public var transition: TransitionID?
    /// Set on every message of a gesture that began but drives nothing, saying why.
    public var blocked: BlockReason?
    /// A blocked gesture's rubber-band displacement, in percent of the transition it would have driven (the
    /// reference length); absent when overscroll is off.
    public var overscroll: Percent?
    /// The same displacement along the edge's inward normal, in (real or assumed) millimetres.
    public var overscrollMM: Millimeters?
    /// On the `ended` or `cancelled` of a blocked gesture with a rubber band: the spring back to 0, in the
    /// overscroll's unit.
    public var animation: AnimationSpec?
    /// On an edge gesture's `failed`: why.
    public var failure: ScreenEdgePanRecognizer.FailureReason?
    /// On a swipe's `failed`: why.
    public var swipeFailure: SwipeRecognizer.FailureReason?

    /// The failure's name as the wire carries it, whichever recognizer failed.
    public var failureReason: String? { failure?.rawValue ?? swipeFailure?.rawValue }

    /// The edge of an edge gesture; `nil` for a swipe.
    public var edge: Edge? { trigger.edge }
    public var kind: GestureKind { trigger.kind }

    public init(
        time: MonotonicInstant, device: DeviceID, deviceKind: DeviceKind, trigger: GestureTrigger, state: GestureState,
        fingers: Int, location: NormalizedPoint, translation: MillimeterVector, velocity: MillimeterVector,
        transition: TransitionID? = nil, blocked: BlockReason? = nil, overscroll: Percent? = nil,
        overscrollMM: Millimeters? = nil, animation: AnimationSpec? = nil,
        failure: ScreenEdgePanRecognizer.FailureReason? = nil, swipeFailure: SwipeRecognizer.FailureReason? = nil
    ) {
        self.swipeFailure = swipeFailure
        self.time = time
        self.device = device
        self.deviceKind = deviceKind
        self.trigger = trigger
        self.state = state
        self.fingers = fingers
        self.location = location
        self.translation = translation
        self.velocity = velocity
        self.transition = transition
        self.blocked = blocked
        self.overscroll = overscroll
        self.overscrollMM = overscrollMM
        self.animation = animation
        self.failure = failure
    }
}

/// One step of a transition.
public struct TransitionEvent: Hashable, Sendable {
    public var time: MonotonicInstant
    public var id: TransitionID
    public var operation: TransitionOperation
    public var container: String
    public var from: String
    public var to: String
    public var direction: TransitionDirection
    public var phase: PercentDrivenInteractiveTransition.Phase
    public var percent: Percent
    public var velocity: PercentPerSecond
    public var interactive: Bool
    public var presentationStyle: PresentationStyle?
    /// The edge and device whose gesture drives it, for gesture-driven transitions.
    public var edge: Edge?
    public var device: DeviceID?
    /// The direction and finger count of the multi-finger swipe that drives it, for swipe-driven transitions.
    public var swipe: SwipeDirection?
    public var swipeFingers: Int?
    /// The run-out, on the event that starts one (`finishing` or `cancelling` after a release or a request).
    public var animation: AnimationSpec?
    public var geometry: TransitionGeometry
    /// A progress-only update (a finger move, or a run-out tick): a slow client may receive only the latest.
    /// Phase changes, run-out starts and terminal events are never progress-only.
    public var isProgress: Bool
    /// While a finger drives it (`changed`): what the release decision would conclude if the finger lifted now,
    /// at this percent and velocity, so that a client can show whether a release would finish.
    public var release: ReleaseJudgement? = nil
}

/// An appearance callback for a scene, tied to the transition that caused it.
public struct LifecycleEvent: Hashable, Sendable {
    public var time: MonotonicInstant
    public var transition: TransitionID
    public var container: String
    public var scene: String
    public var kind: LifecycleKind
}

/// The containers' state (after a transition completed, or on request).
public struct StateSnapshot: Hashable, Sendable {
    public var time: MonotonicInstant
    public var containers: [Container]
    /// Transitions running when the snapshot was taken, by container.
    public var running: [RunningSummary]

    public struct RunningSummary: Hashable, Sendable {
        public var id: TransitionID
        public var container: String
        public var operation: TransitionOperation
        public var phase: PercentDrivenInteractiveTransition.Phase
        public var percent: Percent
    }
}

/// The presentation controller's callbacks around a modal transition (UIKit's `UIPresentationController`):
/// `presentationTransitionWillBegin`, `presentationTransitionDidEnd(_:)`, `dismissalTransitionWillBegin` and
/// `dismissalTransitionDidEnd(_:)`. They bracket the transition's appearance callbacks: will-begin follows the
/// transition's `began`, did-end precedes its terminal event.
public struct PresentationEvent: Hashable, Sendable {
    public typealias Kind = PresentationKind
    public typealias Phase = PresentationPhase
    public var time: MonotonicInstant
    public var transition: TransitionID
    public var container: String
    public var kind: Kind
    public var phase: Phase
    /// On did-end: whether the transition completed (a cancelled dismissal leaves the scene presented).
    public var completed: Bool?
    /// The presented scene and the one under it.
    public var presented: String
    public var presenting: String
    public var style: PresentationStyle
    /// Where the presented scene rests (the presentation controller's `frameOfPresentedViewInContainerView`).
    public var frame: NormalizedRect
}

/// The transition coordinator's `notifyWhenInteractionChanges`: the finger let go and the run-out starts toward
/// the end or back (`ended`), or a touch caught the run-out and drives the transition again (`began`).
public struct InteractionEvent: Hashable, Sendable {
    public typealias Phase = InteractionPhase
    public var time: MonotonicInstant
    public var transition: TransitionID
    public var container: String
    public var phase: Phase
    /// On ended: whether the run-out goes back (UIKit's `isCancelled`).
    public var cancelled: Bool?
    public var percent: Percent
    /// Percent per second: the release velocity on ended (`completionVelocity`), the caught run-out's on began.
    public var velocity: PercentPerSecond
    /// On ended, when the release decision judged it: where the release velocity would carry the transition
    /// (``ReleaseDecision/projectedPercent(_:)``) and the threshold it was held against. `nil` when the touch was
    /// cancelled, which always cancels. Plots draw these rather than recomputing them, so they show the very
    /// numbers that decided.
    public var decision: ReleaseJudgement?

    public init(
        time: MonotonicInstant, transition: TransitionID, container: String, phase: Phase, cancelled: Bool?,
        percent: Percent, velocity: PercentPerSecond, decision: ReleaseJudgement? = nil
    ) {
        self.time = time
        self.transition = transition
        self.container = container
        self.phase = phase
        self.cancelled = cancelled
        self.percent = percent
        self.velocity = velocity
        self.decision = decision
    }
}

/// What the release decision saw and concluded, for a plot or a log to show.
public struct ReleaseJudgement: Hashable, Sendable {
    /// Where the release would carry the transition (the percent itself below the flick velocity).
    public var projected: Percent
    /// The projected percent at or past which it finishes.
    public var threshold: Percent
    /// Release speeds below this were taken as zero (no projection).
    public var flickVelocity: PercentPerSecond
    public var finishes: Bool { projected >= threshold }

    public init(projected: Percent, threshold: Percent, flickVelocity: PercentPerSecond) {
        self.projected = projected
        self.threshold = threshold
        self.flickVelocity = flickVelocity
    }
}

/// A state machine's step, for the `old -> event -> new` log, or an event it could not take (a bug). Never sent
/// to clients.
public struct TraceEvent: Hashable, Sendable {
    /// Which machine: one of each recognizer and a detector per device, one transition machine per transition.
    public enum Machine: String, Hashable, Sendable, CaseIterable {
        case recognizer, swipe, detector, transition
    }

    /// A change of state, or libinput's `log_gesture_bug`: an event the machine cannot take in its state, which
    /// it ignored.
    public enum Step: Hashable, Sendable {
        case transitioned(from: String, event: String, to: String)
        case bug(event: String, state: String)
    }

    public var machine: Machine
    /// The device's id (recognizers, detector) or the transition's.
    public var id: UInt64
    public var step: Step

    public init(machine: Machine, id: UInt64, step: Step) {
        self.machine = machine
        self.id = id
        self.step = step
    }

    /// The trace of a machine's action, or `nil` for an output (which the caller carries out).
    public init?<S: MachineName, E: MachineName, O: Hashable & Sendable>(_ action: MachineAction<S, E, O>, of machine: Machine, id: UInt64) {
        switch action {
        case .transitioned(let from, let event, let to):
            self.init(machine: machine, id: id, step: .transitioned(from: from.rawValue, event: event.rawValue, to: to.rawValue))
        case .bug(let event, let state):
            self.init(machine: machine, id: id, step: .bug(event: event.rawValue, state: state.rawValue))
        case .output:
            return nil
        }
    }

    /// `recognizer[3] possible -> touch-motion -> began`, as libinput logs its gesture state machine, or
    /// `recognizer[3] invalid event caught in state changed`.
    public var line: String {
        switch step {
        case .transitioned(let from, let event, let to): "\(machine.rawValue)[\(id)] \(from) -> \(event) -> \(to)"
        case .bug(let event, let state): "\(machine.rawValue)[\(id)] invalid event \(event) in state \(state)"
        }
    }

    /// Whether this is a bug report (to be logged as an error) rather than a step.
    public var isBug: Bool {
        switch step {
        case .bug: true
        case .transitioned: false
        }
    }
}

/// Everything the engine tells its host, in order.
public enum EngineEvent: Hashable, Sendable {
    case device(DeviceEvent)
    case gesture(GestureEvent)
    case transition(TransitionEvent)
    case lifecycle(LifecycleEvent)
    case presentation(PresentationEvent)
    case interaction(InteractionEvent)
    case state(StateSnapshot)
    case trace(TraceEvent)

    /// The instant of the event; `nil` for trace lines, which carry none.
    public var time: MonotonicInstant? {
        switch self {
        case .device(let e): e.time
        case .gesture(let e): e.time
        case .transition(let e): e.time
        case .lifecycle(let e): e.time
        case .presentation(let e): e.time
        case .interaction(let e): e.time
        case .state(let e): e.time
        case .trace: nil
        }
    }
}
