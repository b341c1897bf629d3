import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeFingerScript
import EdgeSwipeProtocol

/// Engine runs that produce every kind of event the protocol carries. Events come from the real engine (the
/// core's event types have no public initialisers), driven by scripted touches and requests with explicit times.
enum Scenario {
    /// 220 x 140 mm, with a quote in its name to exercise escaping.
    static let screen = TouchDevice(
        id: DeviceID(7), name: "Test \"Screen\" \u{00e9}", kind: .touchscreen,
        x: AxisRange(minimum: 0, maximum: 21999, resolution: 100), y: AxisRange(minimum: 0, maximum: 13999, resolution: 100),
        path: "/dev/input/event7")

    /// The default scene graph plus a custom container, so that every container kind appears in `state`.
    static let configuration: EngineConfiguration = {
        var c = EngineConfiguration.default
        c.containers.append(Container(name: "panes", content: .custom(children: ["a", "b"], active: 0)))
        return c
    }()

    static func snapshot(_ engine: Engine) -> ServerSnapshot {
        ServerSnapshot(
            serverVersion: "edgeswiped test", devices: engine.knownDevices,
            config: ConfigSummary(configuration: configuration, source: "built-in"), state: engine.snapshot)
    }

    /// A swipe from the left edge (previous tab, with the coordinator's interaction end), a second one with
    /// nowhere to go (a blocked gesture with its rubber band and spring back), a slide along the edge (a failed
    /// gesture with its reason), a pushed scene on a spring, a custom presentation (dimming, and the presentation
    /// controller's callbacks), a custom container's show, a 3-finger swipe (the next tab), a pop cancelled by
    /// shutdown, and the device going away.
    static func everything() -> (events: [EngineEvent], initial: ServerSnapshot, final: ServerSnapshot) {
        var engine = Engine(configuration: configuration)
        let initial = snapshot(engine)
        var events: [EngineEvent] = []
        var t: UInt64 = 1_000_000
        engine.addDevice(screen, at: at(t), into: &events)
        t = swipe(&engine, from: NormalizedPoint(x: 0.004, y: 0.5), to: NormalizedPoint(x: 0.7, y: 0.52), startingAt: t + 10_000, into: &events)
        t = settle(&engine, into: &events) + 10_000
        // The first tab now: the left edge's bindings (pop the app, previous tab) cannot run.
        t = swipe(&engine, from: NormalizedPoint(x: 0.004, y: 0.5), to: NormalizedPoint(x: 0.3, y: 0.5), startingAt: t, into: &events)
        t = swipe(&engine, from: NormalizedPoint(x: 0.004, y: 0.3), to: NormalizedPoint(x: 0.004, y: 0.7), startingAt: t + 10_000, into: &events)
        t = settle(&engine, into: &events) + 10_000
        let spring = Animator(style: .slide, curve: .spring(response: .milliseconds(300)))
        _ = try! engine.request(.push(scene: "detail"), in: "app", animator: spring, at: at(t), into: &events)
        t = settle(&engine, into: &events) + 10_000
        _ = try! engine.request(.present(scene: "card", style: .custom, frame: nil), in: "overlay", at: at(t), into: &events)
        t = settle(&engine, into: &events) + 10_000
        _ = try! engine.request(.show(child: "b"), in: "panes", at: at(t), into: &events)
        t = settle(&engine, into: &events) + 10_000
        // Three fingers moving left: the next tab, through the multi-finger swipe path.
        let threeFingers = FingerScript.multiFingerSwipe(
            MultiFingerSwipe(fingers: 3, direction: .left, travelMM: 120, center: (0.75, 0.5)), on: screen)
        for frame in threeFingers.frames(on: screen, origin: at(t)) {
            while let deadline = engine.nextDeadline, deadline < frame.time { engine.tick(at: deadline, into: &events) }
            engine.handle(frame, into: &events)
        }
        t = settle(&engine, into: &events) + 10_000
        _ = try! engine.request(.pop, in: "app", at: at(t), into: &events)
        engine.tick(at: at(t + 50_000), into: &events)
        engine.cancelAll(at: at(t + 60_000), into: &events)
        engine.removeDevice(screen.id, at: at(t + 70_000), into: &events)
        return (events, initial, snapshot(engine))
    }

    static func at(_ us: UInt64) -> MonotonicInstant { MonotonicInstant(microseconds: us) }

    /// One finger from `from` to `to` in 30 frames 8 ms apart, lifted while moving (scripted with
    /// `EdgeSwipeFingerScript`). Returns the last time.
    static func swipe(
        _ engine: inout Engine, device: TouchDevice = screen, from: NormalizedPoint, to: NormalizedPoint,
        startingAt start: UInt64, frames: Int = 30, into events: inout [EngineEvent]
    ) -> UInt64 {
        let a = device.units(x: from.x, y: from.y), b = device.units(x: to.x, y: to.y)
        let script = FingerScript(stroke: Stroke(
            from: a.x, a.y, moves: [Stroke.Move(to: b.x, b.y, frames: frames, durationUS: UInt64(frames) * 8000, easing: .linear)],
            restUS: 8000))
        for frame in script.frames(on: device, origin: at(start)) { engine.handle(frame, into: &events) }
        return start + script.end.microsecondsValue
    }

    /// Ticks at each deadline the engine asks for until nothing animates. Returns the engine's time.
    @discardableResult
    static func settle(_ engine: inout Engine, into events: inout [EngineEvent]) -> UInt64 {
        while let deadline = engine.nextDeadline { engine.tick(at: deadline, into: &events) }
        return engine.now.microseconds
    }
}

extension [EngineEvent] {
    var transitions: [TransitionEvent] { compactMap { if case .transition(let t) = $0 { t } else { nil } } }
    var gestures: [GestureEvent] { compactMap { if case .gesture(let g) = $0 { g } else { nil } } }
    /// The events a client receives (trace events are not sent).
    var sent: [EngineEvent] { filter { if case .trace = $0 { false } else { true } } }
}

extension Microseconds {
    var microsecondsValue: UInt64 { UInt64(max(0, value)) }
}
