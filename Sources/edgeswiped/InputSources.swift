import EdgeSwipeConfig
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeLiveInput
import EdgeSwipeRecordings
import Logging

/// Live touchscreens and touchpads, read through libinput and libevdev.
final class LiveSource: InputSource {
    let input: LiveTouchInput
    private let logger: Logger
    private var failed = false
    /// Whether the devices found at start-up (libinput's coldplug, all read in the first pass) were looked at.
    private var checkedStartup = false

    init(input: LiveTouchInput, logger: Logger) {
        self.input = input
        self.logger = logger
    }

    var pollDescriptors: [Int32] { failed ? [] : input.pollDescriptors }
    var nextWakeup: MonotonicInstant? { nil }
    var isExhausted: Bool { failed }

    func service(now: MonotonicInstant, feed: (InputStep) -> Void) {
        do {
            try input.drain(now: now, feed)
        } catch {
            // A broken libinput context cannot be recovered in place; say so once and stop polling it.
            logger.error("input failed: \(error)")
            failed = true
        }
        // A daemon that found nothing to read says why, and what to do, rather than only "ready".
        if !checkedStartup {
            checkedStartup = true
            if let why = input.noTouchDevice { logger.warning("\(why)") }
        }
    }

    func suspend(now: MonotonicInstant, feed: (InputStep) -> Void) { input.suspend(now: now, feed) }
    func resume() { input.resume() }
}

/// A recording played in real time (`--replay`): its steps are scheduled on the live monotonic clock, scaled
/// by `speed`, so clients see exactly what live hardware would have produced.
///
/// Looped (`--loop`), it plays the same devices again and again: they are added once, by the first pass, and stay
/// (a client sees one `device` `added` per device, not a removal and an addition per pass, which would tell it a
/// device came and went that never did). A touch a pass leaves down ends as lost events instead, as the removal at
/// the end of a single play would cancel it.
final class ReplaySource: InputSource {

    private let recordings: [Recording]
    private let options: RecordingPlayer.Options
    private let speed: Double
    /// Whether the recording plays again at its end (`--loop`): a new pass starts when the input thread says
    /// (``startNextPass(at:)``).
    let loops: Bool
    /// A pass has ended and the next waits for the input thread.
    private(set) var isBetweenPasses = false
    /// Holds the first step back until it returns true (e.g. until enough clients are connected). While it is
    /// closed the source asks for no wake-up: whoever can open it wakes the input thread (``InputThread/wake()``).
    private let gate: () -> Bool
    private var player: RecordingPlayer
    /// Passes started so far: from the second on, the player's device additions are not fed (the devices stayed).
    private var passes = 1
    private var pending: InputStep?
    /// The step in `pending` was fed and the player has not been asked for the next yet: decoding a frame
    /// (~15,000 instructions for ten fingers) waits until after the publish of the pass that fed the last one,
    /// unless the next may be due in the same pass (``RecordingPlayer/nextStepNotBefore``).
    private var decodeDue = false
    private var origin: (recorded: MonotonicInstant, live: MonotonicInstant)?
    /// The gate was found closed: wait for a wake-up rather than a deadline.
    private var waitingAtGate = false
    private(set) var isExhausted = false
    private let logger: Logger
    /// The recorded time of a far-off next event already reported, so that the warning is logged once.
    private var reportedWait: MonotonicInstant?

    init(recordings: [Recording], options: RecordingPlayer.Options, speed: Double, loop: Bool, gate: @escaping () -> Bool, logger: Logger) {
        self.recordings = recordings
        self.options = options
        self.speed = speed > 0 ? speed : 1
        self.loops = loop
        self.gate = gate
        self.logger = logger
        self.player = RecordingPlayer(recordings: recordings, options: options)
        for s in player.skipped { logger.warning("replay: skipping \(s)") }
    }

    var devices: [PlayedDevice] { player.devices }
    var pollDescriptors: [Int32] { [] }

    var nextWakeup: MonotonicInstant? {
        if isExhausted || isBetweenPasses { return nil }
        guard let origin else {
            // Not started: check the gate now; once it was closed, only a wake-up (a client connecting) does.
            return waitingAtGate ? nil : .zero
        }
        decodeIfDue()
        guard let step = pending else { return .zero }
        return live(step.time, origin)
    }

    private func decodeIfDue() {
        guard decodeDue else { return }
        decodeDue = false
        pending = player.next()
    }

    /// The schedule never reaches past this many microseconds from its start (about 73,000 years): a recording's
    /// clock may jump anywhere the parser accepts, and a slow speed stretches the jump further, so the arithmetic
    /// saturates here rather than trap; an event that far away is simply waited for.
    static let farthestOffset = Double(Int64.max / 4)

    private func live(_ recorded: MonotonicInstant, _ origin: (recorded: MonotonicInstant, live: MonotonicInstant)) -> MonotonicInstant {
        let offset = Double((recorded - origin.recorded).value) / speed
        let bounded = offset.isFinite ? min(max(offset.rounded(), 0), Self.farthestOffset) : Self.farthestOffset
        return origin.live.advanced(by: Microseconds(Int64(bounded)))
    }

    func service(now: MonotonicInstant, feed: (InputStep) -> Void) {
        guard !isExhausted && !isBetweenPasses else { return }
        if origin == nil {
            guard gate() else {
                waitingAtGate = true
                return
            }
            pending = player.next()
            origin = (pending?.time ?? options.start, now)
            // Scripts wait for this line (scripts/quickstart starts the web bridge after it, so that the monitor,
            // not the bridge, is the client the replay was held for).
            logger.info("replay: playing")
        }
        guard let origin else { return }
        while true {
            if decodeDue {
                // The input thread asks for the next wake-up after publishing this pass: decode then, unless the
                // next step may be due now.
                if let notBefore = player.nextStepNotBefore, live(notBefore, origin) > now { return }
                decodeIfDue()
            }
            guard let step = pending else { break }
            let at = live(step.time, origin)
            guard at <= now else {
                let wait = at - now
                if wait.value > 3_600_000_000 && reportedWait != step.time {
                    reportedWait = step.time
                    logger.warning("replay: the next event is \(wait.value / 1_000_000) s away (the recording's clock jumps, at --speed \(speed)); waiting for it")
                }
                return
            }
            if case .deviceAdded = step.input, passes > 1 {
                // Added by the first pass, and still there.
            } else {
                feed(moved(step, to: at))
            }
            pending = nil
            decodeDue = true
        }
        // The recording has ended.
        if loops {
            for played in player.devices { feed(InputStep(time: now, input: .eventsLost(played.device.id))) }
            isBetweenPasses = true
        } else {
            logger.info("replay: the recording has ended")
            isExhausted = true
        }
    }

    func startNextPass(at time: MonotonicInstant) {
        guard isBetweenPasses else { return }
        logger.info("replay: starting again")
        isBetweenPasses = false
        passes += 1
        player = RecordingPlayer(recordings: recordings, options: options)
        pending = player.next()
        decodeDue = false
        origin = (pending?.time ?? options.start, time)
    }

    /// The step as it happens on the live clock.
    private func moved(_ step: InputStep, to time: MonotonicInstant) -> InputStep {
        switch step.input {
        case .frame(var frame):
            frame.time = time
            return InputStep(time: time, input: .frame(frame))
        case .deviceAdded, .deviceChanged, .deviceRemoved, .eventsLost, .swipe:
            return InputStep(time: time, input: step.input)
        }
    }
}

