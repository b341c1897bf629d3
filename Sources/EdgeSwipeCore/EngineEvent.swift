/// A device came, changed (its rotation or output) or went.
public struct DeviceEvent: Hashable, Sendable {
    public enum Change: String, Hashable, Sendable, Codable { case added, changed, removed }
    public var time: MonotonicInstant
    public var change: Change
    public var device: TouchDevice
}

/// A screen-edge-pan recognizer's state, with where the finger is.
public struct GestureEvent: Hashable, Sendable {
    public var time: MonotonicInstant
    public var device: DeviceID
    public var deviceKind: DeviceKind
    public var edge: Edge
    public var state: ScreenEdgePanRecognizer.State
    /// Fingers down on the device (the tracked one and any others).
    public var fingers: Int
    /// The tracked finger, normalized in the user's orientation.
    public var location: NormalizedPoint
    /// From the landing point, in (real or assumed) millimetres.
    public var translation: MillimeterVector
    /// Millimetres per second, fitted over the velocity window.
    public var velocity: MillimeterVector
    /// The transition this gesture drives, once it drives one.
    public var transition: TransitionID?
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
    /// The run-out, on the event that starts one (`finishing` or `cancelling` after a release or a request).
    public var animation: AnimationSpec?
    public var geometry: TransitionGeometry
    /// A progress-only update (a finger move, or a run-out tick): a slow client may receive only the latest.
    /// Phase changes, run-out starts and terminal events are never progress-only.
    public var isProgress: Bool
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

/// A state machine's step, for the `old -> event -> new` log. Never sent to clients as-is.
public enum TraceEvent: Hashable, Sendable {
    case recognizer(
        device: DeviceID, from: ScreenEdgePanRecognizer.State, event: ScreenEdgePanRecognizer.Event,
        to: ScreenEdgePanRecognizer.State)
    case transition(
        id: TransitionID, from: PercentDrivenInteractiveTransition.Phase,
        event: PercentDrivenInteractiveTransition.Event, to: PercentDrivenInteractiveTransition.Phase)

    /// `possible -> touch-motion -> began`, as libinput logs its gesture state machine.
    public var line: String {
        switch self {
        case .recognizer(let device, let from, let event, let to):
            "recognizer[\(device.rawValue)] \(from.rawValue) -> \(event.rawValue) -> \(to.rawValue)"
        case .transition(let id, let from, let event, let to):
            "transition[\(id.rawValue)] \(from.rawValue) -> \(event.rawValue) -> \(to.rawValue)"
        }
    }
}

/// Everything the engine tells its host, in order.
public enum EngineEvent: Hashable, Sendable {
    case device(DeviceEvent)
    case gesture(GestureEvent)
    case transition(TransitionEvent)
    case lifecycle(LifecycleEvent)
    case state(StateSnapshot)
    case trace(TraceEvent)

    /// The instant of the event; `nil` for trace lines, which carry none.
    public var time: MonotonicInstant? {
        switch self {
        case .device(let e): e.time
        case .gesture(let e): e.time
        case .transition(let e): e.time
        case .lifecycle(let e): e.time
        case .state(let e): e.time
        case .trace: nil
        }
    }
}
