import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

/// The devices the core's tests script fingers on.
typealias TestDevices = ModelledDevices

extension Engine {
    /// Plays `script` on `device` (added at time 0), its origin at 1 s, ticking virtual time between frames and
    /// until settled.
    mutating func play(_ script: FingerScript, on device: TouchDevice, addDevice: Bool = true, settle: Bool = true) -> [EngineEvent] {
        var events: [EngineEvent] = []
        if addDevice { self.addDevice(device, at: .zero, into: &events) }
        for frame in script.frames(on: device) {
            tick(through: frame.time, into: &events)
            handle(frame, into: &events)
        }
        if settle { tickUntilSettled(into: &events) }
        return events
    }
}

extension Array where Element == EngineEvent {
    var transitions: [TransitionEvent] { compactMap { if case .transition(let t) = $0 { t } else { nil } } }
    var gestures: [GestureEvent] { compactMap { if case .gesture(let g) = $0 { g } else { nil } } }
    var lifecycle: [LifecycleEvent] { compactMap { if case .lifecycle(let l) = $0 { l } else { nil } } }
    var presentations: [PresentationEvent] { compactMap { if case .presentation(let p) = $0 { p } else { nil } } }
    var interactions: [InteractionEvent] { compactMap { if case .interaction(let i) = $0 { i } else { nil } } }
    var states: [StateSnapshot] { compactMap { if case .state(let s) = $0 { s } else { nil } } }
    var traces: [TraceEvent] { compactMap { if case .trace(let t) = $0 { t } else { nil } } }
    var terminalPhases: [PercentDrivenInteractiveTransition.Phase] { transitions.map(\.phase).filter(\.isTerminal) }
    var gestureStates: [GestureState] { gestures.map(\.state).reduce(into: []) { if $0.last != $1 { $0.append($1) } } }
    var phases: [PercentDrivenInteractiveTransition.Phase] { transitions.map(\.phase).reduce(into: []) { if $0.last != $1 { $0.append($1) } } }
    var lifecycleLines: [String] { lifecycle.map { "\($0.scene) \($0.kind.rawValue)" } }
}
