public import EdgeSwipeCore

/// Scripted fingers: data, not code. The one way EdgeSwipe writes synthetic touches, for the core's tests, the
/// input layer's evdev rendering (the demo recording, decoder tests), the daemon's tests, the benchmarks and,
/// through the same JSON description (``Stroke``), `scripts/e2e/make-scenarios.py`.
///
/// A script is a list of samples: a finger (its slot) landing, moving or lifting at a time, at a position in the
/// device's own units, unrounded. Time comes from the script, so nothing sleeps. Two views of it exist:
/// ``frames(on:origin:)`` gives the touch frames the engine sees, and `EvdevScriptRenderer` (in the input layer)
/// the kernel's events for the same fingers; decoding those events gives the same frames.
public struct FingerScript: Hashable, Sendable {
    /// One finger at one instant.
    public struct Sample: Hashable, Sendable {
        /// From the script's origin.
        public var time: Microseconds
        /// The slot (MT protocol B) the finger occupies while it is down.
        public var finger: Int32
        public var phase: TouchPhase
        /// Device units, unrounded; rendering rounds half away from zero.
        public var x: Double
        public var y: Double
        /// The evdev tracking id of a landing (`nil`: the next one).
        public var trackingID: Int32?

        public init(time: Microseconds, finger: Int32, phase: TouchPhase, x: Double, y: Double, trackingID: Int32? = nil) {
            self.time = time
            self.finger = finger
            self.phase = phase
            self.x = x
            self.y = y
            self.trackingID = trackingID
        }

        /// The position a device reports: the nearest unit, half away from zero, within Int32.
        public var raw: RawPoint { RawPoint(x: Self.round(x), y: Self.round(y)) }

        public static func round(_ v: Double) -> Int32 {
            guard v.isFinite else { return 0 }
            return Int32(max(Double(Int32.min), min(Double(Int32.max), v.rounded(.toNearestOrAwayFromZero))))
        }
    }

    /// In time order; samples of the same instant form one frame, in this order.
    public var samples: [Sample]

    public init(samples: [Sample] = []) {
        self.samples = samples
    }

    public init(strokes: [Stroke]) {
        self.init()
        for s in strokes { self = self + FingerScript(stroke: s) }
    }

    /// Both scripts' samples in time order; at the same instant, `a`'s come first.
    public static func + (a: FingerScript, b: FingerScript) -> FingerScript {
        var merged: [Sample] = []
        merged.reserveCapacity(a.samples.count + b.samples.count)
        var i = 0, j = 0
        while i < a.samples.count || j < b.samples.count {
            if j == b.samples.count || (i < a.samples.count && a.samples[i].time <= b.samples[j].time) {
                merged.append(a.samples[i])
                i += 1
            } else {
                merged.append(b.samples[j])
                j += 1
            }
        }
        return FingerScript(samples: merged)
    }

    /// The script `offset` later.
    public func shifted(by offset: Microseconds) -> FingerScript {
        FingerScript(samples: samples.map { var s = $0; s.time = s.time + offset; return s })
    }

    /// The script without its samples from `time` on: fingers still down then stay down.
    public func cut(at time: Microseconds) -> FingerScript {
        FingerScript(samples: samples.filter { $0.time < time })
    }

    /// When the last sample happens.
    public var end: Microseconds { samples.last?.time ?? .zero }

    /// The touch frames the engine sees, as the evdev decoder gives them for the rendered events: positions
    /// rounded to device units and normalized through `device`, one frame per instant, the fingers of a frame in
    /// slot order, a finger's samples within one instant folded into what the kernel reports (a motion and a
    /// lift: the lift, where it moved to; a landing and a lift: both), and a motion that does not change a
    /// finger's reported position dropped (the kernel sends nothing for it). `origin` is the script's time zero.
    public func frames(on device: TouchDevice, origin: MonotonicInstant = MonotonicInstant(microseconds: 1_000_000)) -> [TouchFrame] {
        struct Finger {
            var active = false
            var reported: RawPoint? = nil
            var at = RawPoint(x: 0, y: 0)
            var landed = false
            var lifted: RawPoint? = nil
            var tapped = false
        }
        var fingers: [Int32: Finger] = [:]
        var frames: [TouchFrame] = []
        var i = 0
        while i < samples.count {
            let time = samples[i].time
            var touched: [Int32] = []
            while i < samples.count && samples[i].time == time {
                let s = samples[i]
                var f = fingers[s.finger] ?? Finger()
                if !touched.contains(s.finger) { touched.append(s.finger) }
                switch s.phase {
                case .down where !f.active:
                    f.active = true
                    f.landed = true
                    f.at = s.raw
                case .motion where f.active:
                    f.at = s.raw
                case .up where f.active, .cancel where f.active:
                    f.active = false
                    if f.landed {
                        f.landed = false
                        f.tapped = true
                    } else {
                        f.lifted = f.at
                    }
                case .down, .motion, .up, .cancel:
                    // Not something a device sends (a second landing, a motion or a lift without one).
                    break
                }
                fingers[s.finger] = f
                i += 1
            }
            var touches: [Touch] = []
            for id in touched.sorted() {
                guard var f = fingers[id] else { continue }
                if let p = f.lifted {
                    touches.append(Touch(id: id, phase: .up, raw: p, on: device))
                    f.reported = nil
                }
                if f.tapped {
                    touches.append(Touch(id: id, phase: .down, raw: f.at, on: device))
                    touches.append(Touch(id: id, phase: .up, raw: f.at, on: device))
                }
                if f.landed && f.active {
                    touches.append(Touch(id: id, phase: .down, raw: f.at, on: device))
                    f.reported = f.at
                } else if f.active, let r = f.reported, r != f.at {
                    touches.append(Touch(id: id, phase: .motion, raw: f.at, on: device))
                    f.reported = f.at
                }
                f.landed = false
                f.lifted = nil
                f.tapped = false
                fingers[id] = f
            }
            if !touches.isEmpty {
                frames.append(TouchFrame(device: device.id, time: origin.advanced(by: time), touches: touches))
            }
        }
        return frames
    }
}

/// How a finger moves between two points: the fraction of the way covered at a fraction of the time.
public enum Easing: String, Hashable, Sendable, Codable, CaseIterable {
    /// A constant speed: still moving when it arrives (a flick).
    case linear
    /// `3p² - 2p³`: starts and arrives at rest.
    case smoothstep
    /// `p²`: speeds up, fastest on arrival.
    case easeIn = "ease-in"

    /// The fraction of the way at time fraction `p` (0...1). Written as `scripts/e2e/make-scenarios.py` writes it,
    /// operation for operation, so that both give the same doubles.
    public func value(_ p: Double) -> Double {
        switch self {
        case .linear: p
        case .smoothstep: p * p * (3 - 2 * p)
        case .easeIn: p * p
        }
    }
}

/// One finger's stroke: it lands, moves through straight segments, rests and lifts (or stays down). The unit of
/// the scenario description that `scripts/e2e/make-scenarios.py` reads too (`scripts/e2e/scenarios.json`), so the
/// fields and their JSON names are the contract between the two.
public struct Stroke: Hashable, Sendable, Codable {
    /// A straight segment, sampled `frames` times: sample `i` (1...frames) at `i × duration / frames`
    /// microseconds (integer division) after the segment starts, at `from + (to - from) × easing(i / frames)`.
    public struct Move: Hashable, Sendable, Codable {
        public var to: [Double]
        public var frames: Int
        public var durationUS: UInt64
        public var easing: Easing

        public init(to x: Double, _ y: Double, frames: Int, durationUS: UInt64, easing: Easing) {
            self.to = [x, y]
            self.frames = frames
            self.durationUS = durationUS
            self.easing = easing
        }

        enum CodingKeys: String, CodingKey {
            case to, frames, easing
            case durationUS = "duration_us"
        }
    }

    /// The slot.
    public var finger: Int32
    /// The evdev tracking id of the landing; `nil` takes the next one.
    public var trackingID: Int32?
    /// When it lands, from the script's origin.
    public var startUS: UInt64
    /// Where it lands, in device units.
    public var from: [Double]
    public var moves: [Move]
    /// How long it stays after the last sample before lifting.
    public var restUS: UInt64
    /// `false` leaves the finger down at the end.
    public var lift: Bool

    public init(
        finger: Int32 = 0, trackingID: Int32? = nil, startUS: UInt64 = 0, from x: Double, _ y: Double, moves: [Move],
        restUS: UInt64 = 0, lift: Bool = true
    ) {
        self.finger = finger
        self.trackingID = trackingID
        self.startUS = startUS
        self.from = [x, y]
        self.moves = moves
        self.restUS = restUS
        self.lift = lift
    }

    enum CodingKeys: String, CodingKey {
        case finger, from, moves, lift
        case trackingID = "tracking_id"
        case startUS = "start_us"
        case restUS = "rest_us"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        finger = try c.decodeIfPresent(Int32.self, forKey: .finger) ?? 0
        trackingID = try c.decodeIfPresent(Int32.self, forKey: .trackingID)
        startUS = try c.decodeIfPresent(UInt64.self, forKey: .startUS) ?? 0
        from = try c.decode([Double].self, forKey: .from)
        moves = try c.decodeIfPresent([Move].self, forKey: .moves) ?? []
        restUS = try c.decodeIfPresent(UInt64.self, forKey: .restUS) ?? 0
        lift = try c.decodeIfPresent(Bool.self, forKey: .lift) ?? true
    }
}

extension FingerScript {
    /// The samples of one stroke. A point with fewer than two coordinates counts as (0, 0), a move of no
    /// frames as one frame: a description cannot make this trap.
    public init(stroke: Stroke) {
        func point(_ p: [Double]) -> (x: Double, y: Double) { p.count >= 2 ? (p[0], p[1]) : (0, 0) }
        var samples: [Sample] = []
        var t = stroke.startUS
        var at = point(stroke.from)
        samples.append(Sample(
            time: Microseconds(Int64(clamping: t)), finger: stroke.finger, phase: .down, x: at.x, y: at.y,
            trackingID: stroke.trackingID))
        for move in stroke.moves {
            let to = point(move.to)
            let frames = max(1, move.frames)
            for i in 1...frames {
                let f = move.easing.value(Double(i) / Double(frames))
                samples.append(Sample(
                    time: Microseconds(Int64(clamping: t + UInt64(i) * move.durationUS / UInt64(frames))),
                    finger: stroke.finger, phase: .motion, x: at.x + (to.x - at.x) * f, y: at.y + (to.y - at.y) * f))
            }
            t += move.durationUS
            at = to
        }
        if stroke.lift {
            samples.append(Sample(
                time: Microseconds(Int64(clamping: t + stroke.restUS)), finger: stroke.finger, phase: .up, x: at.x, y: at.y))
        }
        self.init(samples: samples)
    }
}
