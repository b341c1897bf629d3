import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

struct SwipeCase: CustomTestStringConvertible, Sendable {
    var device: TouchDevice
    var edge: Edge
    var travel: Double
    var durationMS: Double = 400
    var release: EdgeSwipe.Release = .atRest
    var expect: PercentDrivenInteractiveTransition.Phase
    var testDescription: String { "\(device.name) \(edge) to \(travel) \(release) -> \(expect)" }
}

@Suite("Edge swipes drive transitions")
struct EngineSwipeTests {
    static let committedAndCancelled: [SwipeCase] = TestDevices.all.flatMap { device in
        Edge.allCases.flatMap { edge in
            // Travel is a fraction of the axis; the touchpad's reference is 60 mm of a 101 x 57 mm pad, so
            // its "well past half" and "well short of half" are scaled to the reference.
            let ref = PercentReference.defaults(for: device.kind).fraction(across: edge, on: device)
            return [
                SwipeCase(device: device, edge: edge, travel: min(0.95, 0.75 * ref), expect: .completed),
                SwipeCase(device: device, edge: edge, travel: 0.3 * ref, expect: .cancelled),
            ]
        }
    }

    @Test("every edge, committed and cancelled, on every kind of device", arguments: committedAndCancelled)
    func everyEdge(_ swipe: SwipeCase) {
        var engine = Engine(configuration: .default)
        let events = engine.play(
            .edgeSwipe(swipe.edge, travel: swipe.travel, on: swipe.device, durationMS: swipe.durationMS, release: swipe.release),
            on: swipe.device)
        #expect(events.gestureStates == [.began, .changed, .ended])
        #expect(events.gestures.allSatisfy { $0.edge == swipe.edge })
        #expect(events.terminalPhases == [swipe.expect])
        let phases = events.phases
        #expect(phases.first == .began)
        #expect(phases.contains(swipe.expect == .completed ? .finishing : .cancelling))
        let last = events.transitions.last
        #expect(last?.percent == (swipe.expect == .completed ? .complete : .zero))
    }

    @Test("a flick finishes below the threshold; a flick back cancels above it", arguments: [
        // A fast 25 % stroke lifted while moving: projected past 50 %.
        (FingerScript.edgeSwipe(.left, travel: 0.25, on: TestDevices.nexus4, durationMS: 90, release: .whileMoving), PercentDrivenInteractiveTransition.Phase.completed),
        // The same 25 % released at rest: cancelled.
        (FingerScript.edgeSwipe(.left, travel: 0.25, on: TestDevices.nexus4, durationMS: 90, release: .atRest), .cancelled),
        // 75 %, a pause, then a fast flick back to 60 %, lifted while moving: cancelled although above the threshold.
        (FingerScript.path(on: TestDevices.nexus4, points: [(0, 0.002, 0.5), (500, 0.75, 0.5), (700, 0.75, 0.5), (780, 0.6, 0.5)]), .cancelled),
        // 75 % then resting: completed.
        (FingerScript.path(on: TestDevices.nexus4, points: [(0, 0.002, 0.5), (500, 0.75, 0.5), (800, 0.75, 0.5)]), .completed),
    ])
    func releaseVelocityDecides(_ script: FingerScript, _ expected: PercentDrivenInteractiveTransition.Phase) {
        var engine = Engine(configuration: .default)
        let events = engine.play(script, on: TestDevices.nexus4)
        #expect(events.terminalPhases == [expected])
    }

    @Test("motion along the edge fails and starts nothing", arguments: Edge.allCases)
    func alongTheEdgeFails(_ edge: Edge) {
        let start: (Double, Double) = switch edge {
        case .left: (0.002, 0.3)
        case .right: (0.998, 0.3)
        case .top: (0.3, 0.002)
        case .bottom: (0.3, 0.998)
        }
        let end = edge.isHorizontal ? (start.0, 0.7) : (0.7, start.1)
        var engine = Engine(configuration: .default)
        let events = engine.play(.path(on: TestDevices.cintiq, points: [(0, start.0, start.1), (300, end.0, end.1)]), on: TestDevices.cintiq)
        #expect(events.gestureStates == [.failed])
        #expect(events.gestures.first?.failure == .notInward)
        #expect(events.transitions.isEmpty)
    }

    @Test("an interior touch never begins, and says nothing")
    func interiorTouch() {
        var engine = Engine(configuration: .default)
        let events = engine.play(.path(on: TestDevices.cintiq, points: [(0, 0.5, 0.5), (300, 0.9, 0.5)]), on: TestDevices.cintiq)
        #expect(events.gestures.isEmpty)
        #expect(events.transitions.isEmpty)
    }

    @Test("a touch lifted before beginning fails")
    func liftBeforeBeginning() {
        var engine = Engine(configuration: .default)
        let events = engine.play(.path(on: TestDevices.cintiq, points: [(0, 0.003, 0.5), (30, 0.004, 0.5)]), on: TestDevices.cintiq)
        #expect(events.gestureStates == [.failed])
        #expect(events.gestures.first?.failure == .lifted)
        #expect(events.transitions.isEmpty)
    }

    @Test("an edge with no binding at all never begins, and says nothing")
    func unboundEdge() {
        var config = EngineConfiguration.default
        config.bindings = [Binding(edge: .left, container: "app", operation: .pop)]
        var engine = Engine(configuration: config)
        let events = engine.play(.edgeSwipe(.right, travel: 0.7, on: TestDevices.cintiq), on: TestDevices.cintiq)
        #expect(events.gestures.isEmpty)
        #expect(events.transitions.isEmpty)
    }

    @Test("the percent follows the finger over the reference length")
    func percentFollowsFinger() {
        var engine = Engine(configuration: .default)
        let events = engine.play(.edgeSwipe(.left, travel: 0.4, on: TestDevices.cintiq, release: .atRest), on: TestDevices.cintiq)
        // The Cintiq is 345.6 mm wide; the reference is capped at 250 mm: 0.4 of the width is 138.2 mm = 55 %.
        let interactive = events.transitions.filter { $0.phase == .changed }
        let expected = (0.4) * 345.6 / 250
        #expect(abs((interactive.last?.percent.value ?? 0) - expected) < 0.001)
        #expect(events.terminalPhases == [.completed])
        let percents = events.transitions.map(\.percent)
        #expect(percents.allSatisfy { (Percent.zero...Percent.complete).contains($0) })
    }

    @Test("there is no jump in percent or velocity at release")
    func continuousRelease() throws {
        var engine = Engine(configuration: .default)
        let events = engine.play(.edgeSwipe(.left, travel: 0.3, on: TestDevices.nexus4, durationMS: 200, release: .whileMoving), on: TestDevices.nexus4)
        let transitions = events.transitions
        let releaseIndex = try #require(transitions.firstIndex { $0.phase == .finishing || $0.phase == .cancelling })
        let release = transitions[releaseIndex]
        let before = transitions[releaseIndex - 1]
        let spec = try #require(release.animation)
        #expect(release.percent == before.percent)
        #expect(spec.fromPercent == before.percent)
        #expect(spec.initialVelocity == release.velocity)
        let v0 = spec.initialVelocity.value
        #expect(abs(spec.velocity(at: spec.start).value - v0) < 1e-6 * max(1, abs(v0)))
        #expect(release.velocity > PercentPerSecond(0.5), "the finger was moving inward quickly")
    }

    @Test("a second finger landing mid-gesture does not move the tracked point")
    func secondFinger() {
        let first = FingerScript.edgeSwipe(.left, travel: 0.5, on: TestDevices.cintiq)
        let second = FingerScript.path(finger: 1, on: TestDevices.cintiq, startMS: 100, points: [(0, 0.5, 0.9), (200, 0.1, 0.1)])
        var engine = Engine(configuration: .default)
        let events = engine.play(first + second, on: TestDevices.cintiq)
        var alone = Engine(configuration: .default)
        let reference = alone.play(first, on: TestDevices.cintiq)
        #expect(events.transitions.map(\.percent) == reference.transitions.map(\.percent))
        #expect(events.gestures.contains { $0.fingers == 2 })
        #expect(events.terminalPhases == [.completed])
    }

    @Test("the same input gives the same output")
    func deterministic() {
        let script = FingerScript.edgeSwipe(.right, travel: 0.6, on: TestDevices.cintiq)
            + FingerScript.edgeSwipe(.top, travel: 0.2, on: TestDevices.cintiq, startMS: 2000)
        var a = Engine(configuration: .default)
        var b = Engine(configuration: .default)
        #expect(a.play(script, on: TestDevices.cintiq) == b.play(script, on: TestDevices.cintiq))
    }

    @Test("an idle engine asks for no ticks; an animating one does, at the tick rate")
    func ticksOnlyWhileAnimating() throws {
        var engine = Engine(configuration: .default)
        var events: [EngineEvent] = []
        engine.addDevice(TestDevices.cintiq, at: .zero, into: &events)
        #expect(engine.nextDeadline == nil)
        try engine.request(.nextTab, in: "shell", at: MonotonicInstant(microseconds: 1_000_000), into: &events)
        let deadline = try #require(engine.nextDeadline)
        #expect(deadline == MonotonicInstant(microseconds: 1_000_000 + 8333))
        engine.tickUntilSettled(into: &events)
        #expect(engine.nextDeadline == nil)
        #expect(engine.isIdle)
        let ticks = events.transitions.filter { $0.isProgress }.count
        // 350 ms at 120 Hz.
        #expect(ticks == 350_000 / 8333)
    }
}
