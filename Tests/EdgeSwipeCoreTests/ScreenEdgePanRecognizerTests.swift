import EdgeSwipeFingerScript
import EdgeSwipeTestSupport
import Testing
@testable import EdgeSwipeCore

/// The recognizer's state machine, pair by pair: every (state, event) is a row of the table below, with the
/// state it leaves the machine in and the actions it takes, log lines included. `docs/ARCHITECTURE.md`'s diagram
/// is checked against the same table (`StateDiagramTests`). The rows are played by the shared runner
/// (`StateMachineTable`, in the test support).
@Suite("ScreenEdgePanRecognizer: every state and event")
struct ScreenEdgePanRecognizerTests: StateMachineTable {
    typealias Machine = ScreenEdgePanRecognizer
    typealias R = ScreenEdgePanRecognizer
    typealias Event = R.Event

    /// The Cintiq (345.6 x 194.4 mm): the left zone is 4 mm = 1.16 % of the width, the hysteresis 2 mm.
    static let device = TestDevices.cintiq
    static let inLeftZone = NormalizedPoint(x: 0.005, y: 0.5)
    static let interior = NormalizedPoint(x: 0.5, y: 0.5)
    /// 3 mm inward from `inLeftZone`; 3 mm along the edge; 1 mm inward (short of the hysteresis).
    static let inward = NormalizedPoint(x: 0.005 + 3 / 345.6, y: 0.5)
    static let further = NormalizedPoint(x: 0.005 + 6 / 345.6, y: 0.5)
    static let along = NormalizedPoint(x: 0.005, y: 0.5 + 3 / 194.4)
    static let short = NormalizedPoint(x: 0.005 + 1 / 345.6, y: 0.5)

    static func down(_ touch: Int32, _ p: NormalizedPoint = inLeftZone) -> Event { .touchDown(touch: touch, at: p, allowed: .all) }

    /// How to reach each state from a new recognizer. One finger is still down in the finished states: ended and
    /// cancelled had a second finger, so that the tracked one lifting did not end the sequence.
    static let setups: [R.StateName: [Event]] = [
        .possible: [],
        .tracking: [down(0)],
        .began: [down(0), .touchMotion(touch: 0, to: inward)],
        .changed: [down(0), .touchMotion(touch: 0, to: inward), .touchMotion(touch: 0, to: further)],
        .ended: [down(0), down(1), .touchMotion(touch: 0, to: inward), .touchUp(touch: 0)],
        .cancelled: [down(0), down(1), .touchMotion(touch: 0, to: inward), .touchCancel(touch: 0)],
        .failed: [down(0, interior)],
    ]

    static let table: [Row] = {
        var rows: [Row] = []
        // possible: only a landing starts something.
        rows += [
            Row(state: .possible, event: down(0), variant: "in a zone", expect: .tracking,
                actions: [step(.possible, .touchDown, .tracking), "track left"]),
            Row(state: .possible, event: down(0, interior), variant: "outside every zone", expect: .failed,
                actions: [step(.possible, .touchDown, .failed), "fail outside-zones"]),
            Row(state: .possible, event: .touchMotion(touch: 3, to: interior), variant: "a finger from before lost events", expect: .possible, actions: []),
            Row(state: .possible, event: .touchUp(touch: 3), variant: "a finger from before lost events", expect: .possible, actions: []),
            Row(state: .possible, event: .touchCancel(touch: 3), variant: "a finger from before lost events", expect: .possible, actions: []),
            Row(state: .possible, event: .caught(.left), expect: .possible, actions: [bug(.caught, .possible)]),
            Row(state: .possible, event: .bindingUnavailable, expect: .possible, actions: [bug(.bindingUnavailable, .possible)]),
            Row(state: .possible, event: .swipe, expect: .possible, actions: [bug(.swipe, .possible)]),
            Row(state: .possible, event: .deviceRemoved, expect: .possible, actions: []),
            Row(state: .possible, event: .eventsDropped, expect: .possible, actions: []),
            Row(state: .possible, event: .allTouchesUp, expect: .possible, actions: [bug(.allTouchesUp, .possible)]),
        ]
        // tracking: the first motion past the hysteresis decides.
        rows += [
            Row(state: .tracking, event: down(1), variant: "a second finger", expect: .tracking, actions: []),
            Row(state: .tracking, event: .touchMotion(touch: 0, to: inward), variant: "inward past the hysteresis", expect: .began,
                actions: [step(.tracking, .touchMotion, .began), "begin left"]),
            Row(state: .tracking, event: .touchMotion(touch: 0, to: along), variant: "along the edge", expect: .failed,
                actions: [step(.tracking, .touchMotion, .failed), "fail not-inward left"]),
            Row(state: .tracking, event: .touchMotion(touch: 0, to: short), variant: "short of the hysteresis", expect: .tracking, actions: []),
            Row(state: .tracking, event: .touchMotion(touch: 1, to: further), variant: "another finger", extra: [down(1, interior)],
                expect: .tracking, actions: []),
            Row(state: .tracking, event: .touchUp(touch: 0), variant: "the tracked finger, the last", expect: .possible,
                actions: [step(.tracking, .touchUp, .failed), "fail lifted left", step(.failed, .allTouchesUp, .possible)]),
            Row(state: .tracking, event: .touchUp(touch: 1), variant: "another finger", extra: [down(1, interior)],
                expect: .tracking, actions: []),
            Row(state: .tracking, event: .touchCancel(touch: 0), variant: "the tracked finger, the last", expect: .possible,
                actions: [step(.tracking, .touchCancel, .failed), "fail touch-cancelled left", step(.failed, .allTouchesUp, .possible)]),
            Row(state: .tracking, event: .caught(.left), variant: "a candidate", expect: .began,
                actions: [step(.tracking, .caught, .began), "begin left"]),
            Row(state: .tracking, event: .caught(.right), variant: "not a candidate", expect: .tracking, actions: [bug(.caught, .tracking)]),
            Row(state: .tracking, event: .bindingUnavailable, expect: .tracking, actions: [bug(.bindingUnavailable, .tracking)]),
            Row(state: .tracking, event: .swipe, variant: "a multi-finger swipe began", expect: .failed,
                actions: [step(.tracking, .swipe, .failed), "fail swipe"]),
            Row(state: .tracking, event: .deviceRemoved, expect: .possible,
                actions: [step(.tracking, .deviceRemoved, .failed), "fail events-lost left", step(.failed, .allTouchesUp, .possible)]),
            Row(state: .tracking, event: .eventsDropped, expect: .possible,
                actions: [step(.tracking, .eventsDropped, .failed), "fail events-lost left", step(.failed, .allTouchesUp, .possible)]),
            Row(state: .tracking, event: .allTouchesUp, expect: .tracking, actions: [bug(.allTouchesUp, .tracking)]),
        ]
        // began and changed: the gesture follows its finger until it lifts or is lost.
        for (state, began) in [(R.StateName.began, true), (.changed, false)] {
            rows += [
                Row(state: state, event: down(1), variant: "a second finger", expect: state, actions: []),
                Row(state: state, event: .touchMotion(touch: 0, to: NormalizedPoint(x: 0.05, y: 0.5)), variant: "the tracked finger",
                    expect: .changed, actions: (began ? [step(.began, .touchMotion, .changed)] : []) + ["change left"]),
                Row(state: state, event: .touchMotion(touch: 1, to: interior), variant: "another finger", extra: [down(1, interior)],
                    expect: state, actions: []),
                Row(state: state, event: .touchUp(touch: 0), variant: "the tracked finger, the last", expect: .possible,
                    actions: [step(state, .touchUp, .ended), "end left", step(.ended, .allTouchesUp, .possible)]),
                Row(state: state, event: .touchUp(touch: 0), variant: "the tracked finger, another still down", extra: [down(1, interior)],
                    expect: .ended, actions: [step(state, .touchUp, .ended), "end left"]),
                Row(state: state, event: .touchUp(touch: 1), variant: "another finger", extra: [down(1, interior)], expect: state, actions: []),
                Row(state: state, event: .touchCancel(touch: 0), variant: "the tracked finger, the last", expect: .possible,
                    actions: [step(state, .touchCancel, .cancelled), "cancel left", step(.cancelled, .allTouchesUp, .possible)]),
                Row(state: state, event: .caught(.left), expect: state, actions: [bug(.caught, state)]),
                Row(state: state, event: .bindingUnavailable, expect: began ? .failed : state,
                    actions: began ? [step(.began, .bindingUnavailable, .failed), "fail no-binding left"] : [bug(.bindingUnavailable, .changed)]),
                Row(state: state, event: .swipe, variant: "as many fingers as a swipe binding wants", expect: began ? .failed : state,
                    actions: began ? [step(.began, .swipe, .failed), "fail swipe"] : [bug(.swipe, .changed)]),
                Row(state: state, event: .deviceRemoved, expect: .possible,
                    actions: [step(state, .deviceRemoved, .cancelled), "cancel left", step(.cancelled, .allTouchesUp, .possible)]),
                Row(state: state, event: .eventsDropped, expect: .possible,
                    actions: [step(state, .eventsDropped, .cancelled), "cancel left", step(.cancelled, .allTouchesUp, .possible)]),
                Row(state: state, event: .allTouchesUp, expect: state, actions: [bug(.allTouchesUp, state)]),
            ]
        }
        // ended, cancelled, failed: the sequence is over; the machine waits for the last finger to lift.
        for state in [R.StateName.ended, .cancelled, .failed] {
            rows += [
                Row(state: state, event: down(2, interior), variant: "another finger", expect: state, actions: []),
                Row(state: state, event: .touchMotion(touch: 1, to: interior), expect: state, actions: []),
                Row(state: state, event: .touchUp(touch: 1), variant: "the last finger", expect: .possible,
                    actions: [step(state, .allTouchesUp, .possible)]),
                Row(state: state, event: .touchUp(touch: 1), variant: "a finger still down", extra: [down(2, interior)],
                    expect: state, actions: []),
                Row(state: state, event: .touchCancel(touch: 1), variant: "the last finger", expect: .possible,
                    actions: [step(state, .allTouchesUp, .possible)]),
                Row(state: state, event: .caught(.left), expect: state, actions: [bug(.caught, state)]),
                Row(state: state, event: .bindingUnavailable, expect: state, actions: [bug(.bindingUnavailable, state)]),
                Row(state: state, event: .swipe, expect: state, actions: [bug(.swipe, state)]),
                Row(state: state, event: .deviceRemoved, expect: .possible, actions: [step(state, .allTouchesUp, .possible)]),
                Row(state: state, event: .eventsDropped, expect: .possible, actions: [step(state, .allTouchesUp, .possible)]),
                Row(state: state, event: .allTouchesUp, variant: "a finger still down", expect: state, actions: [bug(.allTouchesUp, state)]),
            ]
        }
        return rows
    }()

    static func makeMachine() -> R { R(settings: .touchscreen, device: device) }

    /// Actions that are not log lines, as `track left`, `begin left`, ….
    static func describe(_ action: R.Action, after event: R.EventName) -> String {
        if let line = action.logLine { return line }
        switch action {
        case .output(.track(_, let candidates)): return "track " + candidates.members.map(\.rawValue).joined(separator: ",")
        case .output(.begin(let m)): return "begin \(m.edge.rawValue)"
        case .output(.change(let m)): return "change \(m.edge.rawValue)"
        case .output(.end(let m)): return "end \(m.edge.rawValue)"
        case .output(.cancel(let m)): return "cancel \(m.edge.rawValue)"
        case .output(.fail(let reason, let m)): return "fail \(reason.rawValue)" + (m.map { " \($0.edge.rawValue)" } ?? "")
        case .transitioned, .bug: return ""
        }
    }

    @Test("each state is reached by its setup")
    func setupsReachTheirStates() {
        #expect(Self.statesNotReached == [])
    }

    @Test("every pair: the new state, the actions and the log lines", arguments: table)
    func pair(_ row: Row) {
        Self.expectRow(row)
    }

    @Test("the table covers every (state, event) pair")
    func everyPair() {
        #expect(Self.pairsMissing == [])
    }

    @Test("actions carry their data: the edge, the translation and the velocity the engine needs")
    func actionsCarryData() {
        var r = R(settings: .touchscreen, device: Self.device)
        _ = r.handle(Self.down(0), at: MonotonicInstant(microseconds: 1_000_000))
        let actions = r.handle(.touchMotion(touch: 0, to: Self.inward), at: MonotonicInstant(microseconds: 1_010_000))
        guard case .output(.begin(let m))? = actions.last else {
            Issue.record("expected a begin, got \(Array(actions))")
            return
        }
        #expect(m.edge == .left)
        #expect(m.fingers == 1)
        #expect(m.location == Self.inward)
        #expect(abs(m.translation.x * 345.6 - 3) < 1e-9)
        #expect(abs(m.velocity.x * 345.6 - 300) < 1e-6, "3 mm in 10 ms")
    }
}
