/// What became of the overlay's committed frames on the screen: the seam between the overlay, which commits frames
/// and receives the compositor's `wp_presentation` feedback for each, and the benchmark's "line to presentation"
/// figure (issue 39 item 2: the frame for the next compositor frame, at p99; docs/PERFORMANCE.md, "The overlay").
///
/// The overlay reports three things, all on its Wayland thread: ``committed(_:lineArrivalUS:atUS:)`` for every
/// commit that carries a new picture (with the arrival of the earliest stream line it is the first to show), and
/// for that commit's feedback either ``presented(_:atUS:refreshNS:)`` (the time the compositor put it on the screen,
/// on the monotonic clock, and the output's refresh interval) or ``discarded(_:)`` (replaced before it was shown).
/// Everything else (the percentiles, the frames missed) is computed here, so the overlay only reports.
///
/// Where the compositor never says `presented` (headless sway and phoc say nothing; KWin 5.27 offers no
/// `wp_presentation`), the frame callback says when it drew the commit: ``rendered(_:atUS:intervalUS:)`` gives the
/// line-to-compositor-frame figure, which every compositor answers.
public struct FramePresentations: Sendable, CustomStringConvertible {
    /// A committed frame, until its feedback comes: its stream line's arrival, and the commit's time.
    private struct Pending: Sendable {
        var lineArrivalUS: UInt64?
        var committedUS: UInt64
    }

    /// The overlay's own number for a commit (its count of commits): matches feedback to its frame.
    public typealias Token = UInt64

    private var pending: [Token: Pending] = [:]
    /// Committed frames whose frame callback has not come: their stream line's arrival.
    private var undrawn: [Token: UInt64?] = [:]
    /// From a stream line's arrival to the compositor's frame that drew the first commit showing it (its frame
    /// callback), in microseconds.
    public private(set) var lineToFrameUS = BoundedSamples(capacity: 8192)
    /// Lines drawn later than one frame interval after they arrived.
    public private(set) var lateLines = 0
    /// From a stream line's arrival to the presentation of the first frame that shows it, in microseconds.
    public private(set) var lineToPresentationUS = BoundedSamples(capacity: 8192)
    /// From a frame's commit to its presentation, in microseconds.
    public private(set) var commitToPresentationUS = BoundedSamples(capacity: 8192)
    /// The output's refresh interval as the compositor said it (0 where it does not know it), in nanoseconds.
    public private(set) var refreshNS: UInt32 = 0
    public private(set) var presented = 0
    public private(set) var discarded = 0
    /// Frames that showed a line later than the compositor's next frame after its arrival (later than one refresh
    /// interval), and frames discarded with no newer one to show their line: what "the next frame at p99" counts
    /// against.
    public private(set) var missed = 0
    /// Feedback for no frame in flight (a token never committed, or answered twice): must stay 0.
    public private(set) var unmatched = 0

    /// Frames in flight beyond this are forgotten (a compositor that never answers must not grow the table).
    public static let inFlightLimit = 64

    public init() {}

    public mutating func committed(_ token: Token, lineArrivalUS: UInt64?, atUS: UInt64) {
        if pending.count >= Self.inFlightLimit, let oldest = pending.keys.min() { pending[oldest] = nil }
        pending[token] = Pending(lineArrivalUS: lineArrivalUS, committedUS: atUS)
        if undrawn.count >= Self.inFlightLimit, let oldest = undrawn.keys.min() { undrawn[oldest] = nil }
        undrawn[token] = lineArrivalUS
    }

    /// The compositor drew commit `token` in its frame at `atUS` (the commit's frame callback), on an output whose
    /// frame interval is `intervalUS`.
    public mutating func rendered(_ token: Token, atUS: UInt64, intervalUS: UInt64) {
        guard let entry = undrawn.removeValue(forKey: token) else { return }
        guard let arrival = entry else { return }
        let latency = atUS - min(atUS, arrival)
        lineToFrameUS.append(latency)
        if latency > intervalUS { lateLines += 1 }
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
        guard let frame = pending.removeValue(forKey: token) else {
            unmatched += 1
            return
        }
        discarded += 1
        // Replaced by a newer picture before it was shown (the overlay replaces a commit that waits past its frame):
        // its line is shown by the newer one, and counted there.
        if let newer = pending.keys.filter({ $0 > token }).min(), var replacement = pending[newer] {
            if let arrival = frame.lineArrivalUS { replacement.lineArrivalUS = min(replacement.lineArrivalUS ?? arrival, arrival) }
            pending[newer] = replacement
        } else {
            missed += 1
        }
    }

    /// `stream line -> compositor frame p50 9.8 ms, p99 18.1 ms, max 19 ms (n 780), 12 later than a frame; stream line -> presentation p50 14.2 ms, p99 30.1 ms, max 33 ms (n 780); refresh 16.6667 ms; 780
    /// presented, 0 discarded, 41 missed; commit -> presentation p50 9.1 ms, p99 17 ms`: the part of the overlay's log
    /// line the benchmark reads. The last part splits the first: the overlay's share ends at the commit, the
    /// compositor's begins there.
    public var description: String {
        func ms(_ us: UInt64?) -> String { us.map { String(format2: Double($0) / 1000) } ?? "-" }
        let q = lineToPresentationUS, c = commitToPresentationUS, f = lineToFrameUS
        return "stream line -> compositor frame p50 \(ms(f.percentile(50))) ms, p99 \(ms(f.percentile(99))) ms, max \(ms(f.values.max())) ms "
            + "(n \(f.values.count)), \(lateLines) later than a frame; "
            + "stream line -> presentation p50 \(ms(q.percentile(50))) ms, p99 \(ms(q.percentile(99))) ms, max \(ms(q.values.max())) ms "
            + "(n \(q.values.count)); refresh \(String(format2: Double(refreshNS) / 1e6)) ms; \(presented) presented, \(discarded) discarded, \(missed) missed; "
            + "commit -> presentation p50 \(ms(c.percentile(50))) ms, p99 \(ms(c.percentile(99))) ms"
    }
}
