// When the overlay paints: just before the compositor's next frame, with the newest state (issue 39 item 2).
//
// The usual Wayland loop paints when the frame callback comes, that is right after the compositor's frame. A
// stream line that arrives while that commit waits for the next frame is painted only at the following callback,
// and shown a frame later: between one and two frames after it arrived (p50 ~25 ms at 60 Hz). Painting instead at
// the last moment that still makes the compositor's next frame shows every line that arrived before that moment in
// that frame: a line waits less than one frame interval for its commit, and is shown the frame after it arrived.
// The moment is predicted from the frame callbacks (the compositor draws every interval while something changes)
// and the margin it needs (painting, the trip to the compositor, its own work before it draws) is learnt from
// which frame each commit made: a commit that misses its frame makes the margin larger at once, each one that makes
// it smaller by a hundredth of that, so about one commit in a hundred misses (the p99). Until the first miss the
// margin comes down faster (descentStepUS), as a TCP window opens in slow start.

/// The overlay's frame timing for one surface, as a state machine (STYLE.md, 1): ``handle(_:atUS:)`` takes what
/// happened (a commit, a frame callback, the output's refresh), ``decision(atUS:)`` says when to paint what changed.
/// Pure: every time is passed in (the monotonic clock, microseconds), so its tests are tables.
public struct FramePacer: Sendable, Equatable {
    // (The state machine's data, the phase and the commit in flight, is in its cases; the margin, the interval and
    // the counts are what it has learnt, which every state shares.)
    public enum State: Sendable, Equatable {
        /// No commit is waiting for its frame; `lastFrameUS` is the latest frame callback's time, if any came.
        case idle(lastFrameUS: UInt64?)
        /// A commit waits for its frame: when it was made, and the frame callback's time it aims at (`nil`: it was
        /// painted at once, for a compositor that had nothing to draw, whose next frame is not predicted).
        case inFlight(lastFrameUS: UInt64?, committedUS: UInt64, aimUS: UInt64?)
    }

    public enum Event: Sendable, Equatable, CustomStringConvertible {
        /// A new picture was committed (with a frame callback); the time passed is when its painting began.
        case committed
        /// The frame callback of the newest commit came: the compositor drew it, at `frameUS`.
        case frameDone(frameUS: UInt64)
        /// The output's refresh interval (from `wl_output.mode`), in microseconds.
        case refresh(intervalUS: UInt64)
        /// A picture took this long to paint and commit: the deadline leaves room for the longest of the latest.
        case painted(durationUS: UInt64)
        /// The surface went (the gesture's drawing ended): a commit in flight gets no callback. The pacer is the
        /// output's, so what it learnt carries over to the next gesture's surface.
        case surfaceGone

        public var description: String {
            switch self {
            case .committed: "committed"
            case .frameDone: "frame done"
            case .refresh: "refresh"
            case .painted: "painted"
            case .surfaceGone: "surface gone"
            }
        }
    }

    public enum Decision: Sendable, Equatable {
        /// Paint what changed now.
        case paintNow
        /// Paint at this time: the deadline for the compositor's next frame (wake up then).
        case paintAt(UInt64)
        /// A commit waits for its frame: paint when its callback comes (or at a later deadline, which a decision
        /// then gives).
        case waitForFrame
    }

    /// Without a refresh from the output: 60 Hz.
    public static let defaultIntervalUS: UInt64 = 16_667
    /// What a refresh interval may be (240 Hz to 10 Hz); a compositor's other numbers are not believed.
    public static let intervalRangeUS: ClosedRange<UInt64> = 4_000...100_000
    public static let initialMarginUS: UInt64 = 4_000
    public static let minimumMarginUS: UInt64 = 500
    /// A missed frame moves the deadline this much earlier; a frame made moves it later by a hundredth of that.
    public static let missStepUS: UInt64 = 1_000
    public static let hitStepUS: UInt64 = 10
    /// Until the output's first missed frame, each frame made moves the deadline this much later: the margin comes
    /// down from its cautious start within a swipe (14 frames from 4 ms to the minimum), not over the first ~350
    /// frames, six seconds of swiping in which every line waited for a deadline 3 ms earlier than it needed.
    public static let descentStepUS: UInt64 = 250
    /// A commit begun this long after its deadline still counts as made at it (the thread's wake-up is late by
    /// tens of microseconds idle, more under load).
    public static let wakeSlackUS: UInt64 = 1_000

    public private(set) var state: State = .idle(lastFrameUS: nil)
    /// The compositor's frame interval: the output's refresh, or, where the compositor draws less often (a loaded
    /// phone's GPU, a nested compositor), the median of the periods it was seen to draw at.
    public private(set) var intervalUS = defaultIntervalUS
    /// The output's refresh interval (`wl_output.mode`).
    public private(set) var refreshUS = defaultIntervalUS
    /// The latest periods between two frames the compositor drew for commits that waited for it.
    private var periodsUS: [UInt64] = []
    static let periodSamples = 8
    /// What the deadline leaves beyond the painting (the trip to the compositor, its own work before it draws,
    /// the thread's wake-up): learnt from the frames made and missed.
    public private(set) var marginUS = initialMarginUS
    /// The latest paintings' durations; the longest is the painting's share of the deadline.
    private var paintsUS: [UInt64] = []
    static let paintSamples = 32
    /// How long before the predicted frame the overlay begins to paint: the longest recent painting and the
    /// margin, at most three quarters of a frame.
    public var leadUS: UInt64 { min((paintsUS.max() ?? 0) + marginUS, intervalUS * 3 / 4) }
    /// Commits made at a deadline that made the frame they aimed at, and those that did not.
    public private(set) var made = 0
    public private(set) var missed = 0

    public init() {}

    /// How much later than predicted a frame callback may come for its commit to have made the frame.
    /// Half a frame: a commit that misses its frame on a compositor with a real refresh is drawn a whole frame
    /// later, which this tells apart from the compositor's own jitter in drawing.
    var madeSlackUS: UInt64 { intervalUS / 2 }

    /// The most the margin may be: half a frame (a larger one would leave less than half a frame for the lines to
    /// arrive in).
    var maximumMarginUS: UInt64 { intervalUS / 2 }

    /// The compositor's next frame after `now` (its frame callback's time) and the deadline for it, while its phase
    /// is known: it drew a frame less than two intervals ago. Past that, a compositor that drew nothing since draws
    /// a new commit at once (wlroots) or at its next vblank: there is nothing to aim at.
    func nextFrame(after now: UInt64, lastFrameUS: UInt64?) -> (frameUS: UInt64, deadlineUS: UInt64)? {
        guard let last = lastFrameUS, now < last + 2 * intervalUS else { return nil }
        let frame = now < last + intervalUS ? last + intervalUS : last + 2 * intervalUS
        return (frame, frame - leadUS)
    }

    /// Whether a commit waits for its frame callback.
    public var isInFlight: Bool {
        switch state {
        case .idle: false
        case .inFlight: true
        }
    }

    /// When to paint a picture that changed, at `now`.
    public func decision(atUS now: UInt64) -> Decision {
        switch state {
        case .idle(let lastFrameUS): decisionWhenIdle(lastFrameUS: lastFrameUS, now: now)
        case .inFlight(let lastFrameUS, let committedUS, let aimUS):
            decisionInFlight(lastFrameUS: lastFrameUS, committedUS: committedUS, aimUS: aimUS, now: now)
        }
    }

    /// Before the next frame's deadline: at the deadline, with whatever else comes by then. Past it: at once, as
    /// it may still make the frame (if not, the commit is replaced at the next deadline: decisionInFlight).
    private func decisionWhenIdle(lastFrameUS: UInt64?, now: UInt64) -> Decision {
        guard let next = nextFrame(after: now, lastFrameUS: lastFrameUS), now < next.deadlineUS else { return .paintNow }
        return .paintAt(next.deadlineUS)
    }

    /// A commit made at its deadline is drawn in the frame it aims at: the next picture waits for its callback. One
    /// made at once (past a deadline, or with no phase known), or one that missed its frame, may wait for a later
    /// frame than the lines after it could make: it is replaced at the next deadline, a newer picture in the same
    /// frame, while the compositor draws (for three intervals after the commit; past that it does not draw us: wait).
    private func decisionInFlight(lastFrameUS: UInt64?, committedUS: UInt64, aimUS: UInt64?, now: UInt64) -> Decision {
        if let aimUS, now <= aimUS + madeSlackUS { return .waitForFrame }
        guard now < committedUS + 3 * intervalUS, let last = lastFrameUS else { return .waitForFrame }
        // The phase from the last frame drawn, carried over the frames since (a missed one included).
        let elapsed = (now - min(now, last)) / intervalUS
        guard let next = nextFrame(after: now, lastFrameUS: last + elapsed * intervalUS) else { return .waitForFrame }
        if now < next.deadlineUS { return .paintAt(next.deadlineUS) }
        // Woken at the deadline (a little late included): now. Past it: the next frame's.
        return now <= next.deadlineUS + Self.wakeSlackUS ? .paintNow : .paintAt(next.deadlineUS + intervalUS)
    }

    /// The frame callback time a commit begun at `now` aims at: the compositor's next frame, when it is predicted
    /// and the commit was begun at its deadline (a thread woken a little late included). One begun later, for a
    /// line that came after the deadline, may make the frame or not; it says nothing about the margin.
    private func aim(lastFrameUS: UInt64?, now: UInt64) -> UInt64? {
        guard let next = nextFrame(after: now, lastFrameUS: lastFrameUS) else { return nil }
        return now <= next.deadlineUS + Self.wakeSlackUS ? next.frameUS : nil
    }

    /// Follows `event` at `now`; returns the change of state for the log (`idle -> committed -> in flight (at the
    /// deadline)`), or a bug (an event that cannot happen in this state), `nil` when nothing changed worth saying.
    @discardableResult
    public mutating func handle(_ event: Event, atUS now: UInt64) -> String? {
        let old = state
        let note: String?
        switch state {
        case .idle(let lastFrameUS): note = handleIdle(event, lastFrameUS: lastFrameUS, now: now)
        case .inFlight(let lastFrameUS, let committedUS, let aimUS):
            note = handleInFlight(event, lastFrameUS: lastFrameUS, committedUS: committedUS, aimUS: aimUS, now: now)
        }
        if let note { return note }
        return old == state ? nil : "\(Self.name(old)) -> \(event) -> \(Self.name(state))"
    }

    private mutating func handleIdle(_ event: Event, lastFrameUS: UInt64?, now: UInt64) -> String? {
        switch event {
        case .committed:
            state = .inFlight(lastFrameUS: lastFrameUS, committedUS: now, aimUS: aim(lastFrameUS: lastFrameUS, now: now))
        case .frameDone(let frameUS):
            // A callback for no commit in flight (a commit the overlay did not report): the time still tells the phase.
            state = .idle(lastFrameUS: frameUS)
            return "bug: idle -> frame done -> idle: a frame callback with no commit in flight"
        case .refresh(let intervalUS):
            setInterval(intervalUS)
        case .painted(let us):
            samplePaint(us)
        case .surfaceGone:
            break
        }
        return nil
    }

    private mutating func handleInFlight(_ event: Event, lastFrameUS: UInt64?, committedUS: UInt64, aimUS: UInt64?, now: UInt64) -> String? {
        switch event {
        case .committed:
            // A newer picture replacing one not drawn yet (decisionInFlight), or a run-out's one-pixel commit: the
            // frame callback that ends the flight is the newest commit's.
            state = .inFlight(lastFrameUS: lastFrameUS, committedUS: now, aimUS: aim(lastFrameUS: lastFrameUS, now: now))
        case .frameDone(let frameUS):
            // A commit made within a period of the previous frame, drawn at the compositor's first chance: the
            // time between the two frames is its period.
            if let last = lastFrameUS, frameUS > last, committedUS - min(committedUS, last) < intervalUS {
                samplePeriod(frameUS - last)
            }
            if let aimUS {
                // Made when its callback comes at the predicted frame, not a frame later.
                if frameUS <= aimUS + madeSlackUS {
                    made += 1
                    let step = missed == 0 ? Self.descentStepUS : Self.hitStepUS
                    marginUS = max(Self.minimumMarginUS, marginUS - min(marginUS, step))
                } else {
                    missed += 1
                    marginUS = min(maximumMarginUS, marginUS + Self.missStepUS)
                }
            }
            state = .idle(lastFrameUS: frameUS)
        case .refresh(let intervalUS):
            setInterval(intervalUS)
        case .painted(let us):
            samplePaint(us)
        case .surfaceGone:
            // Its callback will never come; the phase stays.
            state = .idle(lastFrameUS: lastFrameUS)
        }
        return nil
    }

    private mutating func setInterval(_ us: UInt64) {
        guard Self.intervalRangeUS.contains(us), us != refreshUS else { return }
        refreshUS = us
        periodsUS.removeAll()
        updateInterval()
    }

    private mutating func samplePaint(_ us: UInt64) {
        if paintsUS.count == Self.paintSamples { paintsUS.removeFirst() }
        paintsUS.append(min(us, Self.intervalRangeUS.upperBound))
    }

    private mutating func samplePeriod(_ us: UInt64) {
        // Two frames or more apart: not a period (a frame missed, a pause).
        guard us < 4 * refreshUS, Self.intervalRangeUS.contains(us) else { return }
        if periodsUS.count == Self.periodSamples { periodsUS.removeFirst() }
        periodsUS.append(us)
        updateInterval()
    }

    /// The median period once there are half the samples, where it is clearly longer than the refresh (one and a
    /// half times): a compositor that draws every other frame or so. A period a little longer than the refresh
    /// means commits that came late (a compositor that draws a late commit at once, as headless wlroots does,
    /// drifts by the lateness): the margin answers that, not the interval.
    private mutating func updateInterval() {
        var interval = refreshUS
        if periodsUS.count >= Self.periodSamples / 2 {
            let median = periodsUS.sorted()[periodsUS.count / 2]
            if median >= refreshUS * 3 / 2 { interval = median }
        }
        intervalUS = interval
        marginUS = min(marginUS, maximumMarginUS)
    }

    private static func name(_ state: State) -> String {
        switch state {
        case .idle: "idle"
        case .inFlight(_, _, let aim): aim == nil ? "in flight (at once)" : "in flight (at the deadline)"
        }
    }
}

extension FramePacer {
    /// When a frame callback says the compositor drew: its own timestamp (`wl_callback.done`'s milliseconds), where
    /// it is on our clock, which wlroots', KWin's and Mutter's are (`CLOCK_MONOTONIC`, 32 bits of milliseconds): a
    /// stamp at most 50 ms before the callback's arrival is believed, as the end of its millisecond; any other (a
    /// compositor on another clock) gives the arrival itself.
    public static func frameTimeUS(stampMS: UInt32, receivedUS: UInt64) -> UInt64 {
        let receivedMS = receivedUS / 1000
        let age = UInt32(truncatingIfNeeded: receivedMS) &- stampMS
        guard age <= 50, receivedMS >= UInt64(age) else { return receivedUS }
        return min(receivedUS, (receivedMS - UInt64(age)) * 1000 + 999)
    }
}
