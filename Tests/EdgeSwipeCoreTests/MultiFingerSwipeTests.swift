import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

/// Multi-finger swipes through the engine: from scripted fingers on a touchscreen and on a recorded touchpad (the
/// detector), and from libinput's own swipe events (a live touchpad).
@Suite("Multi-finger swipes: directions, release, cancel, re-grab, arbitration")
struct MultiFingerSwipeTests {
    typealias Phase = PercentDrivenInteractiveTransition.Phase

    /// The default scene graph with 3-finger swipes: left and right switch tabs of `shell` (left shows the next
    /// one, as GNOME's workspaces do), up presents `overview` on `overlay`, down dismisses it; 60 mm is 100 %.
    static func configuration(reference: PercentReference? = .millimeters(60), fingers: ClosedRange<Int> = 3...3) -> EngineConfiguration {
        var c = Self.edgesOnly
        c.bindings += [
            Binding(swipe: .left, fingers: fingers, container: "shell", operation: .nextTab, reference: reference),
            Binding(swipe: .right, fingers: fingers, container: "shell", operation: .previousTab, reference: reference),
            Binding(swipe: .up, fingers: fingers, container: "overlay", operation: .present(scene: "overview", style: .fullScreen, frame: nil), reference: reference),
            Binding(swipe: .down, fingers: fingers, container: "overlay", operation: .dismiss, reference: reference),
        ]
        return c
    }

    /// The default configuration without its swipe bindings.
    static let edgesOnly: EngineConfiguration = {
        var c = EngineConfiguration.default
        c.bindings = c.bindings.filter { $0.direction == nil }
        return c
    }()

    /// Where a swipe starts so that its travel stays on the device: opposite its direction.
    static func center(for direction: SwipeDirection) -> (x: Double, y: Double) {
        let u = direction.unit
        return (0.5 - 0.25 * u.x, 0.5 - 0.25 * u.y)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var device: TouchDevice
        var direction: SwipeDirection
        var travelMM: Double
        var release: EdgeSwipe.Release = .atRest
        var durationMS: Int64 = 300
        var expect: Phase
        var testDescription: String {
            "\(device.kind) \(direction) \(travelMM) mm \(release == .whileMoving ? "flick" : "at rest") -> \(expect)"
        }
    }

    static let directions: [Case] = {
        var cases: [Case] = []
        for device in [TestDevices.cintiq, TestDevices.synapticsI2C] {
            for d in SwipeDirection.allCases {
                // Up first presents, so that down has something to dismiss: each case runs on its own engine,
                // so down is checked after an up below.
                guard d != .down else { continue }
                cases.append(Case(device: device, direction: d, travelMM: 42, expect: .completed))
                cases.append(Case(device: device, direction: d, travelMM: 18, expect: .cancelled))
            }
            // A flick commits well below the threshold.
            cases.append(Case(device: device, direction: .left, travelMM: 15, release: .whileMoving, durationMS: 100, expect: .completed))
        }
        return cases
    }()

    @Test("each direction commits past the threshold and cancels below it; a flick commits below", arguments: directions)
    func direction(_ c: Case) {
        var engine = Engine(configuration: Self.configuration())
        let swipe = MultiFingerSwipe(
            fingers: 3, direction: c.direction, travelMM: c.travelMM, duration: .milliseconds(c.durationMS),
            release: c.release, center: Self.center(for: c.direction), spacingMM: 15)
        let events = engine.play(.multiFingerSwipe(swipe, on: c.device), on: c.device)
        #expect(events.terminalPhases == [c.expect])
        let gestures = events.gestures
        #expect(gestures.allSatisfy { $0.kind == .swipe && $0.trigger == .swipe(c.direction) && $0.fingers == 3 })
        #expect(events.gestureStates == [.began, .changed, .ended])
        let transitions = events.transitions
        #expect(transitions.allSatisfy { $0.swipe == c.direction && $0.swipeFingers == 3 && $0.edge == nil })
        #expect(transitions.first?.container == (c.direction.isHorizontal ? "shell" : "overlay"))
        // The centroid's travel is reported in mm, along the direction.
        if let ended = gestures.last {
            let along = c.direction.along(dx: ended.translation.x, dy: ended.translation.y)
            #expect(abs(along - c.travelMM) < 1.5, "\(along) mm")
        }
        #expect(engine.isIdle)
    }

    @Test("down dismisses what up presented")
    func downAfterUp() {
        var engine = Engine(configuration: Self.configuration())
        let device = TestDevices.synapticsI2C
        let up = FingerScript.multiFingerSwipe(MultiFingerSwipe(fingers: 3, direction: .up, travelMM: 40, center: Self.center(for: .up)), on: device)
        let down = FingerScript.multiFingerSwipe(
            MultiFingerSwipe(fingers: 3, direction: .down, travelMM: 40, center: Self.center(for: .down)), on: device,
            start: up.end + .milliseconds(800))
        let events = engine.play(up + down, on: device)
        #expect(events.terminalPhases == [.completed, .completed])
        #expect(events.transitions.filter { $0.phase == .began }.map(\.operation.name) == ["present", "dismiss"])
    }

    // MARK: - libinput's events

    /// Plays libinput's swipe events: `begin`, then each delta (mm) every 8 ms, then the end.
    static func libinputSwipe(
        _ engine: inout Engine, device: TouchDevice, fingers: Int = 3, deltas: [MillimeterVector], cancelled: Bool = false,
        at start: MonotonicInstant = MonotonicInstant(microseconds: 1_000_000), into events: inout [EngineEvent]
    ) -> MonotonicInstant {
        var t = start
        engine.tick(through: t, into: &events)
        engine.handleSwipe(.begin(fingers: fingers), on: device.id, at: t, into: &events)
        for d in deltas {
            t = t.advanced(by: .milliseconds(8))
            engine.tick(through: t, into: &events)
            engine.handleSwipe(.update(delta: d), on: device.id, at: t, into: &events)
        }
        t = t.advanced(by: .milliseconds(8))
        engine.handleSwipe(.end(cancelled: cancelled), on: device.id, at: t, into: &events)
        return t
    }

    static func repeated(_ x: Double, _ y: Double, _ n: Int) -> [MillimeterVector] { Array(repeating: MillimeterVector(x: x, y: y), count: n) }

    struct Flick: CustomTestStringConvertible, Sendable {
        var name: String
        var deltas: [MillimeterVector]
        var cancelled = false
        var expect: Phase
        var testDescription: String { name }
    }

    static let flicks: [Flick] = [
        Flick(name: "42 mm then rest: commits", deltas: repeated(-2, 0, 21) + repeated(0, 0, 25), expect: .completed),
        Flick(name: "18 mm then rest: cancels", deltas: repeated(-1, 0, 18) + repeated(0, 0, 25), expect: .cancelled),
        Flick(name: "a quick 12 mm flick commits below the threshold", deltas: repeated(-3, 0, 4), expect: .completed),
        Flick(name: "a reverse flick cancels above the threshold", deltas: repeated(-2, 0, 20) + repeated(0, 0, 25) + repeated(3, 0, 3), expect: .cancelled),
        Flick(name: "libinput's cancelled flag cancels at 80 %", deltas: repeated(-2, 0, 24) + repeated(0, 0, 25), cancelled: true, expect: .cancelled),
        Flick(name: "back past the start: percent stays at 0, and cancels", deltas: repeated(-2, 0, 10) + repeated(2, 0, 15) + repeated(0, 0, 25), expect: .cancelled),
    ]

    @Test("libinput's swipes: the same release decision, its cancelled flag, back past the start", arguments: flicks)
    func libinputRelease(_ f: Flick) {
        let device = TestDevices.synapticsI2C
        var engine = Engine(configuration: Self.configuration(), touchpadSwipes: .libinputGestures)
        var events: [EngineEvent] = []
        engine.addDevice(device, at: .zero, into: &events)
        _ = Self.libinputSwipe(&engine, device: device, deltas: f.deltas, cancelled: f.cancelled, into: &events)
        engine.tickUntilSettled(into: &events)
        #expect(events.terminalPhases == [f.expect])
        #expect(events.transitions.allSatisfy { $0.percent >= .zero && $0.percent <= .complete })
        #expect(events.gestures.last?.state == (f.cancelled ? .cancelled : .ended))
        #expect(events.gestures.allSatisfy { $0.trigger == .swipe(.left) })
    }

    @Test("niri's touchpad reference: 300 units (28.5 mm) on both axes")
    func defaultReferences() throws {
        let device = TestDevices.synapticsI2C
        var engine = Engine(configuration: Self.configuration(reference: nil), touchpadSwipes: .libinputGestures)
        var events: [EngineEvent] = []
        engine.addDevice(device, at: .zero, into: &events)
        // 12 mm left: 42 % of 28.5 mm.
        var t = Self.libinputSwipe(&engine, device: device, deltas: Self.repeated(-1, 0, 12) + Self.repeated(0, 0, 25), into: &events)
        let horizontal = try #require(events.transitions.last { $0.phase == .changed })
        #expect(abs(horizontal.percent.value - 12 / (300 / SwipeSettings.libinputUnitsPerMillimeter)) < 1e-9)
        engine.tickUntilSettled(into: &events)
        events.removeAll()
        // 14.25 mm up: half of 28.5 mm.
        t = t.advanced(by: .seconds(2))
        _ = Self.libinputSwipe(&engine, device: device, deltas: Self.repeated(0, -0.75, 19) + Self.repeated(0, 0, 25), at: t, into: &events)
        let vertical = try #require(events.transitions.last { $0.phase == .changed })
        #expect(abs(vertical.percent.value - 14.25 / (300 / SwipeSettings.libinputUnitsPerMillimeter)) < 1e-9)
    }

    @Test("re-grab: a new swipe with as many fingers catches the run-out; the same id, no terminal in between")
    func regrab() throws {
        let device = TestDevices.synapticsI2C
        var engine = Engine(configuration: Self.configuration(), touchpadSwipes: .libinputGestures)
        var events: [EngineEvent] = []
        engine.addDevice(device, at: .zero, into: &events)
        // Released at 30 % (cancelling), caught 50 ms later and pushed on to finish.
        var t = Self.libinputSwipe(&engine, device: device, deltas: Self.repeated(-1, 0, 18) + Self.repeated(0, 0, 25), into: &events)
        #expect(events.transitions.last?.phase == .cancelling)
        t = t.advanced(by: .milliseconds(50))
        _ = Self.libinputSwipe(&engine, device: device, deltas: Self.repeated(-2, 0, 20) + Self.repeated(0, 0, 25), at: t, into: &events)
        engine.tickUntilSettled(into: &events)
        #expect(Set(events.transitions.map(\.id)).count == 1)
        #expect(events.phases == [.began, .changed, .cancelling, .changed, .finishing, .completed])
        #expect(events.interactions.map(\.phase) == [.ended, .began, .ended])
        let caught = try #require(events.transitions.first { $0.phase == .changed && $0.time > t })
        #expect(caught.percent > Percent(0.15) && caught.percent < Percent(0.4), "continues from the run-out, not from 0")
        // A swipe with another finger count does not catch it.
        var other = Engine(configuration: Self.configuration(fingers: 3...4), touchpadSwipes: .libinputGestures)
        var otherEvents: [EngineEvent] = []
        other.addDevice(device, at: .zero, into: &otherEvents)
        let u = Self.libinputSwipe(&other, device: device, deltas: Self.repeated(-1, 0, 18) + Self.repeated(0, 0, 25), into: &otherEvents)
        _ = Self.libinputSwipe(&other, device: device, fingers: 4, deltas: Self.repeated(-2, 0, 20), at: u.advanced(by: .milliseconds(50)), into: &otherEvents)
        other.tickUntilSettled(into: &otherEvents)
        #expect(otherEvents.terminalPhases == [.cancelled], "the busy container refuses the 4-finger swipe, which is blocked")
        #expect(otherEvents.gestures.contains { $0.fingers == 4 && $0.blocked == .noApplicableBinding })
    }

    @Test("a finger landing while libinput's swipe runs (its frame read before the swipe's end) leaves the swipe its transition")
    func fingerLandingDuringLibinputSwipe() throws {
        // Found by the swipe-play fuzz target (Fuzz/Regressions/swipe/): the frame's touch-down failed the edge
        // recognizer, whose failure cleared the device's target, so the swipe ended driving nothing and its
        // transition ran forever (the container busy until the daemon stopped).
        let device = TestDevices.synapticsI2C
        for cancelled in [false, true] {
            var engine = Engine(configuration: Self.configuration(), touchpadSwipes: .libinputGestures)
            var events: [EngineEvent] = []
            engine.addDevice(device, at: .zero, into: &events)
            var t = MonotonicInstant(microseconds: 1_000_000)
            engine.handleSwipe(.begin(fingers: 3), on: device.id, at: t, into: &events)
            for _ in 0..<30 {
                t = t.advanced(by: .milliseconds(8))
                engine.handleSwipe(.update(delta: MillimeterVector(x: -2, y: 0)), on: device.id, at: t, into: &events)
            }
            let id = try #require(events.transitions.first?.id)
            t = t.advanced(by: .milliseconds(4))
            engine.handle(TouchFrame(device: device.id, time: t, touches: [Touch(id: 7, phase: .down, position: NormalizedPoint(x: 0.5, y: 0.5))]), into: &events)
            t = t.advanced(by: .milliseconds(4))
            engine.handleSwipe(.end(cancelled: cancelled), on: device.id, at: t, into: &events)
            #expect(events.gestures.last { $0.state == .ended || $0.state == .cancelled }?.transition == id)
            engine.handle(TouchFrame(device: device.id, time: t.advanced(by: .milliseconds(30)), touches: [Touch(id: 7, phase: .up, position: NormalizedPoint(x: 0.5, y: 0.5))]), into: &events)
            engine.tickUntilSettled(into: &events)
            #expect(events.terminalPhases == [cancelled ? .cancelled : .completed])
            #expect(engine.isIdle && engine.snapshot.running.isEmpty, "the transition ended; the container takes the next gesture")
        }
    }

    // MARK: - Arbitration

    @Test("a 3-finger swipe landing in the left edge's zone is a swipe; without a 3-finger binding, an edge swipe")
    func nearAnEdge() {
        let device = TestDevices.cintiq
        // Three fingers stacked vertically 1 mm from the left edge, swiping right.
        let swipe = MultiFingerSwipe(fingers: 3, direction: .right, travelMM: 60, center: (1 / 345.6, 0.5), spacingMM: 15, landingStagger: .milliseconds(5))
        var withSwipes = Engine(configuration: Self.configuration())
        let swiped = withSwipes.play(.multiFingerSwipe(swipe, on: device), on: device)
        #expect(swiped.gestures.allSatisfy { $0.kind == .swipe })
        #expect(swiped.transitions.first?.to == "launcher", "the previous tab")
        #expect(swiped.terminalPhases == [.completed])
        var edgesOnly = Engine(configuration: Self.edgesOnly)
        let edged = edgesOnly.play(.multiFingerSwipe(swipe, on: device), on: device)
        #expect(edged.gestures.allSatisfy { $0.kind == .edge && $0.edge == .left })
        #expect(edged.transitions.first?.to == "launcher", "the left edge's second binding (the app is at its root): the previous tab")
        #expect(edged.gestures.first?.fingers == 3 || edged.gestures.first?.fingers == 1)
    }

    struct Unmatched: CustomTestStringConvertible, Sendable {
        var name: String
        var device: TouchDevice
        var fingers: Int
        var testDescription: String { name }
    }

    @Test("finger counts that match no binding: no gesture at all", arguments: [
        Unmatched(name: "4 fingers on a screen with 3-finger bindings", device: TestDevices.cintiq, fingers: 4),
        Unmatched(name: "2 fingers on a screen with 3-finger bindings", device: TestDevices.cintiq, fingers: 2),
        Unmatched(name: "2 fingers on a touchpad (a scroll)", device: TestDevices.synapticsI2C, fingers: 2),
        Unmatched(name: "5 fingers on a touchpad", device: TestDevices.synapticsI2C, fingers: 5),
    ])
    func unmatched(_ u: Unmatched) {
        var engine = Engine(configuration: Self.configuration())
        let swipe = MultiFingerSwipe(fingers: u.fingers, direction: .left, travelMM: 40, center: Self.center(for: .left), spacingMM: 10)
        let events = engine.play(.multiFingerSwipe(swipe, on: u.device), on: u.device)
        #expect(events.gestures.isEmpty)
        #expect(events.transitions.isEmpty)
        #expect(engine.isIdle)
    }

    @Test("2-finger swipe bindings never apply to touchpads: libinput makes two fingers scroll")
    func twoFingersOnATouchpad() {
        var engine = Engine(configuration: Self.configuration(fingers: 2...2))
        let swipe = MultiFingerSwipe(fingers: 2, direction: .left, travelMM: 40, center: Self.center(for: .left), spacingMM: 10)
        #expect(engine.play(.multiFingerSwipe(swipe, on: TestDevices.synapticsI2C), on: TestDevices.synapticsI2C).gestures.isEmpty)
        var screen = Engine(configuration: Self.configuration(fingers: 2...2))
        #expect(screen.play(.multiFingerSwipe(swipe, on: TestDevices.cintiq), on: TestDevices.cintiq).terminalPhases == [.completed])
    }

    @Test("a 1-finger edge swipe never turns into a swipe: libinput's later swipe begin is ignored until it ends")
    func edgeOwnsTheSequence() {
        let device = TestDevices.synapticsI2C
        var engine = Engine(configuration: Self.configuration(), touchpadSwipes: .libinputGestures)
        // One finger from the left edge; two more land mid-swipe and libinput reports a 3-finger swipe left.
        let edge = FingerScript.edgeSwipe(.left, travel: 0.6, on: device, durationMS: 500)
        let more = FingerScript.path(finger: 1, on: device, startMS: 200, points: [(0, 0.5, 0.3), (300, 0.5, 0.3)])
            + FingerScript.path(finger: 2, on: device, startMS: 210, points: [(0, 0.6, 0.3), (290, 0.6, 0.3)])
        var events: [EngineEvent] = []
        engine.addDevice(device, at: .zero, into: &events)
        var swipeStarted = false
        for frame in (edge + more).frames(on: device) {
            engine.tick(through: frame.time, into: &events)
            engine.handle(frame, into: &events)
            if !swipeStarted && frame.time >= MonotonicInstant(microseconds: 1_250_000) {
                swipeStarted = true
                engine.handleSwipe(.begin(fingers: 3), on: device.id, at: frame.time, into: &events)
                for _ in 0..<10 { engine.handleSwipe(.update(delta: MillimeterVector(x: -3, y: 0)), on: device.id, at: frame.time, into: &events) }
                engine.handleSwipe(.end(cancelled: false), on: device.id, at: frame.time, into: &events)
            }
        }
        engine.tickUntilSettled(into: &events)
        #expect(events.gestures.allSatisfy { $0.kind == .edge && $0.edge == .left })
        #expect(events.transitions.first?.to == "launcher")
        #expect(events.terminalPhases == [.completed])
        #expect(events.traces.allSatisfy { !$0.isBug })
    }

    struct Ragged: CustomTestStringConvertible, Sendable {
        var name: String
        var device: TouchDevice
        var landingStaggerMS: Int64
        var liftStaggerMS: Int64
        var expect: [Phase]
        var testDescription: String { name }
    }

    @Test("real hands: fingers landing over 150 ms all count; one lifting early", arguments: [
        Ragged(name: "screen: three fingers over 150 ms", device: TestDevices.cintiq, landingStaggerMS: 75, liftStaggerMS: 10, expect: [.completed]),
        Ragged(name: "touchpad: three fingers over 150 ms", device: TestDevices.synapticsI2C, landingStaggerMS: 75, liftStaggerMS: 10, expect: [.completed]),
        Ragged(name: "screen: a finger lifting 200 ms before the others does not cancel", device: TestDevices.cintiq, landingStaggerMS: 20, liftStaggerMS: 200, expect: [.completed]),
        Ragged(name: "touchpad: lifting within libinput's 100 ms debounce ends normally", device: TestDevices.synapticsI2C, landingStaggerMS: 20, liftStaggerMS: 40, expect: [.completed]),
    ])
    func ragged(_ r: Ragged) {
        var engine = Engine(configuration: Self.configuration())
        let swipe = MultiFingerSwipe(
            fingers: 3, direction: .left, travelMM: 42, center: Self.center(for: .left), spacingMM: 12,
            landingStagger: .milliseconds(r.landingStaggerMS), liftStagger: .milliseconds(r.liftStaggerMS))
        let events = engine.play(.multiFingerSwipe(swipe, on: r.device), on: r.device)
        #expect(events.terminalPhases == r.expect)
        #expect(events.gestures.allSatisfy { $0.fingers == 3 })
    }

    @Test("screen: a third finger landing 200 ms after the first still makes the 3-finger swipe a binding wants")
    func lateThirdFinger() {
        let device = TestDevices.cintiq
        var engine = Engine(configuration: Self.configuration())
        // Two fingers land and start moving left; the third lands 200 ms after the first, past the 150 ms window.
        let swipe = MultiFingerSwipe(
            fingers: 3, direction: .left, travelMM: 42, duration: .milliseconds(500), center: Self.center(for: .left),
            spacingMM: 15, landingStagger: .milliseconds(100), settle: .zero)
        let events = engine.play(.multiFingerSwipe(swipe, on: device), on: device)
        #expect(events.gestures.first?.fingers == 3)
        #expect(events.gestures.allSatisfy { $0.kind == .swipe })
        #expect(events.terminalPhases == [.completed])
    }

    @Test("touchpad: a finger lifting mid-swipe for longer than 100 ms cancels, as libinput's count switch does")
    func fingerLiftedMidSwipe() {
        let device = TestDevices.synapticsI2C
        var engine = Engine(configuration: Self.configuration())
        // Three fingers swipe 42 mm left over 600 ms; the third lifts 250 ms in.
        let swipe = MultiFingerSwipe(fingers: 3, direction: .left, travelMM: 42, duration: .milliseconds(600), center: Self.center(for: .left), spacingMM: 12)
        let script = FingerScript.multiFingerSwipe(swipe, on: device)
        let liftAt = Microseconds.milliseconds(40 + 40 + 250)
        let kept = FingerScript(samples: script.samples.filter { $0.finger != 2 || $0.time < liftAt })
        let lift = FingerScript(samples: [script.samples.last { $0.finger == 2 && $0.time < liftAt }.map {
            var s = $0
            s.time = liftAt
            s.phase = .up
            return s
        }!])
        let events = engine.play(kept + lift, on: device)
        #expect(events.gestures.map(\.state).last == .cancelled)
        #expect(events.terminalPhases == [.cancelled])
        #expect(events.gestures.allSatisfy { $0.fingers == 3 }, "no 2-finger swipe follows: two fingers scroll")
    }

    @Test("a pinch and a rotation are not swipes")
    func pinch() {
        let device = TestDevices.cintiq
        var engine = Engine(configuration: Self.configuration())
        // Three fingers closing on the centre.
        let script = FingerScript.path(finger: 0, on: device, points: [(0, 0.3, 0.5), (200, 0.3, 0.5), (500, 0.45, 0.5)])
            + FingerScript.path(finger: 1, on: device, points: [(10, 0.7, 0.5), (200, 0.7, 0.5), (500, 0.55, 0.5)])
            + FingerScript.path(finger: 2, on: device, points: [(20, 0.5, 0.2), (200, 0.5, 0.2), (500, 0.5, 0.45)])
        let events = engine.play(script, on: device)
        #expect(events.gestures.isEmpty)
    }
}
