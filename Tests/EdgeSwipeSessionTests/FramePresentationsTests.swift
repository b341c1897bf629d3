import Testing

@testable import EdgeSwipeSession

@Suite("The overlay's presentation seam: commits and wp_presentation feedback to line-to-presentation figures")
struct FramePresentationsTests {
    enum Step {
        case commit(FramePresentations.Token, line: UInt64?, at: UInt64)
        case present(FramePresentations.Token, at: UInt64, refreshNS: UInt32)
        case discard(FramePresentations.Token)
    }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var steps: [Step]
        var latencies: [UInt64]
        var presented: Int
        var discarded: Int
        var missed: Int
        var unmatched: Int
    }

    static let cases: [Case] = [
        Case(description: "the next frame: within one refresh of the line, not missed",
             steps: [.commit(1, line: 1_000, at: 2_000), .present(1, at: 12_000, refreshNS: 16_666_666)],
             latencies: [11_000], presented: 1, discarded: 0, missed: 0, unmatched: 0),
        Case(description: "the frame after: later than one refresh, missed",
             steps: [.commit(1, line: 1_000, at: 2_000), .present(1, at: 30_000, refreshNS: 16_666_666)],
             latencies: [29_000], presented: 1, discarded: 0, missed: 1, unmatched: 0),
        Case(description: "a run-out's frame shows no new line: presented, no latency",
             steps: [.commit(1, line: nil, at: 2_000), .present(1, at: 10_000, refreshNS: 16_666_666)],
             latencies: [], presented: 1, discarded: 0, missed: 0, unmatched: 0),
        Case(description: "a frame replaced before it was shown: its line counts with the newer one's presentation",
             steps: [.commit(1, line: 1_000, at: 2_000), .commit(2, line: 3_000, at: 4_000), .discard(1), .present(2, at: 15_000, refreshNS: 16_666_666)],
             latencies: [14_000], presented: 1, discarded: 1, missed: 0, unmatched: 0),
        Case(description: "a discarded frame with nothing newer is missed; feedback out of order matches by token",
             steps: [.commit(1, line: 1_000, at: 2_000), .commit(2, line: 3_000, at: 4_000), .present(2, at: 15_000, refreshNS: 16_666_666), .discard(1)],
             latencies: [12_000], presented: 1, discarded: 1, missed: 1, unmatched: 0),
        Case(description: "feedback for no frame in flight, and twice for one, is counted apart",
             steps: [.present(9, at: 5_000, refreshNS: 16_666_666), .commit(1, line: 0, at: 1), .present(1, at: 2, refreshNS: 0), .discard(1)],
             latencies: [2], presented: 1, discarded: 0, missed: 0, unmatched: 2),
        Case(description: "a presentation stamped before its line (another clock) counts as 0, never a trap",
             steps: [.commit(1, line: 50_000, at: 60_000), .present(1, at: 10, refreshNS: 16_666_666)],
             latencies: [0], presented: 1, discarded: 0, missed: 0, unmatched: 0),
    ]

    @Test(arguments: cases)
    func figures(_ c: Case) {
        var p = FramePresentations()
        for step in c.steps {
            switch step {
            case .commit(let t, let line, let at): p.committed(t, lineArrivalUS: line, atUS: at)
            case .present(let t, let at, let refresh): p.presented(t, atUS: at, refreshNS: refresh)
            case .discard(let t): p.discarded(t)
            }
        }
        #expect(p.lineToPresentationUS.values == c.latencies)
        #expect(p.presented == c.presented)
        #expect(p.discarded == c.discarded)
        #expect(p.missed == c.missed)
        #expect(p.unmatched == c.unmatched)
    }

    @Test("a compositor that never answers does not grow the table of frames in flight")
    func bounded() {
        var p = FramePresentations()
        for t in 0..<UInt64(FramePresentations.inFlightLimit * 4) { p.committed(t, lineArrivalUS: t, atUS: t) }
        // The oldest were forgotten: their late feedback is unmatched; the newest still match.
        p.presented(0, atUS: 10, refreshNS: 0)
        p.presented(UInt64(FramePresentations.inFlightLimit * 4 - 1), atUS: 1_000, refreshNS: 0)
        #expect(p.unmatched == 1)
        #expect(p.presented == 1)
    }

    @Test("wp_presentation_feedback.presented's time in three parts, as microseconds; times no clock reaches are refused, never a trap",
          arguments: [
              (UInt32(0), UInt32(12), UInt32(345_678_999), FeedbackState.Outcome.presented(atUS: 12_345_678, refreshNS: 16_666_667)),
              (1, 0, 0, .presented(atUS: 4_294_967_296_000_000, refreshNS: 16_666_667)),
              (UInt32.max, UInt32.max, 0, .discarded),
              (0, 1, 1_000_000_000, .discarded),
          ])
    func presentedTime(_ high: UInt32, _ low: UInt32, _ nanoseconds: UInt32, _ outcome: FeedbackState.Outcome) {
        #expect(FeedbackState.presented(secondsHigh: high, secondsLow: low, nanoseconds: nanoseconds, refreshNS: 16_666_667) == outcome)
    }

    struct Drawn: Sendable, CustomStringConvertible {
        var description: String
        /// Per commit: its line's arrival, its commit, and its frame callback's time.
        var commits: [(line: UInt64?, commit: UInt64, drawn: UInt64)]
        var latencies: [UInt64]
        var late: Int
    }

    static let drawn: [Drawn] = [
        Drawn(description: "the next frame", commits: [(1_000, 2_000, 12_000)], latencies: [11_000], late: 0),
        Drawn(description: "later than one interval: late", commits: [(1_000, 2_000, 20_000)], latencies: [19_000], late: 1),
        Drawn(description: "a run-out's frame: no line", commits: [(nil, 2_000, 20_000)], latencies: [], late: 0),
        Drawn(description: "two in a row", commits: [(1_000, 2_000, 12_000), (13_000, 14_000, 28_000)], latencies: [11_000, 15_000], late: 0),
    ]

    @Test("the frame callback: from a line to the compositor's frame that drew it; later than one interval counted; each commit once",
          arguments: drawn)
    func rendered(_ c: Drawn) {
        var p = FramePresentations()
        for (i, commit) in c.commits.enumerated() {
            p.committed(UInt64(i + 1), lineArrivalUS: commit.line, atUS: commit.commit)
            p.rendered(UInt64(i + 1), atUS: commit.drawn, intervalUS: 16_667)
            // A second callback for the same commit changes nothing.
            p.rendered(UInt64(i + 1), atUS: commit.drawn + 16_667, intervalUS: 16_667)
        }
        #expect(p.lineToFrameUS.values == c.latencies)
        #expect(p.lateLines == c.late)
    }

    @Test("the log line the benchmark reads")
    func logLine() {
        var p = FramePresentations()
        p.committed(1, lineArrivalUS: 1_000, atUS: 2_000)
        p.presented(1, atUS: 15_000, refreshNS: 16_666_667)
        #expect(p.description == "stream line -> compositor frame p50 - ms, p99 - ms, max - ms (n 0), 0 later than a frame; stream line -> presentation p50 14 ms, p99 14 ms, max 14 ms (n 1); refresh 16.6667 ms; 1 presented, 0 discarded, 0 missed; commit -> presentation p50 13 ms, p99 13 ms")
    }
}
