// Shared by the input fuzz targets: plays decoded input through a real Engine and checks the invariants every
// client relies on, so that a fuzzer finds wrong output as well as crashes.
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings

/// Checks a stream of engine events as a client would see it.
struct EngineStreamCheck {
    private var lastTime = MonotonicInstant.zero
    private var open: Set<TransitionID> = []
    private var finished: Set<TransitionID> = []

    mutating func check(_ event: EngineEvent) {
        let time: MonotonicInstant
        switch event {
        case .device(let d): time = d.time
        case .gesture(let g):
            time = g.time
            precondition(g.location.x.isFinite && g.location.y.isFinite, "gesture location is not finite")
            precondition(g.velocity.x.isFinite && g.velocity.y.isFinite, "gesture velocity is not finite")
        case .transition(let t):
            time = t.time
            let percent = t.percent.value
            precondition(percent.isFinite && percent >= 0 && percent <= 1, "percent \(percent) out of 0...1")
            precondition(t.velocity.isFinite, "transition velocity is not finite")
            precondition(!finished.contains(t.id), "transition \(t.id.rawValue) has an event after its terminal one")
            if t.phase == .began && !t.isProgress {
                precondition(!open.contains(t.id), "transition \(t.id.rawValue) began twice")
                open.insert(t.id)
            } else {
                precondition(open.contains(t.id), "transition \(t.id.rawValue) has a \(t.phase) before began")
            }
            if t.phase.isTerminal {
                open.remove(t.id)
                finished.insert(t.id)
            }
        case .lifecycle(let l):
            time = l.time
            precondition(open.contains(l.transition), "lifecycle event for transition \(l.transition.rawValue), which is not running")
        case .presentation(let p):
            time = p.time
            precondition(open.contains(p.transition), "presentation event for transition \(p.transition.rawValue), which is not running")
        case .interaction(let i):
            time = i.time
            precondition(open.contains(i.transition), "interaction event for transition \(i.transition.rawValue), which is not running")
            precondition(i.velocity.value.isFinite, "interaction velocity is not finite")
        case .state(let s): time = s.time
        case .trace(let trace):
            // A state machine that met an event it cannot take is a bug in the engine, whatever the input.
            precondition(!trace.isBug, "state machine bug: \(trace)")
            return
        }
        precondition(time >= lastTime, "time went backwards: \(time.microseconds) after \(lastTime.microseconds)")
        lastTime = time
    }

    /// After the input ended and every device was removed: nothing may still run.
    func checkQuiet(_ engine: Engine) {
        precondition(open.isEmpty, "transitions never ended: \(open.map(\.rawValue).sorted())")
        precondition(engine.nextDeadline == nil, "the engine still wants ticks after the input ended")
        precondition(engine.isIdle, "the engine is not idle after every device was removed")
    }
}

/// Plays recorded devices through a player and an engine with the default configuration.
func playAndCheck(_ devices: [RecordedDevice], format: Recording.Format) {
    let recording = Recording(path: "fuzz", format: format, devices: devices)
    var player = RecordingPlayer(recordings: [recording], options: .init(removeDevicesAtEnd: true))
    var engine = Engine(configuration: .default)
    var check = EngineStreamCheck()
    player.play(into: &engine) { check.check($0) }
    check.checkQuiet(engine)
}

/// Keeps a fuzz iteration fast: huge recordings are cut (the parsers are what is fuzzed; playing is a bonus).
func trimmed(_ devices: [RecordedDevice], maxEvents: Int = 4000) -> [RecordedDevice] {
    devices.map { d in
        var d = d
        if d.events.count > maxEvents { d.events.removeSubrange(maxEvents...) }
        return d
    }
}
