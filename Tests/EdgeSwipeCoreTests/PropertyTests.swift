import PropertyBased
import Testing
@testable import EdgeSwipeCore

/// Random touch, time and request sequences, decoded from integers so the shrinker can shorten them.
struct RandomSession {
    var engine = Engine(configuration: .default)
    var events: [EngineEvent] = []
    var timeUS: UInt64 = 1_000_000
    var fingerDown = false
    var finger = NormalizedPoint(x: 0.5, y: 0.5)
    let device = TestDevices.cintiq
    /// Indexes into `events` at which the containers changed, with whether that step completed a transition.
    var containerChanges: [(changed: Bool, completedInStep: Bool)] = []

    init() {
        engine.addDevice(device, at: MonotonicInstant(microseconds: timeUS), into: &events)
    }

    var now: MonotonicInstant { MonotonicInstant(microseconds: timeUS) }

    mutating func apply(_ code: Int) {
        let before = engine.containers
        let firstNew = events.count
        timeUS += 8_000
        engine.tick(through: now, into: &events)
        let r = code / 8
        switch code % 8 {
        case 0 where !fingerDown:
            // Half the landings are at an edge.
            let t = Double(r % 100) / 100
            finger = switch r % 6 {
            case 0: NormalizedPoint(x: 0.003, y: t)
            case 1: NormalizedPoint(x: 0.997, y: t)
            case 2: NormalizedPoint(x: t, y: 0.003)
            case 3: NormalizedPoint(x: t, y: 0.997)
            default: NormalizedPoint(x: t, y: Double((r / 100) % 100) / 100)
            }
            fingerDown = true
            touch(.down)
        case 1...3 where fingerDown:
            let dx = Double(r % 21 - 10) / 100, dy = Double((r / 21) % 21 - 10) / 100
            finger = NormalizedPoint(x: finger.x + dx, y: finger.y + dy).clamped
            touch(.motion)
        case 4 where fingerDown:
            fingerDown = false
            touch(.up)
        case 5:
            timeUS += UInt64(r % 500) * 1000
            engine.tick(through: now, into: &events)
        case 6:
            let ops: [(TransitionOperation, String)] = [
                (.nextTab, "shell"), (.previousTab, "shell"), (.push(scene: "p\(r % 3)"), "app"), (.pop, "app"),
                (.present(scene: "m", style: r % 2 == 0 ? .custom : .fullScreen, frame: nil), "overlay"), (.dismiss, "overlay"),
            ]
            let (op, container) = ops[r % ops.count]
            _ = try? engine.request(op, in: container, animated: r % 5 != 0, at: now, into: &events)
        case 7:
            switch r % 3 {
            case 0: engine.eventsLost(on: device.id, at: now, into: &events)
            case 1:
                engine.removeDevice(device.id, at: now, into: &events)
                engine.addDevice(device, at: now, into: &events)
            default: engine.tick(at: now, into: &events)
            }
            fingerDown = false
        default:
            break
        }
        let completed = events[firstNew...].contains { if case .transition(let t) = $0 { t.phase == .completed } else { false } }
        containerChanges.append((engine.containers != before, completed))
    }

    mutating func touch(_ phase: TouchPhase) {
        engine.handle(TouchFrame(device: device.id, time: now, touches: [Touch(id: 0, phase: phase, position: finger)]), into: &events)
    }

    mutating func finish() {
        timeUS += 8_000
        engine.removeDevice(device.id, at: now, into: &events)
        engine.tickUntilSettled(into: &events)
    }
}

@Suite("Invariants over random sessions")
struct PropertyTests {
    static let sessions = Gen.int(in: 0...80_000).array(of: 1...120)

    @Test("percent stays in 0...1; every transition ends once, exactly at 1 or 0, and nothing follows")
    func transitionsEndOnce() async {
        await propertyCheck(count: 300, input: Self.sessions) { codes in
            var session = RandomSession()
            for c in codes { session.apply(c) }
            session.finish()
            let transitions = session.events.transitions
            #expect(transitions.allSatisfy { (Percent.zero...Percent.complete).contains($0.percent) })
            for id in Set(transitions.map(\.id)) {
                let mine = transitions.filter { $0.id == id }
                let terminals = mine.filter(\.phase.isTerminal)
                #expect(terminals.count == 1, "transition \(id.rawValue) has \(terminals.count) terminal events")
                #expect(mine.last?.phase.isTerminal == true, "nothing follows the terminal event")
                if let last = mine.last {
                    #expect(last.percent == (last.phase == .completed ? Percent.complete : .zero))
                }
                #expect(mine.first?.phase == .began)
            }
            // Lifecycle events of a transition never follow its terminal event.
            var ended = Set<TransitionID>()
            for event in session.events {
                switch event {
                case .transition(let t) where t.phase.isTerminal: ended.insert(t.id)
                case .transition(let t): #expect(!ended.contains(t.id))
                case .lifecycle(let l): #expect(!ended.contains(l.transition))
                default: break
                }
            }
        }
    }

    @Test("time never runs backward")
    func monotonicTime() async {
        await propertyCheck(count: 300, input: Self.sessions) { codes in
            var session = RandomSession()
            for c in codes { session.apply(c) }
            session.finish()
            var last = MonotonicInstant.zero
            for event in session.events {
                if let time = event.time {
                    #expect(time >= last)
                    last = max(last, time)
                }
            }
        }
    }

    @Test("container state changes only when a transition completes")
    func stateOnlyOnCompletion() async {
        await propertyCheck(count: 300, input: Self.sessions) { codes in
            var session = RandomSession()
            for c in codes { session.apply(c) }
            for step in session.containerChanges where step.changed {
                #expect(step.completedInStep)
            }
        }
    }

    @Test("the same session replays to the same events")
    func replayable() async {
        await propertyCheck(count: 50, input: Self.sessions) { codes in
            var a = RandomSession(), b = RandomSession()
            for c in codes { a.apply(c); b.apply(c) }
            #expect(a.events == b.events)
        }
    }
}
