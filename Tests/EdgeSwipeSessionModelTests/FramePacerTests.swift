import EdgeSwipeSessionModel
import Testing

@Suite("FramePacer: a picture is painted just before the compositor's next frame, the margin learnt from the frames made")
struct FramePacerTests {
    typealias State = FramePacer.State

    /// A pacer brought to a state by events, each at its time.
    static func pacer(_ steps: [(FramePacer.Event, UInt64)]) -> FramePacer {
        var p = FramePacer()
        for (event, at) in steps { p.handle(event, atUS: at) }
        return p
    }

    struct Transition: Sendable, CustomStringConvertible {
        var description: String
        var before: [(FramePacer.Event, UInt64)]
        var event: FramePacer.Event
        var at: UInt64
        var state: State
        var note: String?
    }

    /// Every (state, event) pair: idle without a frame yet, idle after a frame, in flight at once, in flight at a
    /// deadline; each with a commit, a frame callback and a refresh.
    static let transitions: [Transition] = [
        Transition(description: "idle, no frame yet + committed -> in flight at once (no phase to aim at)",
                   before: [], event: .committed, at: 1_000,
                   state: .inFlight(lastFrameUS: nil, committedUS: 1_000, aimUS: nil), note: "idle -> committed -> in flight (at once)"),
        Transition(description: "idle + frame done -> a bug (no commit in flight), the phase still taken",
                   before: [], event: .frameDone(frameUS: 5_000), at: 5_100,
                   state: .idle(lastFrameUS: 5_000), note: "bug: idle -> frame done -> idle: a frame callback with no commit in flight"),
        Transition(description: "idle + refresh -> idle, the interval taken",
                   before: [], event: .refresh(intervalUS: 8_333), at: 0, state: .idle(lastFrameUS: nil), note: nil),
        Transition(description: "idle after a frame + committed at the deadline -> in flight, aiming at the next frame",
                   before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100)], event: .committed, at: 22_667,
                   state: .inFlight(lastFrameUS: 10_000, committedUS: 22_667, aimUS: 26_667), note: "idle -> committed -> in flight (at the deadline)"),
        Transition(description: "idle after a frame + committed after the deadline -> in flight, aiming at nothing (it may make the frame or not)",
                   before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100)], event: .committed, at: 25_000,
                   state: .inFlight(lastFrameUS: 10_000, committedUS: 25_000, aimUS: nil), note: "idle -> committed -> in flight (at once)"),
        Transition(description: "in flight + committed again (a picture replaced) -> in flight from the newer commit",
                   before: [(.committed, 1_000)], event: .committed, at: 2_000,
                   state: .inFlight(lastFrameUS: nil, committedUS: 2_000, aimUS: nil), note: "in flight (at once) -> committed -> in flight (at once)"),
        Transition(description: "in flight + surface gone -> idle, the phase kept",
                   before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100), (.committed, 22_667)], event: .surfaceGone, at: 23_000,
                   state: .idle(lastFrameUS: 10_000), note: "in flight (at the deadline) -> surface gone -> idle"),
        Transition(description: "idle + surface gone -> idle",
                   before: [], event: .surfaceGone, at: 0, state: .idle(lastFrameUS: nil), note: nil),
        Transition(description: "in flight + frame done -> idle at that frame",
                   before: [(.committed, 1_000)], event: .frameDone(frameUS: 3_000), at: 3_200,
                   state: .idle(lastFrameUS: 3_000), note: "in flight (at once) -> frame done -> idle"),
        Transition(description: "in flight + refresh -> in flight",
                   before: [(.committed, 1_000)], event: .refresh(intervalUS: 6_944), at: 2_000,
                   state: .inFlight(lastFrameUS: nil, committedUS: 1_000, aimUS: nil), note: nil),
    ]

    @Test(arguments: transitions)
    func transition(_ t: Transition) {
        var p = Self.pacer(t.before)
        let note = p.handle(t.event, atUS: t.at)
        #expect(p.state == t.state)
        #expect(note == t.note)
    }

    struct When: Sendable, CustomStringConvertible {
        var description: String
        var before: [(FramePacer.Event, UInt64)]
        var at: UInt64
        var decision: FramePacer.Decision
    }

    /// 60 Hz (16,667 us), the first margin 4 ms: a frame at 10,000 makes the next at 26,667, its deadline 22,667.
    static let decisions: [When] = [
        When(description: "nothing drawn yet: at once", before: [], at: 500, decision: .paintNow),
        When(description: "a commit waits for its frame: its callback", before: [(.committed, 500)], at: 600, decision: .waitForFrame),
        When(description: "a frame drawn just now: at the deadline before the next",
             before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100)], at: 10_200, decision: .paintAt(22_667)),
        When(description: "the deadline leaves room for the longest recent painting too",
             before: [(.painted(durationUS: 1_000), 0), (.painted(durationUS: 3_000), 0), (.committed, 0), (.frameDone(frameUS: 10_000), 10_100)],
             at: 10_200, decision: .paintAt(19_667)),
        When(description: "past the deadline, before the frame: at once (it may still make it)",
             before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100)], at: 23_000, decision: .paintNow),
        When(description: "nothing drawn for two frames: the compositor draws at once, so do we",
             before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100)], at: 50_000, decision: .paintNow),
        When(description: "a frame skipped since the last: the deadline of the frame after",
             before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100)], at: 30_000, decision: .paintAt(39_334)),
        When(description: "a commit made at its deadline: its callback",
             before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100), (.committed, 22_667)], at: 23_000, decision: .waitForFrame),
        When(description: "a commit made at its deadline that missed its frame: replaced at the next deadline",
             before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100), (.committed, 22_667)], at: 36_000, decision: .paintAt(39_334)),
        When(description: "a commit made past its deadline: replaced at the next one, should it have missed its frame",
             before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100), (.committed, 25_000)], at: 25_500, decision: .paintAt(39_334)),
        When(description: "woken at the deadline to replace it: now",
             before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100), (.committed, 25_000)], at: 39_600, decision: .paintNow),
        When(description: "a commit not drawn for three frames: the compositor does not draw us, wait for its callback",
             before: [(.committed, 0), (.frameDone(frameUS: 10_000), 10_100), (.committed, 25_000)], at: 75_002, decision: .waitForFrame),
        When(description: "at 120 Hz the deadline follows the refresh",
             before: [(.refresh(intervalUS: 8_333), 0), (.committed, 0), (.frameDone(frameUS: 10_000), 10_100)], at: 10_200,
             decision: .paintAt(14_333)),
    ]

    @Test(arguments: decisions)
    func decision(_ w: When) {
        #expect(Self.pacer(w.before).decision(atUS: w.at) == w.decision)
    }

    @Test("the margin: a missed frame makes it a millisecond larger, each frame made a hundredth of that smaller (a quarter until the first miss), within its bounds")
    func margin() {
        // Frames every 16,667 us; each commit at its deadline; `late` of them drawn a frame after the one aimed at.
        func run(frames: Int, late: Set<Int>) -> FramePacer {
            var p = FramePacer()
            var frame: UInt64 = 100_000
            p.handle(.committed, atUS: 0)
            p.handle(.frameDone(frameUS: frame), atUS: frame)
            for i in 0..<frames {
                let deadline = frame + p.intervalUS - p.marginUS
                p.handle(.committed, atUS: deadline)
                frame += p.intervalUS * (late.contains(i) ? 2 : 1)
                p.handle(.frameDone(frameUS: frame), atUS: frame + 100)
            }
            return p
        }
        // Until the first miss, each frame made takes the faster descent's step.
        let made = run(frames: 10, late: [])
        #expect(made.made == 10 && made.missed == 0)
        #expect(made.marginUS == FramePacer.initialMarginUS - 10 * FramePacer.descentStepUS)
        #expect(run(frames: 100, late: []).marginUS == FramePacer.minimumMarginUS)
        // After one, the slow step: a millisecond up, then a hundredth of that down per frame made.
        let afterMiss = run(frames: 101, late: [0])
        #expect(afterMiss.made == 100 && afterMiss.missed == 1)
        #expect(afterMiss.marginUS == FramePacer.initialMarginUS + FramePacer.missStepUS - 100 * FramePacer.hitStepUS)
        let missed = run(frames: 3, late: [0, 1, 2])
        #expect(missed.missed == 3)
        #expect(missed.marginUS == FramePacer.initialMarginUS + 3 * FramePacer.missStepUS)
        // Never more than half a frame, never less than the minimum. (A compositor that draws every commit a frame
        // late draws every other frame: its interval becomes two.)
        let late = run(frames: 20, late: Set(0..<20))
        #expect(late.intervalUS == 2 * FramePacer.defaultIntervalUS)
        #expect(late.marginUS == late.intervalUS / 2)
        #expect(run(frames: 1_000, late: []).marginUS == FramePacer.minimumMarginUS)
    }

    @Test("a compositor that draws less often than its refresh (26 ms at 60 Hz): the pacer follows the periods it draws at")
    func slowerCompositor() {
        var p = FramePacer()
        p.handle(.refresh(intervalUS: 16_667), atUS: 0)
        var frame: UInt64 = 100_000
        p.handle(.committed, atUS: 0)
        p.handle(.frameDone(frameUS: frame), atUS: frame)
        for _ in 0..<8 {
            p.handle(.committed, atUS: frame + 1_000)
            frame += 26_000
            p.handle(.frameDone(frameUS: frame), atUS: frame)
        }
        #expect(p.intervalUS == 26_000)
        #expect(p.decision(atUS: frame + 100) == .paintAt(frame + 26_000 - p.marginUS))
        // A new refresh starts again from it.
        p.handle(.refresh(intervalUS: 8_333), atUS: frame)
        #expect(p.intervalUS == 8_333)
    }

    @Test("a refresh no output has is not believed", arguments: [UInt64(0), 1_000, 200_000])
    func refreshRefused(_ interval: UInt64) {
        #expect(Self.pacer([(.refresh(intervalUS: interval), 0)]).intervalUS == FramePacer.defaultIntervalUS)
    }

    @Test("a frame callback's time: its stamp where it is on our clock, else its arrival",
          arguments: [
              // Stamped 2 ms before it arrived: the end of that millisecond.
              (UInt32(1_998), UInt64(2_000_500), UInt64(1_998_999)) as (UInt32, UInt64, UInt64),
              // The same millisecond: never later than the arrival.
              (UInt32(2_000), UInt64(2_000_500), UInt64(2_000_500)),
              // Another clock (far away, or after the arrival): the arrival.
              (UInt32(7), UInt64(2_000_500), UInt64(2_000_500)),
              (UInt32(2_001), UInt64(2_000_500), UInt64(2_000_500)),
              // Across the 32-bit wrap of milliseconds.
              (UInt32.max, UInt64(4_294_967_296_300), UInt64(4_294_967_295_999)),
          ])
    func frameTime(_ stamp: UInt32, _ received: UInt64, _ expected: UInt64) {
        #expect(FramePacer.frameTimeUS(stampMS: stamp, receivedUS: received) == expected)
    }
}
