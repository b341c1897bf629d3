import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings

/// What a replay produced, summarised, with every rule of a valid engine stream checked.
struct StreamCheck {
    /// Broken rules, one readable line each; empty for a valid stream.
    var problems: [String] = []
    /// Transition ids in the order they began.
    var began: [TransitionID] = []
    /// Each transition's terminal phases (exactly one in a valid stream).
    var terminals: [TransitionID: [PercentDrivenInteractiveTransition.Phase]] = [:]
    var edges: [TransitionID: Edge] = [:]
    /// The direction and finger count of swipe-driven transitions.
    var swipes: [TransitionID: (SwipeDirection, Int)] = [:]
    var gestures: [GestureEvent] = []

    init(_ events: [EngineEvent]) {
        var lastTime = MonotonicInstant.zero
        var inFlight: [DeviceID: GestureTrigger] = [:]
        func check(_ time: MonotonicInstant, _ what: String) {
            if time < lastTime { problems.append("\(what) at \(time) after \(lastTime): time ran backward") }
            lastTime = max(lastTime, time)
        }
        for event in events {
            switch event {
            case .device(let d):
                check(d.time, "device \(d.change)")
            case .gesture(let g):
                check(g.time, "gesture \(g.state)")
                gestures.append(g)
                let numbers = [g.location.x, g.location.y, g.translation.x, g.translation.y, g.velocity.x, g.velocity.y]
                    + [g.overscroll?.value, g.overscrollMM?.value].compactMap { $0 }
                if !numbers.allSatisfy(\.isFinite) { problems.append("gesture \(g.state) on \(g.device) carries a number that is not finite") }
                if !(0...1).contains(g.location.x) || !(0...1).contains(g.location.y) {
                    problems.append("gesture \(g.state) on \(g.device) at \(g.location), off the surface")
                }
                if g.blocked != nil && g.transition != nil { problems.append("blocked gesture on \(g.device) drives a transition") }
                if let o = g.overscroll, o < .zero || o > Percent(0.05) { problems.append("overscroll \(o) outside the band") }
                if let a = g.animation, a.percent(at: a.end) != .zero { problems.append("the rubber band does not spring back to 0") }
                switch g.state {
                case .began:
                    if inFlight[g.device] != nil { problems.append("gesture began on \(g.device) while one was in flight") }
                    inFlight[g.device] = g.trigger
                case .changed:
                    if inFlight[g.device] == nil { problems.append("gesture changed on \(g.device) with none in flight") }
                case .ended, .cancelled:
                    if inFlight[g.device] == nil { problems.append("gesture \(g.state) on \(g.device) with none in flight") }
                    inFlight[g.device] = nil
                case .failed:
                    if inFlight[g.device] != nil { problems.append("gesture \(g.state) on \(g.device) while one was in flight") }
                }
            case .transition(let t):
                check(t.time, "transition \(t.id.rawValue) \(t.phase)")
                if !(Percent.zero...Percent.complete).contains(t.percent) { problems.append("transition \(t.id.rawValue) percent \(t.percent) outside 0...1") }
                if t.phase == .began {
                    if began.contains(t.id) { problems.append("transition \(t.id.rawValue) began twice") }
                    began.append(t.id)
                    if let edge = t.edge { edges[t.id] = edge }
                    if let direction = t.swipe { swipes[t.id] = (direction, t.swipeFingers ?? 0) }
                } else if !began.contains(t.id) {
                    problems.append("transition \(t.id.rawValue) \(t.phase) before it began")
                }
                if terminals[t.id] != nil && !t.phase.isTerminal {
                    problems.append("transition \(t.id.rawValue) \(t.phase) after its terminal event")
                }
                if t.phase.isTerminal { terminals[t.id, default: []].append(t.phase) }
            case .lifecycle(let l):
                check(l.time, "lifecycle")
            case .presentation(let p):
                check(p.time, "presentation")
                if !began.contains(p.transition) { problems.append("presentation \(p.phase) for a transition that never began") }
            case .interaction(let i):
                check(i.time, "interaction")
                if !began.contains(i.transition) { problems.append("interaction \(i.phase) for a transition that never began") }
            case .state(let s):
                check(s.time, "state")
            case .trace(let t):
                if t.isBug { problems.append("a machine's bug: \(t.line)") }
            }
        }
        for id in began where terminals[id]?.count != 1 {
            problems.append("transition \(id.rawValue) has \(terminals[id]?.count ?? 0) terminal events, not 1")
        }
        for (device, trigger) in inFlight { problems.append("gesture on \(device) (\(trigger)) never ended") }
    }

    /// `(edge or swipe, terminal)` of every transition, in the order they began.
    var outcomes: [Outcome] {
        began.map { Outcome(edge: edges[$0], swipe: swipes[$0].map { "\($0.1)-finger \($0.0.rawValue)" }, phase: terminals[$0]?.first) }
    }

    struct Outcome: Hashable, CustomStringConvertible {
        var edge: Edge?
        /// `3-finger left` for a swipe-driven transition.
        var swipe: String? = nil
        var phase: PercentDrivenInteractiveTransition.Phase?
        var description: String { "\(edge?.rawValue ?? swipe ?? "none") \(phase?.rawValue ?? "unfinished")" }
    }

    var beganGestures: [GestureEvent] { gestures.filter { $0.state == .began } }
}

/// Plays recordings offline through a fresh engine.
func replay(
    _ recordings: [Recording], configuration: EngineConfiguration = .default,
    options: RecordingPlayer.Options = RecordingPlayer.Options()
) -> (events: [EngineEvent], player: RecordingPlayer, engine: Engine) {
    var engine = Engine(configuration: configuration)
    var player = RecordingPlayer(recordings: recordings, options: options)
    var events: [EngineEvent] = []
    player.play(into: &engine, events: &events)
    return (events, player, engine)
}
