import EdgeSwipeCore
import EdgeSwipeFingerScript
import Testing

/// `Engine.returnToInitialState`: what a looped replay starts each pass with. It puts the containers back only
/// while nothing is in flight, and says so with one `state` event, only when something changed.
@Suite struct InitialStateTests {
    /// What happened before the call, and what the call must do.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// Drives the engine (from `.default`) into the situation; the events it made are dropped.
        var setUp: @Sendable (inout Engine) throws -> Void
        var returns: Bool
        var reportsState: Bool
        var testDescription: String { name }
    }

    static let second = MonotonicInstant(microseconds: 1_000_000)

    static let rows: [Row] = [
        Row(name: "untouched: nothing to do, nothing said", setUp: { _ in }, returns: true, reportsState: false),
        Row(name: "after a completed request: back, and said", setUp: { engine in
            var events: [EngineEvent] = []
            try engine.request(.selectTab(index: 2), in: "shell", animated: false, at: second, into: &events)
            try engine.request(.push(scene: "details"), in: "app", animated: false, at: second, into: &events)
        }, returns: true, reportsState: true),
        Row(name: "after a run-out ended: back, and said", setUp: { engine in
            var events: [EngineEvent] = []
            try engine.request(.nextTab, in: "shell", at: second, into: &events)
            engine.tickUntilSettled(into: &events)
        }, returns: true, reportsState: true),
        Row(name: "a transition running out: refused", setUp: { engine in
            var events: [EngineEvent] = []
            try engine.request(.nextTab, in: "shell", at: second, into: &events)
        }, returns: false, reportsState: false),
        Row(name: "a finger down in an edge zone: refused", setUp: { engine in
            var events: [EngineEvent] = []
            let device = TestDevices.cintiq
            engine.addDevice(device, at: .zero, into: &events)
            let frames = FingerScript.edgeSwipe(.left, travel: 0.3, on: device, durationMS: 150, release: .whileMoving).frames(on: device)
            engine.handle(frames[0], into: &events)
        }, returns: false, reportsState: false),
    ]

    @Test(arguments: rows)
    func returnToInitialState(_ row: Row) throws {
        var engine = Engine(configuration: .default)
        try row.setUp(&engine)
        let before = engine.containers
        var events: [EngineEvent] = []
        let returned = engine.returnToInitialState(at: engine.now.advanced(by: .milliseconds(1)), into: &events)
        #expect(returned == row.returns)
        let states = events.compactMap { if case .state(let s) = $0 { s } else { nil } }
        #expect(states.count == (row.reportsState ? 1 : 0))
        #expect(engine.containers == (row.returns ? EngineConfiguration.default.containers : before))
        if let state = states.first { #expect(state.containers == EngineConfiguration.default.containers && state.running.isEmpty) }
        #expect(events.count == states.count, "nothing else is said: \(events)")
    }
}
