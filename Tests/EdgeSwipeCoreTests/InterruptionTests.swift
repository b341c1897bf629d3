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

    /// What catches a run-out: a finger at the edge, or three fingers swiping (scripted frames, through the
    /// detector).
    enum Catcher: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case edge, swipe
        var testDescription: String { rawValue }
    }

    @Test("a caught run-out, from an edge or from a swipe: the interaction begins exactly where the run-out is, and the fingers carry it on", arguments: Catcher.allCases)
    func caughtWhereTheRunOutIs(_ catcher: Catcher) throws {
        let device = TestDevices.cintiq
        var engine: Engine
        let script: FingerScript
        switch catcher {
        case .edge:
            engine = Engine(configuration: .default)
            let release = FingerScript.edgeSwipe(.left, travel: 0.3, on: device)
            script = release + FingerScript.path(
                finger: 1, on: device, startMS: Double(release.end.value) / 1000 + 60,
                points: [(0, 0.002, 0.4), (300, 0.502, 0.4), (600, 0.502, 0.4)])
        case .swipe:
            // The detector takes its time to be sure of three fingers: a slower run-out leaves it that time.
            var configuration = MultiFingerSwipeTests.configuration()
            configuration.animator.duration = .milliseconds(1000)
            engine = Engine(configuration: configuration)
            // 18 mm of 60 (cancelling), then the same three fingers again 20 ms after the last lifted.
            let first = MultiFingerSwipe(
                fingers: 3, direction: .left, travelMM: 18, center: MultiFingerSwipeTests.center(for: .left), spacingMM: 15,
                landingStagger: .milliseconds(5), settle: .milliseconds(10), liftStagger: .milliseconds(2))
            var second = first
            second.travelMM = 42
            let release = FingerScript.multiFingerSwipe(first, on: device)
            script = release + FingerScript.multiFingerSwipe(
                second, on: device, firstFinger: 3, start: release.end + .milliseconds(20))
        }
        let events = engine.play(script, on: device)
        #expect(Set(events.transitions.map(\.id)).count == 1, "the catch continues the same transition")
        #expect(events.phases == [.began, .changed, .cancelling, .changed, .finishing, .completed])
        #expect(events.interactions.map(\.phase) == [.ended, .began, .ended])
        #expect(events.gestures.filter { $0.state == .began }.count == 2)
        // The run-out the catch interrupts, and the interaction that begins there: its percent and velocity are the
        // run-out's at that instant, and so is the transition's first report after it.
        let runOut = try #require(events.transitions.first { $0.phase == .cancelling }?.animation)
        let began = try #require(events.interactions.first { $0.phase == .began })
        #expect(began.percent == runOut.percent(at: began.time))
        #expect(began.velocity == runOut.velocity(at: began.time))
        #expect(began.percent > .zero && began.percent < Percent(0.3))
        let caughtBegan = try #require(events.gestures.last { $0.state == .began })
        #expect(caughtBegan.transition == began.transition && caughtBegan.time == began.time)
        let caught = try #require(events.transitions.first { $0.phase == .changed && $0.time >= began.time })
        #expect(caught.time == began.time && caught.percent == began.percent && caught.interactive)
        // Then the fingers carry it on from there: after the catch, the percent is the caught one plus the fingers'
        // travel since, at one reference (the percent is clamped at 1, so the steps stop short of it).
        let steps: [(percent: Double, travelMM: Double)] = events.gestures
            .filter { $0.state == .changed && $0.time > began.time }
            .compactMap { g in
                guard let t = events.transitions.last(where: { $0.phase == .changed && $0.time == g.time }), t.percent < .complete else { return nil }
                return (t.percent.value - began.percent.value, abs(g.translation.x))
            }
        #expect(steps.count > 5)
        let perMM = try #require(steps.first.map { $0.percent / $0.travelMM })
        #expect(perMM > 0)
        for s in steps { #expect(abs(s.percent - s.travelMM * perMM) < 1e-9, "\(s)") }
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
