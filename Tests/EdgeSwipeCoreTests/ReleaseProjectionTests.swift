import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

/// While a finger drives a transition, each `changed` says what a release then would conclude (the same release
/// decision the lift is judged by), so that a client can show whether letting go finishes: the session's overlay
/// turns its indicator the accent colour when it would. A finger that holds still sends nothing, so once its velocity
/// window has passed the engine says it is at rest (a `changed` at velocity 0).
@Suite("The release projection while the finger moves")
struct ReleaseProjectionTests {
    struct Swipe: Sendable, CustomTestStringConvertible {
        var name: String
        var edge: Edge
        var travel: Double
        var durationMS: Double
        var release: EdgeSwipe.Release
        var finishes: Bool
        var testDescription: String { name }
    }

    static let swipes: [Swipe] = [
        Swipe(name: "to 70 % at rest", edge: .left, travel: 0.7, durationMS: 400, release: .atRest, finishes: true),
        Swipe(name: "to 30 % at rest", edge: .left, travel: 0.3, durationMS: 300, release: .atRest, finishes: false),
        Swipe(name: "a flick at 35 %", edge: .right, travel: 0.35, durationMS: 120, release: .whileMoving, finishes: true),
        Swipe(name: "a top-edge presentation", edge: .top, travel: 0.7, durationMS: 350, release: .atRest, finishes: true),
    ]

    @Test("every finger-driven changed carries the projection; the last one before the lift is the judgement that decides", arguments: swipes)
    func projection(_ swipe: Swipe) throws {
        var engine = Engine(configuration: .default)
        let device = TestDevices.nexus4
        let events = engine.play(
            .edgeSwipe(swipe.edge, travel: swipe.travel, on: device, durationMS: swipe.durationMS, release: swipe.release), on: device)
        #expect(events.terminalPhases == [swipe.finishes ? .completed : .cancelled])
        let changed = events.transitions.filter { $0.phase == .changed }
        #expect(changed.count > 5)
        #expect(changed.allSatisfy { $0.release != nil })
        #expect(events.transitions.filter { $0.phase != .changed }.allSatisfy { $0.release == nil }, "only while a finger drives")
        for t in changed {
            let judgement = try #require(t.release)
            let decision = ReleaseDecision.touchscreen
            #expect(judgement.threshold == decision.threshold)
            #expect(judgement.projected == decision.projectedPercent(Progress(percent: t.percent, velocity: t.velocity)))
        }
        let ended = try #require(events.interactions.first { $0.phase == .ended })
        let decided = try #require(ended.decision)
        #expect(decided.finishes == swipe.finishes && ended.cancelled == !swipe.finishes)
        #expect(changed.last?.release?.finishes == decided.finishes, "the last changed said what the lift then did")
        if swipe.release == .atRest {
            #expect(changed.first?.release?.finishes == false, "a finger that just began would cancel")
            // A finger at rest sends nothing; its velocity window over, a changed at velocity 0 says so.
            let rest = try #require(changed.last)
            #expect(rest.velocity == .zero && rest.release?.projected == rest.percent)
        }
    }

    @Test("a request's transition carries none: no finger drives it")
    func requested() throws {
        var engine = Engine(configuration: .default)
        var events: [EngineEvent] = []
        try engine.request(.push(scene: "detail"), in: "app", at: .zero, into: &events)
        engine.tickUntilSettled(into: &events)
        #expect(!events.transitions.isEmpty && events.transitions.allSatisfy { $0.release == nil })
    }
}
