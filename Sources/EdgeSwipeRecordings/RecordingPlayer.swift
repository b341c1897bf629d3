public import EdgeSwipeCore
public import EdgeSwipeInput

/// A recorded device that is not played, and why (a keyboard, a pen, a semi-MT pad).
public struct SkippedDevice: Hashable, Sendable, CustomStringConvertible {
    public var recording: String
    public var source: String
    /// Why it is not played: not a touch device, or rejected.
    public var reason: TouchDeviceError

    public var description: String { "\(source): \(reason)" }
}

/// A recorded device that is played, with the id the engine knows it by.
public struct PlayedDevice: Hashable, Sendable {
    public var device: TouchDevice
    public var touchProtocol: TouchProtocol
    /// Which recording (index into the player's recordings) and which of its devices.
    public var recording: Int
    public var index: Int
}

/// Plays recordings through the same decoders as live devices, on a virtual clock taken from the recordings.
///
/// Several recordings play at once: each one's first event is aligned with ``Options/start``; or, with
/// ``Options/Schedule/inTurn(gap:)``, one after another, each one's first event `gap` after the last one's last
/// (the demo's touchscreen swipes, then its touchpad swipes). Each touch device is added when its recording starts
/// and removed after its recording's last event (so that a finger still down when the recording ends cancels cleanly);
/// devices that are not touch devices, or that are rejected (semi-MT), are listed in ``skipped`` with the
/// reason. Device ids are given in order of recording and device, so the same
/// files always give the same ids and the same events.
///
/// Use it as an iterator of ``InputStep``s to schedule the steps yourself (the daemon's `--replay` at recorded
/// speed), or call ``play(into:events:)`` to run everything at once, offline, with the engine's animation ticks
/// interleaved on the same virtual clock.
///
/// A streamed recording's devices (``Recording/stream(path:descriptionPath:)``) are read from their files as
/// they play; a player of one must not be copied while it plays, as the copies would share the files' readers.
public struct RecordingPlayer: IteratorProtocol, Sendable {
    /// How recordings are played.
    public struct Options: Sendable {
        /// The player's clock at the first event of every recording.
        public var start: MonotonicInstant
        /// The id of the first played device; the others follow in order.
        public var firstDeviceID: UInt32
        /// How each device is mounted and sized (the configuration's rotation, calibration, assumed size).
        public var setup: DeviceSetupProvider
        /// Removes each recording's devices after its last event, cancelling a gesture still in flight.
        public var removeDevicesAtEnd: Bool
        /// Whether the recordings play at once or one after another.
        public var schedule: Schedule

        /// When each recording plays.
        public enum Schedule: Hashable, Sendable {
            /// Every recording's first event at ``Options/start``.
            case together
            /// The first recording's first event at ``Options/start``, each next one's `gap` after the last event
            /// of the one before (at once after a recording that played nothing).
            case inTurn(gap: Microseconds)

            /// In turn, a second apart, as the demo's swipes are (`--in-turn` of `edgeswiped` and `edgeswipectl`).
            public static let aSecondApart = Schedule.inTurn(gap: .milliseconds(1000))
        }

        public init(
            start: MonotonicInstant = .zero, firstDeviceID: UInt32 = 1,
            setup: @escaping DeviceSetupProvider = { _, _, _ in DeviceSetup() },
            removeDevicesAtEnd: Bool = true, schedule: Schedule = .together
        ) {
            self.start = start
            self.firstDeviceID = firstDeviceID
            self.setup = setup
            self.removeDevicesAtEnd = removeDevicesAtEnd
            self.schedule = schedule
        }
    }

    /// Where a device's events come from: an array, or its file (a streamed recording).
    private enum Feed: Sendable {
        case memory([EvdevEvent], next: Int)
        case file(any RecordedEventStream)

        var current: EvdevEvent? {
            switch self {
            case .memory(let events, let next): next < events.count ? events[next] : nil
            case .file(let stream): stream.current
            }
        }

        mutating func advance() {
            switch self {
            case .memory(let events, let next): self = .memory(events, next: next + 1)
            case .file(let stream): stream.advance()
            }
        }
    }

    private struct Cursor: Sendable {
        var decoder: EvdevFrameDecoder
        var feed: Feed
        let recording: Int
        var isDone: Bool { feed.current == nil }
    }

    public let recordings: [Recording]
    /// Devices that are played, in id order.
    public let devices: [PlayedDevice]
    /// Devices that are not played, with the reason, in order.
    public let skipped: [SkippedDevice]
    private var cursors: [Cursor]
    private let origins: [MonotonicInstant]
    /// Where each recording's first event plays: `nil` for one whose turn has not come (``Options/Schedule``).
    private var starts: [MonotonicInstant?]
    private let schedule: Options.Schedule
    private let removeAtEnd: Bool
    private var pending: [InputStep] = []
    private var pendingIndex = 0
    private var lastTime: [MonotonicInstant]
    private var finishedRecordings: [Bool]

    /// Classifies every device of `recordings` and prepares its decoder; nothing is decoded until ``next()``.
    public init(recordings: [Recording], options: Options = Options()) {
        self.recordings = recordings
        self.removeAtEnd = options.removeDevicesAtEnd
        self.schedule = options.schedule
        var devices: [PlayedDevice] = []
        var skipped: [SkippedDevice] = []
        var cursors: [Cursor] = []
        var nextID = options.firstDeviceID
        for (r, recording) in recordings.enumerated() {
            for (d, recorded) in recording.devices.enumerated() {
                let description = recorded.description
                do throws(TouchDeviceError) {
                    let (kind, touchProtocol) = try description.touchCapabilities()
                    let device = try description.touchDevice(
                        id: DeviceID(nextID), path: recorded.source, setup: options.setup(description.name, description.udevProperties, kind))
                    let decoder = try EvdevFrameDecoder(description: description, device: device)
                    nextID += 1
                    devices.append(PlayedDevice(device: device, touchProtocol: touchProtocol, recording: r, index: d))
                    let feed: Feed = recorded.streamed.map { .file($0.openStream()) } ?? .memory(recorded.events, next: 0)
                    cursors.append(Cursor(decoder: decoder, feed: feed, recording: r))
                } catch {
                    skipped.append(SkippedDevice(recording: recording.path, source: recorded.source, reason: error))
                }
            }
        }
        self.devices = devices
        self.skipped = skipped
        self.cursors = cursors
        self.origins = recordings.map { $0.firstEventTime ?? .zero }
        switch options.schedule {
        case .together: self.starts = Array(repeating: options.start, count: recordings.count)
        case .inTurn: self.starts = recordings.indices.map { $0 == 0 ? options.start : nil }
        }
        self.lastTime = Array(repeating: options.start, count: recordings.count)
        self.finishedRecordings = Array(repeating: false, count: recordings.count)
        // Each device is added when its recording starts: at once, or at its turn (finishRecordings).
        let startsNow = starts
        self.pending = devices.filter { startsNow[$0.recording] != nil }.map { InputStep(time: options.start, input: .deviceAdded($0.device)) }
    }

    /// Why a streamed recording could not be played to its end (it could not be read again, or changed since
    /// ``Recording/stream(path:descriptionPath:)`` read it), per device; empty when every one played.
    public var streamFailures: [RecordingError] {
        cursors.compactMap { c in if case .file(let stream) = c.feed { stream.failure } else { nil } }
    }

    /// The decoder's counters for a played device.
    public func statistics(for id: DeviceID) -> EvdevFrameDecoder.Statistics? {
        guard let i = devices.firstIndex(where: { $0.device.id == id }) else { return nil }
        return cursors[i].decoder.statistics
    }

    /// The next input, in time order across every device of every recording; `nil` at the end.
    public mutating func next() -> InputStep? {
        while true {
            if pendingIndex < pending.count {
                let step = pending[pendingIndex]
                pendingIndex += 1
                if pendingIndex == pending.count {
                    pending.removeAll(keepingCapacity: true)
                    pendingIndex = 0
                }
                return step
            }
            guard let i = earliestCursor()?.index else {
                finishRecordings()
                if pending.isEmpty { return nil }
                continue
            }
            guard let raw = cursors[i].feed.current else { continue }
            cursors[i].feed.advance()
            let r = cursors[i].recording
            let time = aligned(raw.time, recording: r)
            lastTime[r] = max(lastTime[r], time)
            let output = cursors[i].decoder.feed(time: time, type: raw.type, code: raw.code, value: raw.value)
            if cursors[i].isDone { finishRecordings() }
            switch output {
            case .frame(let frame)?:
                return InputStep(time: frame.time, input: .frame(frame))
            case .eventsLost(let id, let at)?:
                return InputStep(time: at, input: .eventsLost(id))
            case nil:
                continue
            }
        }
    }

    /// The player's clock for a recorded timestamp. A timestamp earlier than its recording's first event
    /// (clocks do step back in some files) plays at the start. Only for a recording whose turn has come.
    private func aligned(_ time: MonotonicInstant, recording r: Int) -> MonotonicInstant {
        let start = starts[r] ?? .zero
        return time >= origins[r] ? start + (time - origins[r]) : start
    }

    /// The device whose next event is earliest, and that event's time on the player's clock; ties go to the
    /// earlier device, so the order is stable. (By index: a copy of each cursor, decoder and all, cost retains.)
    private func earliestCursor() -> (index: Int, time: MonotonicInstant)? {
        var best: (index: Int, time: MonotonicInstant)? = nil
        for i in cursors.indices where starts[cursors[i].recording] != nil {
            guard let event = cursors[i].feed.current else { continue }
            let t = aligned(event.time, recording: cursors[i].recording)
            if best.map({ t < $0.time }) ?? true { best = (i, t) }
        }
        return best
    }

    /// A time the next step cannot be earlier than, known without decoding it: the next queued step's, else the
    /// earliest undecoded event's (a frame ends at or after its first event). `nil` when only ``next()`` can
    /// tell (every device has ended). The daemon's replay uses it to decode the next frame after it has published
    /// the current one, not on the way to the clients. (In a file whose clock steps back inside a frame the bound
    /// can be later than the frame; the daemon then feeds that frame in its next pass, at once.)
    public var nextStepNotBefore: MonotonicInstant? {
        if pendingIndex < pending.count { return pending[pendingIndex].time }
        return earliestCursor()?.time
    }

    /// Queues the removal of the devices of every recording that has no events left, and gives the next one its
    /// turn.
    private mutating func finishRecordings() {
        for r in recordings.indices where !finishedRecordings[r] {
            guard let start = starts[r], !cursors.contains(where: { $0.recording == r && !$0.isDone }) else { continue }
            finishedRecordings[r] = true
            if removeAtEnd {
                for (i, played) in devices.enumerated() where played.recording == r {
                    pending.append(InputStep(time: lastTime[r], input: .deviceRemoved(cursors[i].decoder.device.id)))
                }
            }
            if case .inTurn(let gap) = schedule, r + 1 < recordings.count {
                let played = cursors.contains { $0.recording == r }
                let next = played ? lastTime[r] + gap : start
                starts[r + 1] = next
                lastTime[r + 1] = next
                for device in devices where device.recording == r + 1 {
                    pending.append(InputStep(time: next, input: .deviceAdded(device.device)))
                }
            }
        }
    }

    // MARK: - Offline play

    /// Plays everything into `engine`: before each input, the engine's animation ticks that fall before it; after
    /// the last, ticks until nothing animates any more.
    public mutating func play(into engine: inout Engine, events: inout [EngineEvent]) {
        while let step = next() {
            Self.runDeadlines(of: &engine, before: step.time, into: &events)
            step.apply(to: &engine, into: &events)
        }
        Self.runDeadlines(of: &engine, before: nil, into: &events)
    }

    /// Plays everything into `engine`, handing each engine event to `body` as it happens. The buffer is reused,
    /// so a long recording does not pile up events in memory. `input`, when given, sees each input step (the
    /// touches themselves, which a plot draws) just before the engine takes it, after the ticks that precede it.
    public mutating func play(
        into engine: inout Engine, input: ((InputStep) -> Void)? = nil, _ body: (EngineEvent) -> Void
    ) {
        var buffer: [EngineEvent] = []
        func flush() {
            for event in buffer { body(event) }
            buffer.removeAll(keepingCapacity: true)
        }
        while let step = next() {
            Self.runDeadlines(of: &engine, before: step.time, into: &buffer)
            flush()
            input?(step)
            step.apply(to: &engine, into: &buffer)
            flush()
        }
        Self.runDeadlines(of: &engine, before: nil, into: &buffer)
        flush()
    }

    /// Calls `engine.tick(at:)` for every deadline before `limit` (every deadline, when `limit` is `nil`), in
    /// order. Stops if a deadline fails to advance, so a misbehaving engine cannot hang a replay.
    public static func runDeadlines(of engine: inout Engine, before limit: MonotonicInstant?, into events: inout [EngineEvent]) {
        var previous: MonotonicInstant? = nil
        while let deadline = engine.nextDeadline {
            if let limit, deadline >= limit { return }
            if let previous, deadline <= previous { return }
            engine.tick(at: deadline, into: &events)
            previous = deadline
        }
    }
}
