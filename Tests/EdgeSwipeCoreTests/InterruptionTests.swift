import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

@Suite("Interruptions: catching, removal, lost events, refusals")
struct InterruptionTests {
    typealias Phase = PercentDrivenInteractiveTransition.Phase

    @Test("a touch in the same edge zone catches the run-out: same id, no terminal in between", arguments: [
        // Released at 30 % (cancelling); caught at the edge and pushed on to finish.
        (0.3, 0.5, [Phase.began, .changed, .cancelling, .changed, .finishing, .completed]),
        // Released at 55 % (finishing); caught and held still: judged where it was caught.
        (0.4, 0.0, [Phase.began, .changed, .finishing, .changed, .finishing, .completed]),
    ])
    func regrabDuringRunOut(_ firstTravel: Double, _ secondTravel: Double, _ expected: [Phase]) throws {
        let release = FingerScript.edgeSwipe(.left, travel: firstTravel, on: TestDevices.cintiq)
        let releaseMS = Double(release.end.value) / 1000
        let regrab = FingerScript.path(
            finger: 1, on: TestDevices.cintiq, startMS: releaseMS + 60,
            points: [(0, 0.002, 0.4), (300, 0.002 + secondTravel, 0.4), (600, 0.002 + secondTravel, 0.4)])
        var engine = Engine(configuration: .default)
        let events = engine.play(release + regrab, on: TestDevices.cintiq)
        #expect(Set(events.transitions.map(\.id)).count == 1, "the catch continues the same transition")
        #expect(events.phases == expected)
        #expect(events.terminalPhases == [.completed])
        let caughtAt = UInt64(1_000_000 + (releaseMS + 60) * 1000)
        let caught = try #require(events.transitions.first { $0.phase == .changed && $0.time.microseconds >= caughtAt })
        #expect(caught.interactive)
        let released = try #require(events.transitions.first { $0.phase.isRunningOut })
        #expect(caught.percent > .zero && caught.percent < .complete)
        #expect(abs(caught.percent.value - released.percent.value) < 0.2, "held near where the run-out was, not reset")
        #expect(events.gestures.filter { $0.state == .began }.count == 2)
    }

    @Test("a device removed mid-gesture cancels, and is reported")
    func deviceRemoved() {
        var engine = Engine(configuration: .default)
        var events = engine.play(.edgeSwipe(.left, travel: 0.7, on: TestDevices.cintiq, release: .atRest), on: TestDevices.cintiq, settle: false)
        // Cut the script short: remove before the finger lifts.
        var partial = Engine(configuration: .default)
        let script = FingerScript.edgeSwipe(.left, travel: 0.7, on: TestDevices.cintiq).cut(at: .milliseconds(300))
        events = partial.play(script, on: TestDevices.cintiq, settle: false)
        partial.removeDevice(TestDevices.cintiq.id, at: MonotonicInstant(microseconds: 3_000_000), into: &events)
        partial.tickUntilSettled(into: &events)
        #expect(events.gestureStates == [.began, .changed, .cancelled])
        #expect(events.terminalPhases == [.cancelled])
        #expect(events.contains { if case .device(let d) = $0 { d.change == .removed } else { false } })
        #expect(partial.knownDevices.isEmpty)
        _ = engine
    }

    @Test("lost events (SYN_DROPPED) mid-gesture cancel")
    func eventsLost() {
        var engine = Engine(configuration: .default)
        let script = FingerScript.edgeSwipe(.top, travel: 0.7, on: TestDevices.cintiq).cut(at: .milliseconds(300))
        var events = engine.play(script, on: TestDevices.cintiq, settle: false)
        engine.eventsLost(on: TestDevices.cintiq.id, at: MonotonicInstant(microseconds: 3_000_000), into: &events)
        engine.tickUntilSettled(into: &events)
        #expect(events.gestureStates == [.began, .changed, .cancelled])
        #expect(events.terminalPhases == [.cancelled])
    }

    @Test("a second request while a transition runs is refused, never interleaved")
    func secondRequestRefused() throws {
        var engine = Engine(configuration: .default)
        var events: [EngineEvent] = []
        let first = try engine.request(.nextTab, in: "shell", at: MonotonicInstant(microseconds: 10), into: &events)
        #expect(throws: TransitionRefusal.busy(container: "shell", running: first)) {
            try engine.request(.previousTab, in: "shell", at: MonotonicInstant(microseconds: 20), into: &events)
        }
        engine.tickUntilSettled(into: &events)
        #expect(events.terminalPhases == [.completed])
        // Once it ended, the next one runs.
        try engine.request(.previousTab, in: "shell", at: MonotonicInstant(microseconds: 2_000_000), into: &events)
        engine.tickUntilSettled(into: &events)
        #expect(events.terminalPhases == [.completed, .completed])
    }

    @Test("requests that cannot apply say why", arguments: [
        (TransitionOperation.pop, "app", "not-applicable"),
        (.dismiss, "overlay", "not-applicable"),
        (.push(scene: "x"), "shell", "wrong-container-kind"),
        (.pop, "nowhere", "unknown-container"),
        (.selectTab(index: 7), "shell", "not-applicable"),
    ])
    func refusals(_ op: TransitionOperation, _ container: String, _ code: String) {
        var engine = Engine(configuration: .default)
        var events: [EngineEvent] = []
        do {
            try engine.request(op, in: container, at: .zero, into: &events)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == code)
            #expect(!error.description.isEmpty)
        }
        #expect(events.transitions.isEmpty)
    }

    @Test("a non-interactive transition runs the animator's full duration; unanimated completes at once")
    func nonInteractive() throws {
        var engine = Engine(configuration: .default)
        var events: [EngineEvent] = []
        let start = MonotonicInstant(microseconds: 5_000_000)
        try engine.request(.present(scene: "sheet", style: .fullScreen, frame: nil), in: "overlay", at: start, into: &events)
        engine.tickUntilSettled(into: &events)
        let finishing = try #require(events.transitions.first { $0.phase == .finishing })
        #expect(finishing.animation?.duration == .milliseconds(350))
        #expect(!finishing.interactive)
        #expect(events.transitions.last?.time == start.advanced(by: .milliseconds(350)))
        var quick: [EngineEvent] = []
        try engine.request(.dismiss, in: "overlay", animated: false, at: start.advanced(by: .seconds(1)), into: &quick)
        #expect(quick.phases == [.began, .finishing, .completed])
        #expect(engine.containers.first { $0.name == "overlay" }?.content == .modal(base: "shell", presented: []))
    }

    @Test("cancelAll ends every transition with its terminal event")
    func cancelAll() throws {
        var engine = Engine(configuration: .default)
        let script = FingerScript.edgeSwipe(.right, travel: 0.7, on: TestDevices.cintiq).cut(at: .milliseconds(300))
        var events = engine.play(script, on: TestDevices.cintiq, settle: false)
        try engine.request(.present(scene: "s", style: .custom, frame: nil), in: "overlay", at: MonotonicInstant(microseconds: 1_100_000), into: &events)
        engine.cancelAll(at: MonotonicInstant(microseconds: 1_200_000), into: &events)
        #expect(events.terminalPhases == [.cancelled, .cancelled])
        #expect(engine.nextDeadline == nil)
        #expect(engine.snapshot.running.isEmpty)
        #expect(engine.containers == EngineConfiguration.default.containers)
    }
}
