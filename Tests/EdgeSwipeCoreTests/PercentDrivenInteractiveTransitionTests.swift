import EdgeSwipeTestSupport
import Testing
@testable import EdgeSwipeCore

/// The interactive transition's state machine, pair by pair: every (state, event) is a row of the table below,
/// with the state it leaves the machine in and its actions, log lines included. `docs/ARCHITECTURE.md`'s
/// diagram is checked against the same table (`StateDiagramTests`). The rows are played by the shared runner
/// (`StateMachineTable`, in the test support); reports are described as `report <phase> <percent>[ animation][
/// progress-only]`.
@Suite("PercentDrivenInteractiveTransition: every state and event")
struct PercentDrivenInteractiveTransitionTests: StateMachineTable {
    typealias Machine = PercentDrivenInteractiveTransition
    typealias T = PercentDrivenInteractiveTransition
    typealias Phase = T.Phase
    typealias Event = T.Event

    static let start = tableStart
    static let half = Progress(percent: Percent(0.5), velocity: PercentPerSecond(1))

    /// How to reach each state from a new interactive transition (350 ms, linear run-outs).
    static let setups: [Phase: [Event]] = [
        .began: [],
        .changed: [.update(half)],
        .finishing: [.update(half), .finish(velocity: .zero)],
        .cancelling: [.update(half), .cancel(velocity: .zero)],
        .completed: [.update(half), .finish(velocity: .zero), .runOutEnded],
        .cancelled: [.update(half), .cancel(velocity: .zero), .runOutEnded],
    ]

    static let table: [Row] = {
        let quarter = Progress(percent: Percent(0.25), velocity: PercentPerSecond(0.5))
        var rows: [Row] = []
        for (state, began) in [(Phase.began, true), (.changed, false)] {
            let at = began ? "0.0" : "0.5"
            rows += [
                Row(state: state, event: .update(quarter), expect: .changed,
                    actions: (began ? [step(.began, .update, .changed)] : []) + ["report changed 0.25" + (began ? "" : " progress-only")]),
                Row(state: state, event: .finish(velocity: PercentPerSecond(2)), expect: .finishing,
                    actions: [step(state, .finish, .finishing), "report finishing \(at) animation"]),
                Row(state: state, event: .cancel(velocity: .zero), expect: .cancelling,
                    actions: [step(state, .cancel, .cancelling), "report cancelling \(at) animation"]),
                Row(state: state, event: .caught, expect: state, actions: [bug(.caught, state)]),
                Row(state: state, event: .tick, expect: state, actions: [bug(.tick, state)]),
                Row(state: state, event: .runOutEnded, expect: state, actions: [bug(.runOutEnded, state)]),
                Row(state: state, event: .abort, expect: .cancelled, actions: [step(state, .abort, .cancelled), "report cancelled 0.0"]),
            ]
        }
        for (state, end) in [(Phase.finishing, Phase.completed), (.cancelling, .cancelled)] {
            rows += [
                Row(state: state, event: .update(quarter), expect: state, actions: [bug(.update, state)]),
                Row(state: state, event: .finish(velocity: .zero), expect: state, actions: [bug(.finish, state)]),
                Row(state: state, event: .cancel(velocity: .zero), expect: state, actions: [bug(.cancel, state)]),
                Row(state: state, event: .caught, expect: .changed, actions: [step(state, .caught, .changed), "report changed"]),
                Row(state: state, event: .tick, expect: state, actions: ["report \(state.rawValue) progress-only"]),
                Row(state: state, event: .runOutEnded, expect: end,
                    actions: [step(state, .runOutEnded, end), "report \(end.rawValue) \(end == .completed ? "1.0" : "0.0")"]),
                Row(state: state, event: .abort, expect: .cancelled, actions: [step(state, .abort, .cancelled), "report cancelled 0.0"]),
            ]
        }
        for state in [Phase.completed, .cancelled] {
            for event in [Event.update(quarter), .finish(velocity: .zero), .cancel(velocity: .zero), .caught, .tick, .runOutEnded, .abort] {
                rows.append(Row(state: state, event: event, expect: state, actions: [bug(T.name(of: event), state)]))
            }
        }
        return rows
    }()

    /// A new interactive transition: 350 ms, linear run-outs.
    static func makeMachine() -> T { T(duration: .milliseconds(350), completionSpeed: 1, completionCurve: .linear) }

    /// A report, described: the phase, the percent (left out where it depends on the time into a run-out: a
    /// tick, a catch), whether it starts an animation and whether it is progress only.
    static func describe(_ action: T.Action, after event: T.EventName) -> String {
        if let line = action.logLine { return line }
        guard case .output(let r) = action else { return "" }
        var s = "report \(r.phase.rawValue)"
        if event != .tick && event != .caught { s += " \(r.progress.percent.value)" }
        if r.animation != nil { s += " animation" }
        if r.isProgressOnly { s += " progress-only" }
        return s
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

    @Test("a run-out starts where the finger left it, at its velocity, and ends exactly at 1 or 0")
    func runOutData() throws {
        var t = T(duration: .milliseconds(350))
        _ = t.handle(.update(Self.half), at: Self.start)
        let released = t.handle(.finish(velocity: PercentPerSecond(2)), at: Self.start)
        guard case .output(let r)? = released.last, let spec = r.animation else {
            Issue.record("expected a report with an animation")
            return
        }
        #expect(spec.fromPercent == Percent(0.5))
        #expect(spec.toPercent == .complete)
        #expect(spec.initialVelocity == PercentPerSecond(2))
        #expect(spec.start == Self.start)
        let ended = t.handle(.runOutEnded, at: spec.end)
        guard case .output(let last)? = ended.last else {
            Issue.record("expected a terminal report")
            return
        }
        #expect(last.phase == .completed)
        #expect(last.progress == Progress(percent: .complete, velocity: .zero))
    }

    @Test("a NaN percent is ignored and a velocity that is not finite counts as 0")
    func badNumbers() {
        var t = T(duration: .milliseconds(350))
        _ = t.handle(.update(Self.half), at: Self.start)
        let actions = t.handle(.update(Progress(percent: Percent(.nan), velocity: PercentPerSecond(.infinity))), at: Self.start)
        #expect(Array(actions) == [.output(T.Report(
            phase: .changed, progress: Progress(percent: Percent(0.5), velocity: .zero), animation: nil, isProgressOnly: true))])
    }
}
