import EdgeSwipeTestSupport
import Testing
@testable import EdgeSwipeCore

/// The swipe recognizer's state machine, pair by pair: every (state, event) is a row of the table below, with the
/// state it leaves the machine in and the actions it takes, log lines included. `docs/ARCHITECTURE.md`'s diagram
/// is checked against the same table (`StateDiagramTests`). The rows are played by the shared runner
/// (`StateMachineTable`, in the test support).
@Suite("SwipeRecognizer: every state and event")
struct SwipeRecognizerTests: StateMachineTable {
    typealias Machine = SwipeRecognizer
    typealias R = SwipeRecognizer
    typealias Event = R.Event

    static func mm(_ x: Double, _ y: Double) -> Event { .update(delta: MillimeterVector(x: x, y: y)) }

    /// How to reach each state from a new recognizer: a 3-finger swipe, locked by 2 mm to the right (past GNOME's
    /// 16 units, 1.52 mm).
    static let setups: [R.StateName: [Event]] = [
        .possible: [],
        .pending: [.begin(fingers: 3)],
        .began: [.begin(fingers: 3), mm(2, 0)],
        .changed: [.begin(fingers: 3), mm(2, 0), mm(1, 0)],
        .failed: [.begin(fingers: 3), mm(2, 0), .bindingUnavailable],
    ]

    static let table: [Row] = {
        var rows: [Row] = []
        // possible: only a begin starts something; the rest of a gesture the machine was not given is ignored.
        rows += [
            Row(state: .possible, event: .begin(fingers: 3), expect: .pending, actions: [step(.possible, .begin, .pending), "track 3"]),
            Row(state: .possible, event: mm(5, 0), variant: "a gesture from before lost events", expect: .possible, actions: []),
            Row(state: .possible, event: .end, variant: "a gesture from before lost events", expect: .possible, actions: []),
            Row(state: .possible, event: .cancel, variant: "a gesture from before lost events", expect: .possible, actions: []),
            Row(state: .possible, event: .caught(.left), expect: .possible, actions: [bug(.caught, .possible)]),
            Row(state: .possible, event: .bindingUnavailable, expect: .possible, actions: [bug(.bindingUnavailable, .possible)]),
            Row(state: .possible, event: .deviceRemoved, expect: .possible, actions: []),
            Row(state: .possible, event: .eventsDropped, expect: .possible, actions: []),
        ]
        // pending: the centroid's travel past the lock distance locks the axis.
        rows += [
            Row(state: .pending, event: .begin(fingers: 4), expect: .pending, actions: [bug(.begin, .pending)]),
            Row(state: .pending, event: mm(2, 0.5), variant: "past the lock distance, mostly right", expect: .began,
                actions: [step(.pending, .update, .began), "begin right"]),
            Row(state: .pending, event: mm(0.5, -1.8), variant: "past the lock distance, mostly up", expect: .began,
                actions: [step(.pending, .update, .began), "begin up"]),
            Row(state: .pending, event: mm(-1.0, 1.0), variant: "short of the lock distance (1.41 mm)", expect: .pending, actions: []),
            Row(state: .pending, event: mm(.nan, 3), variant: "a non-finite delta", expect: .pending, actions: []),
            Row(state: .pending, event: .end, variant: "lifted before the lock", expect: .possible,
                actions: [step(.pending, .end, .possible), "fail lifted"]),
            Row(state: .pending, event: .cancel, variant: "libinput's cancelled flag before the lock", expect: .possible,
                actions: [step(.pending, .cancel, .possible), "fail cancelled"]),
            Row(state: .pending, event: .caught(.left), variant: "a run-out of as many fingers", expect: .began,
                actions: [step(.pending, .caught, .began), "begin left"]),
            Row(state: .pending, event: .bindingUnavailable, expect: .pending, actions: [bug(.bindingUnavailable, .pending)]),
            Row(state: .pending, event: .deviceRemoved, expect: .possible, actions: [step(.pending, .deviceRemoved, .possible), "fail events-lost"]),
            Row(state: .pending, event: .eventsDropped, expect: .possible, actions: [step(.pending, .eventsDropped, .possible), "fail events-lost"]),
        ]
        // began and changed: the swipe follows the centroid until libinput ends or cancels it.
        for (state, began) in [(R.StateName.began, true), (.changed, false)] {
            rows += [
                Row(state: state, event: .begin(fingers: 3), expect: state, actions: [bug(.begin, state)]),
                Row(state: state, event: mm(3, 0), expect: .changed,
                    actions: (began ? [step(.began, .update, .changed)] : []) + ["change right"]),
                Row(state: state, event: mm(-8, 0), variant: "back past the start: the direction holds", expect: .changed,
                    actions: (began ? [step(.began, .update, .changed)] : []) + ["change right"]),
                Row(state: state, event: .end, expect: .possible, actions: [step(state, .end, .possible), "end right"]),
                Row(state: state, event: .cancel, variant: "libinput's cancelled flag", expect: .possible,
                    actions: [step(state, .cancel, .possible), "cancel right"]),
                Row(state: state, event: .caught(.right), expect: state, actions: [bug(.caught, state)]),
                Row(state: state, event: .bindingUnavailable, expect: began ? .failed : state,
                    actions: began ? [step(.began, .bindingUnavailable, .failed), "fail no-binding right"] : [bug(.bindingUnavailable, .changed)]),
                Row(state: state, event: .deviceRemoved, expect: .possible, actions: [step(state, .deviceRemoved, .possible), "cancel right"]),
                Row(state: state, event: .eventsDropped, expect: .possible, actions: [step(state, .eventsDropped, .possible), "cancel right"]),
            ]
        }
        // failed: the rest of a refused swipe is ignored until its source ends it.
        rows += [
            Row(state: .failed, event: .begin(fingers: 3), expect: .failed, actions: [bug(.begin, .failed)]),
            Row(state: .failed, event: mm(5, 0), expect: .failed, actions: []),
            Row(state: .failed, event: .end, expect: .possible, actions: [step(.failed, .end, .possible)]),
            Row(state: .failed, event: .cancel, expect: .possible, actions: [step(.failed, .cancel, .possible)]),
            Row(state: .failed, event: .caught(.left), expect: .failed, actions: [bug(.caught, .failed)]),
            Row(state: .failed, event: .bindingUnavailable, expect: .failed, actions: [bug(.bindingUnavailable, .failed)]),
            Row(state: .failed, event: .deviceRemoved, expect: .possible, actions: [step(.failed, .deviceRemoved, .possible)]),
            Row(state: .failed, event: .eventsDropped, expect: .possible, actions: [step(.failed, .eventsDropped, .possible)]),
        ]
        return rows
    }()

    static func makeMachine() -> R { R(settings: .touchpad) }

    /// Actions that are not log lines, as `track 3`, `begin right`, ….
    static func describe(_ action: R.Action, after event: R.EventName) -> String {
        if let line = action.logLine { return line }
        switch action {
        case .output(.track(let fingers)): return "track \(fingers)"
        case .output(.begin(let m)): return "begin \(m.direction.rawValue)"
        case .output(.change(let m)): return "change \(m.direction.rawValue)"
        case .output(.end(let m)): return "end \(m.direction.rawValue)"
        case .output(.cancel(let m)): return "cancel \(m.direction.rawValue)"
        case .output(.fail(let reason, let m)): return "fail \(reason.rawValue)" + (m.map { " \($0.direction.rawValue)" } ?? "")
        case .transitioned, .bug: return ""
        }
    }

    @Test("each state is reached by its setup")
    func setupsReachTheirStates() {
        #expect(Self.statesNotReached == [])
    }

    @Test("every pair: the new state, the actions and the log lines", arguments: table)
    func pair(_ row: Row) {
        var machine = Self.expectRow(row)
        // Whatever happened, a machine left possible takes the next swipe.
        if row.expect == .possible {
            let actions = machine.handle(.begin(fingers: 4), at: MonotonicInstant(microseconds: 9_000_000)).map { Self.describe($0, after: .begin) }
            #expect(actions == [Self.step(.possible, .begin, .pending), "track 4"])
        }
    }

    @Test("the table covers every (state, event) pair")
    func everyPair() {
        #expect(Self.pairsMissing == [])
    }

    @Test("the lock distance is GNOME's 16 libinput units: 1.52 mm")
    func lockDistance() {
        #expect(abs(SwipeSettings.libinputUnitsPerMillimeter - 10.517) < 0.001)
        #expect(abs(SwipeSettings.touchpad.lockDistance.value - 1.5213) < 0.001)
        var r = R(settings: .touchpad)
        _ = r.handle(.begin(fingers: 3), at: .zero)
        #expect(r.handle(Self.mm(1.52, 0), at: .zero).isEmpty)
        #expect(r.handle(Self.mm(0.002, 0), at: .zero).map { Self.describe($0, after: .update) } == [Self.step(.pending, .update, .began), "begin right"])
    }

    @Test("actions carry their data: direction, fingers, the centroid's translation and velocity in mm")
    func actionsCarryData() {
        var r = R(settings: .touchpad)
        _ = r.handle(.begin(fingers: 4), at: MonotonicInstant(microseconds: 1_000_000))
        _ = r.handle(Self.mm(0, -1), at: MonotonicInstant(microseconds: 1_010_000))
        let actions = r.handle(Self.mm(0.2, -2), at: MonotonicInstant(microseconds: 1_020_000))
        guard case .output(.begin(let m))? = actions.last else {
            Issue.record("expected a begin, got \(Array(actions))")
            return
        }
        #expect(m.direction == .up && m.fingers == 4)
        #expect(abs(m.translation.x - 0.2) < 1e-12 && abs(m.translation.y + 3) < 1e-12)
        #expect(abs(m.velocity.y + 150) < 1e-6, "3 mm in 20 ms")
    }
}
