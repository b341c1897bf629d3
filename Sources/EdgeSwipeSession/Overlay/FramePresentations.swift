/// What became of the overlay's committed frames on the screen: the seam between the overlay, which commits frames
/// and receives the compositor's `wp_presentation` feedback for each, and the benchmark's "line to presentation"
/// figure (issue 39 item 2: the frame for the next compositor frame, at p99; docs/PERFORMANCE.md, "The overlay").
///
/// The overlay reports three things, all on its Wayland thread: ``committed(_:lineArrivalUS:atUS:)`` for every
/// commit that carries a new picture (with the arrival of the earliest stream line it is the first to show), and
/// for that commit's feedback either ``presented(_:atUS:refreshNS:)`` (the time the compositor put it on the screen,
/// on the monotonic clock, and the output's refresh interval) or ``discarded(_:)`` (replaced before it was shown).
/// Everything else (the percentiles, the frames missed) is computed here, so the overlay only reports.
public struct FramePresentations: Sendable, CustomStringConvertible {
    /// A committed frame, until its feedback comes: its stream line's arrival, and the commit's time.
    private struct Pending: Sendable {
        var lineArrivalUS: UInt64?
        var committedUS: UInt64
    }

    /// The overlay's own number for a commit (its count of commits): matches feedback to its frame.
    public typealias Token = UInt64

    private var pending: [Token: Pending] = [:]
    /// From a stream line's arrival to the presentation of the first frame that shows it, in microseconds.
    public private(set) var lineToPresentationUS = BoundedSamples(capacity: 8192)
    /// From a frame's commit to its presentation, in microseconds.
    public private(set) var commitToPresentationUS = BoundedSamples(capacity: 8192)
    /// The output's refresh interval as the compositor said it (0 where it does not know it), in nanoseconds.
    public private(set) var refreshNS: UInt32 = 0
    public private(set) var presented = 0
    public private(set) var discarded = 0
    /// Frames that showed a line later than the compositor's next frame after its arrival (later than one refresh
    /// interval), and frames discarded: what "the next frame at p99" counts against.
    public private(set) var missed = 0
    /// Feedback for no frame in flight (a token never committed, or answered twice): must stay 0.
    public private(set) var unmatched = 0

    /// Frames in flight beyond this are forgotten (a compositor that never answers must not grow the table).
    public static let inFlightLimit = 64

    public init() {}

    public mutating func committed(_ token: Token, lineArrivalUS: UInt64?, atUS: UInt64) {
        if pending.count >= Self.inFlightLimit, let oldest = pending.keys.min() { pending[oldest] = nil }
        pending[token] = Pending(lineArrivalUS: lineArrivalUS, committedUS: atUS)
    }

    public mutating func presented(_ token: Token, atUS: UInt64, refreshNS: UInt32) {
        guard let frame = pending.removeValue(forKey: token) else {
            unmatched += 1
            return
        }
        presented += 1
        if refreshNS > 0 { self.refreshNS = refreshNS }
        commitToPresentationUS.append(atUS - min(atUS, frame.committedUS))
        guard let arrival = frame.lineArrivalUS else { return }
        let latency = atUS - min(atUS, arrival)
        lineToPresentationUS.append(latency)
        // The next frame after the line's arrival is at most one refresh interval away.
        if self.refreshNS > 0, latency * 1000 > UInt64(self.refreshNS) { missed += 1 }
    }

    public mutating func discarded(_ token: Token) {
        guard pending.removeValue(forKey: token) != nil else {
            unmatched += 1
            return
        }
        discarded += 1
        missed += 1
    }

    /// `stream line -> presentation p50 14.2 ms, p99 30.1 ms, max 33 ms (n 780); refresh 16.6667 ms; 780
    /// presented, 0 discarded, 41 missed; commit -> presentation p50 9.1 ms, p99 17 ms`: the part of the overlay's log
    /// line the benchmark reads. The last part splits the first: the overlay's share ends at the commit, the
    /// compositor's begins there.
    public var description: String {
        func ms(_ us: UInt64?) -> String { us.map { String(format2: Double($0) / 1000) } ?? "-" }
        let q = lineToPresentationUS, c = commitToPresentationUS
        return "stream line -> presentation p50 \(ms(q.percentile(50))) ms, p99 \(ms(q.percentile(99))) ms, max \(ms(q.values.max())) ms "
            + "(n \(q.values.count)); refresh \(String(format2: Double(refreshNS) / 1e6)) ms; \(presented) presented, \(discarded) discarded, \(missed) missed; "
            + "commit -> presentation p50 \(ms(c.percentile(50))) ms, p99 \(ms(c.percentile(99))) ms"
    }
}
