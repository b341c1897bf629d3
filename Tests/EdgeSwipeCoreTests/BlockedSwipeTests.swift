import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

/// Swipes with nowhere to go: an edge whose bindings cannot run now still begins, streams a blocked gesture and,
/// with the rubber band, a bounded displacement that springs back to exactly 0.
@Suite("Blocked swipes and the rubber band")
struct BlockedSwipeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var containers: [Container]
        var binding: Binding
        var overscroll: Overscroll
        var device: TouchDevice
        var testDescription: String { "\(name), \(overscroll.name), \(device.name)" }

        var configuration: EngineConfiguration {
            EngineConfiguration(containers: containers, bindings: [binding], overscroll: overscroll)
        }
    }

    static let places: [(String, [Container], Binding)] = [
        ("the root of a stack", [Container(name: "app", content: .navigation(stack: ["home"]))],
         Binding(edge: .left, container: "app", operation: .pop)),
        ("the last tab", [Container(name: "shell", content: .tabs(tabs: ["a", "b", "c"], selected: 2))],
         Binding(edge: .right, container: "shell", operation: .nextTab)),
        ("nothing to dismiss", [Container(name: "overlay", content: .modal(base: "shell", presented: []))],
         Binding(edge: .bottom, container: "overlay", operation: .dismiss)),
    ]

    static let cases: [Case] = places.flatMap { place in
        [Overscroll.default, .none].flatMap { overscroll in
            [TestDevices.cintiq, TestDevices.synapticsI2C].map {
                Case(name: place.0, containers: place.1, binding: place.2, overscroll: overscroll, device: $0)
            }
        }
    }

    @Test("it begins, streams began, changed… ended with no transition and says why", arguments: cases)
    func blocked(_ c: Case) throws {
        var engine = Engine(configuration: c.configuration)
        let edge = try #require(c.binding.edge)
        let events = engine.play(.edgeSwipe(edge, travel: 0.6, on: c.device, release: .whileMoving), on: c.device)
        let gestures = events.gestures
        #expect(events.gestureStates == [.began, .changed, .ended])
        #expect(gestures.allSatisfy { $0.edge == c.binding.edge && $0.blocked == .noApplicableBinding && $0.transition == nil })
        #expect(events.transitions.isEmpty)
        #expect(engine.containers == c.containers, "nothing moved")
        let end = try #require(gestures.last)
        switch c.overscroll {
        case .none:
            #expect(gestures.allSatisfy { $0.overscroll == nil && $0.overscrollMM == nil && $0.animation == nil })
        case .rubberBand(let band):
            let amounts = gestures.compactMap(\.overscroll)
            #expect(amounts.count == gestures.count)
            #expect(amounts.allSatisfy { $0 >= .zero && $0 < band.limit }, "bounded by \(band.limit)")
            #expect(zip(amounts, amounts.dropFirst()).allSatisfy { $0 <= $1 }, "a pull inward only grows")
            #expect((amounts.last ?? .zero) > Percent(0.02), "a long pull shows most of the band")
            #expect(gestures.allSatisfy { ($0.overscrollMM?.value ?? -1) >= 0 })
            let spring = try #require(end.animation)
            #expect(spring.fromPercent == end.overscroll)
            #expect(spring.toPercent == .zero)
            #expect(spring.percent(at: spring.end) == .zero, "back to exactly 0")
            #expect(spring.start == end.time)
            var t = spring.start
            while t < spring.end {
                let p = spring.percent(at: t)
                #expect(p >= .zero && p <= spring.fromPercent, "never past where the finger left it")
                t = t.advanced(by: .milliseconds(2))
            }
            #expect(gestures.dropLast().allSatisfy { $0.animation == nil })
        }
    }

    @Test("the band: slope 0.5 at first, bounded by 0.05, smooth, and the spring starts at its velocity")
    func band() {
        let band = RubberBand.niri
        #expect(band.displacement(.zero) == .zero)
        #expect(band.displacement(Percent(-1)) == .zero)
        #expect(abs(band.displacement(Percent(1e-6)).value - 0.5e-6) < 1e-10)
        #expect(band.slope(at: .zero) == 0.5)
        var previous = Percent.zero
        for i in 1...1000 {
            let d = band.displacement(Percent(Double(i) / 100))
            #expect(d > previous && d < band.limit)
            previous = d
        }
        #expect(band.displacement(Percent(.infinity)) == .zero, "not a number of pull shows nothing")
        let spring = band.springBack(from: Percent(0.03), velocity: PercentPerSecond(-0.2), at: .zero)
        #expect(spring.initialVelocity == PercentPerSecond(-0.2))
        let away = band.springBack(from: Percent(0.03), velocity: PercentPerSecond(2), at: .zero)
        #expect(away.initialVelocity == .zero, "a velocity away from 0 is not kept")
        #expect(away.percent(at: away.end) == .zero)
    }

    @Test("it stays blocked until lift, even when a binding becomes applicable under the finger")
    func staysBlockedUntilLift() throws {
        let config = EngineConfiguration(
            containers: [Container(name: "app", content: .navigation(stack: ["home"]))],
            bindings: [Binding(edge: .left, container: "app", operation: .pop)])
        var engine = Engine(configuration: config)
        let device = TestDevices.cintiq
        var events: [EngineEvent] = []
        engine.addDevice(device, at: .zero, into: &events)
        let frames = FingerScript.edgeSwipe(.left, travel: 0.5, on: device).frames(on: device)
        let half = frames.count / 2
        for frame in frames[..<half] { engine.handle(frame, into: &events) }
        // A client pushes a scene: pop now applies.
        try engine.request(.push(scene: "detail"), in: "app", animated: false, at: frames[half].time, into: &events)
        for frame in frames[half...] { engine.handle(frame, into: &events) }
        engine.tickUntilSettled(into: &events)
        #expect(events.gestures.allSatisfy { $0.blocked == .noApplicableBinding && $0.transition == nil })
        #expect(events.transitions.map(\.operation) == [.push(scene: "detail"), .push(scene: "detail"), .push(scene: "detail")])
        // The next swipe pops.
        let next = FingerScript.edgeSwipe(.left, travel: 0.7, on: device).frames(on: device, origin: MonotonicInstant(microseconds: 5_000_000))
        var after: [EngineEvent] = []
        for frame in next {
            engine.tick(through: frame.time, into: &after)
            engine.handle(frame, into: &after)
        }
        engine.tickUntilSettled(into: &after)
        #expect(after.gestures.allSatisfy { $0.blocked == nil })
        #expect(after.terminalPhases == [.completed])
        #expect(engine.containers.first?.content == .navigation(stack: ["home"]))
    }

    @Test("a lost device cancels a blocked gesture, which springs back too")
    func lostWhileBlocked() throws {
        let config = EngineConfiguration(
            containers: [Container(name: "app", content: .navigation(stack: ["home"]))],
            bindings: [Binding(edge: .left, container: "app", operation: .pop)])
        var engine = Engine(configuration: config)
        let device = TestDevices.cintiq
        var events = engine.play(.edgeSwipe(.left, travel: 0.5, on: device).cut(at: .milliseconds(300)), on: device, settle: false)
        engine.removeDevice(device.id, at: MonotonicInstant(microseconds: 2_000_000), into: &events)
        #expect(events.gestureStates == [.began, .changed, .cancelled])
        let cancelled = try #require(events.gestures.last)
        #expect(cancelled.blocked == .noApplicableBinding)
        #expect(cancelled.animation.map { $0.percent(at: $0.end) } == .zero)
        #expect(engine.nextDeadline == nil, "the bounce is the client's to draw: nothing ticks")
    }

    @Test("an edge whose bindings all want other finger counts fails the swipe instead")
    func otherFingerCounts() {
        let config = EngineConfiguration(
            containers: [Container(name: "shell", content: .tabs(tabs: ["a", "b"], selected: 0))],
            bindings: [Binding(edge: .left, fingers: 2...2, container: "shell", operation: .nextTab)])
        var engine = Engine(configuration: config)
        let events = engine.play(.edgeSwipe(.left, travel: 0.5, on: TestDevices.cintiq), on: TestDevices.cintiq)
        #expect(events.gestureStates == [.failed])
        #expect(events.gestures.first?.failure == .noBinding)
        #expect(events.transitions.isEmpty)
    }

    @Test("a busy container blocks its edge while a request runs")
    func busy() throws {
        var engine = Engine(configuration: .default)
        let device = TestDevices.cintiq
        var events: [EngineEvent] = []
        engine.addDevice(device, at: .zero, into: &events)
        // The right edge's only binding is the shell's next tab; a request keeps the shell busy for 350 ms.
        try engine.request(.selectTab(index: 0), in: "shell", at: MonotonicInstant(microseconds: 1_000_000), into: &events)
        for frame in FingerScript.edgeSwipe(.right, travel: 0.3, on: device, durationMS: 150, release: .whileMoving).frames(on: device) {
            engine.tick(through: frame.time, into: &events)
            engine.handle(frame, into: &events)
        }
        engine.tickUntilSettled(into: &events)
        #expect(events.gestures.first?.blocked == .noApplicableBinding)
        #expect(events.terminalPhases == [.completed], "only the request's transition")
    }
}
