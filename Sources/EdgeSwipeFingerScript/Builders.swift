public import EdgeSwipeCore

/// A swipe inward from an edge, described as a person would: how far, how fast, how the finger lets go.
public struct EdgeSwipe: Hashable, Sendable {
    /// How the finger leaves the surface, which decides the release velocity.
    public enum Release: Hashable, Sendable {
        /// It slows to a stop (smoothstep), rests this long (longer than the velocity window is a finger at
        /// rest), then lifts.
        case atRest(hold: Microseconds)
        /// It speeds up (ease-in) and lifts one frame after its last sample, still moving: a flick.
        case whileMoving

        /// At rest for 250 ms: longer than the 150 ms velocity window.
        public static let atRest = Release.atRest(hold: .milliseconds(250))
    }

    /// How far from the edge the finger lands.
    public enum Landing: Hashable, Sendable {
        /// A fraction of the axis across the edge.
        case fraction(Double)
        /// Millimetres, at the device's resolution (or its assumed size without one).
        case millimeters(Double)
    }

    public var edge: Edge
    /// How far inward, as a fraction of the axis across the edge.
    public var travel: Double
    /// How long the finger moves before it rests or lifts.
    public var duration: Microseconds
    public var release: Release
    /// Where along the edge the finger lands, as a fraction of that axis.
    public var along: Double
    public var landing: Landing
    /// The sampling interval: 8333 µs is 120 Hz, the report rate of most current touch controllers.
    public var interval: Microseconds

    public init(
        edge: Edge, travel: Double, duration: Microseconds = .milliseconds(400), release: Release = .atRest,
        along: Double = 0.5, landing: Landing = .fraction(0.002), interval: Microseconds = Microseconds(8333)
    ) {
        self.edge = edge
        self.travel = travel
        self.duration = duration
        self.release = release
        self.along = along
        self.landing = landing
        self.interval = interval
    }
}

extension FingerScript {
    /// One edge swipe on `device` (upright: the script is in device units, and the edges are the device's),
    /// starting at `start`. The finger moves for whole frames of `swipe.interval`: the duration rounded up.
    public static func edgeSwipe(
        _ swipe: EdgeSwipe, on device: TouchDevice, finger: Int32 = 0, trackingID: Int32? = nil, start: Microseconds = .zero
    ) -> FingerScript {
        FingerScript(stroke: Stroke(edgeSwipe: swipe, on: device, finger: finger, trackingID: trackingID, start: start))
    }

    /// `edgeSwipe` with its parameters spelled out: `travel` of the axis in `durationMS`.
    public static func edgeSwipe(
        _ edge: Edge, travel: Double, on device: TouchDevice, durationMS: Double = 400,
        release: EdgeSwipe.Release = .atRest, startMS: Double = 0, along: Double = 0.5, inset: Double = 0.002
    ) -> FingerScript {
        edgeSwipe(
            EdgeSwipe(
                edge: edge, travel: travel, duration: Microseconds(milliseconds: durationMS), release: release, along: along,
                landing: .fraction(inset)),
            on: device, start: Microseconds(milliseconds: startMS))
    }

    /// One finger through `points` (normalized, in the device's own orientation, at times in milliseconds),
    /// at a constant speed along each segment, sampled every `interval`, lifting half an interval after the
    /// last point (or staying down).
    public static func path(
        finger: Int32 = 0, on device: TouchDevice, startMS: Double = 0, points: [(ms: Double, x: Double, y: Double)],
        interval: Microseconds = Microseconds(8333), lift: Bool = true
    ) -> FingerScript {
        guard let first = points.first else { return FingerScript() }
        var moves: [Stroke.Move] = []
        var previous = first
        for p in points.dropFirst() {
            let duration = Microseconds(milliseconds: p.ms - previous.ms)
            let frames = max(1, Int((Double(duration.value) / Double(max(1, interval.value))).rounded(.up)))
            let to = device.units(x: p.x, y: p.y)
            moves.append(Stroke.Move(to: to.x, to.y, frames: frames, durationUS: UInt64(max(0, duration.value)), easing: .linear))
            previous = p
        }
        let from = device.units(x: first.x, y: first.y)
        let start = Microseconds(milliseconds: startMS + first.ms)
        return FingerScript(stroke: Stroke(
            finger: finger, startUS: UInt64(max(0, start.value)), from: from.x, from.y, moves: moves,
            restUS: UInt64(max(1, interval.value / 2)), lift: lift))
    }
}

extension Stroke {
    /// The stroke of an edge swipe on `device`: it lands `landing` from the edge, `along` it, and moves
    /// `travel` of the axis inward.
    public init(edgeSwipe swipe: EdgeSwipe, on device: TouchDevice, finger: Int32 = 0, trackingID: Int32? = nil, start: Microseconds = .zero) {
        let horizontal = swipe.edge.isHorizontal
        let across = horizontal ? device.x : device.y
        let alongAxis = horizontal ? device.y : device.x
        let landing: Double
        switch swipe.landing {
        case .fraction(let f):
            landing = f * across.span
        case .millimeters(let mm):
            let size = device.deviceSize
            let unitsPerMM = across.span / max(1e-9, (horizontal ? size.width : size.height).value)
            landing = mm * unitsPerMM
        }
        let inward = swipe.travel * across.span
        let along = Double(alongAxis.minimum) + swipe.along * alongAxis.span
        let (from, to): (Double, Double)
        switch swipe.edge {
        case .left, .top:
            from = Double(across.minimum) + landing
            to = from + inward
        case .right, .bottom:
            from = Double(across.maximum) - landing
            to = from - inward
        }
        let interval = max(1, swipe.interval.value)
        let frames = max(1, Int((swipe.duration.value + interval - 1) / interval))
        let easing: Easing
        let rest: Microseconds
        switch swipe.release {
        case .atRest(let hold):
            easing = .smoothstep
            rest = hold
        case .whileMoving:
            easing = .easeIn
            rest = swipe.interval
        }
        let move = horizontal
            ? Move(to: to, along, frames: frames, durationUS: UInt64(frames) * UInt64(interval), easing: easing)
            : Move(to: along, to, frames: frames, durationUS: UInt64(frames) * UInt64(interval), easing: easing)
        self.init(
            finger: finger, trackingID: trackingID, startUS: UInt64(max(0, start.value)),
            from: horizontal ? from : along, horizontal ? along : from, moves: [move],
            restUS: UInt64(max(0, rest.value)), lift: true)
    }
}

extension TouchDevice {
    /// The device units of a normalized point of an upright, uncalibrated device.
    public func units(x px: Double, y py: Double) -> (x: Double, y: Double) {
        (Double(x.minimum) + px * x.span, Double(y.minimum) + py * y.span)
    }
}

extension Microseconds {
    /// A fractional number of milliseconds, to the nearest microsecond.
    public init(milliseconds ms: Double) {
        self.init(Int64((ms * 1000).rounded()))
    }
}

/// A multi-finger swipe anywhere on a device, described as a person would: how many fingers, which way, how
/// far in millimetres, how fast, and how raggedly the fingers land and lift (real hands put three fingers down
/// over 50 to 150 ms and rarely lift them together).
public struct MultiFingerSwipe: Hashable, Sendable {
    public var fingers: Int
    public var direction: SwipeDirection
    /// How far the fingers travel, in millimetres (real, or of the assumed size on a device without one).
    public var travelMM: Double
    public var duration: Microseconds
    public var release: EdgeSwipe.Release
    /// Where the fingers' centroid lands, normalized in the device's own orientation.
    public var center: (x: Double, y: Double)
    /// The distance between neighbouring fingers, across the motion, in millimetres.
    public var spacingMM: Double
    /// The time between one finger landing and the next.
    public var landingStagger: Microseconds
    /// How long the fingers rest after the last one landed before they move.
    public var settle: Microseconds
    /// The time between one finger lifting and the next (the first lifts first).
    public var liftStagger: Microseconds
    /// The sampling interval (120 Hz by default).
    public var interval: Microseconds

    public init(
        fingers: Int, direction: SwipeDirection, travelMM: Double, duration: Microseconds = .milliseconds(300),
        release: EdgeSwipe.Release = .atRest, center: (x: Double, y: Double) = (0.5, 0.5), spacingMM: Double = 18,
        landingStagger: Microseconds = .milliseconds(20), settle: Microseconds = .milliseconds(40),
        liftStagger: Microseconds = .milliseconds(10), interval: Microseconds = Microseconds(8333)
    ) {
        self.fingers = fingers
        self.direction = direction
        self.travelMM = travelMM
        self.duration = duration
        self.release = release
        self.center = center
        self.spacingMM = spacingMM
        self.landingStagger = landingStagger
        self.settle = settle
        self.liftStagger = liftStagger
        self.interval = interval
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.fingers == b.fingers && a.direction == b.direction && a.travelMM == b.travelMM && a.duration == b.duration
            && a.release == b.release && a.center.x == b.center.x && a.center.y == b.center.y && a.spacingMM == b.spacingMM
            && a.landingStagger == b.landingStagger && a.settle == b.settle && a.liftStagger == b.liftStagger
            && a.interval == b.interval
    }

    public func hash(into h: inout Hasher) {
        h.combine(fingers)
        h.combine(direction)
        h.combine(travelMM)
        h.combine(duration)
    }
}

extension FingerScript {
    /// A multi-finger swipe on `device` (upright: the script is in device units), its fingers in slots
    /// `firstFinger`, `firstFinger + 1`…, starting at `start`. Every finger moves the same way at once, after the
    /// last one landed and `settle` passed; the motion lasts whole frames of `swipe.interval`.
    public static func multiFingerSwipe(
        _ swipe: MultiFingerSwipe, on device: TouchDevice, firstFinger: Int32 = 0, start: Microseconds = .zero
    ) -> FingerScript {
        let size = device.deviceSize
        let unitsX = device.x.span / max(1e-9, size.width.value)
        let unitsY = device.y.span / max(1e-9, size.height.value)
        let u = swipe.direction.unit
        let interval = max(1, swipe.interval.value)
        let frames = max(1, Int((swipe.duration.value + interval - 1) / interval))
        let (easing, hold): (Easing, Microseconds) =
            switch swipe.release {
            case .atRest(let hold): (.smoothstep, hold)
            case .whileMoving: (.easeIn, swipe.interval)
            }
        let n = max(1, swipe.fingers)
        let moveStart = start + Microseconds(swipe.landingStagger.value * Int64(n - 1)) + swipe.settle
        var script = FingerScript()
        for i in 0..<n {
            // Fingers side by side across the motion, centred on `center`.
            let offset = (Double(i) - Double(n - 1) / 2) * swipe.spacingMM
            let fx = Double(device.x.minimum) + swipe.center.x * device.x.span + (swipe.direction.isHorizontal ? 0 : offset * unitsX)
            let fy = Double(device.y.minimum) + swipe.center.y * device.y.span + (swipe.direction.isHorizontal ? offset * unitsY : 0)
            let landing = start + Microseconds(swipe.landingStagger.value * Int64(i))
            let wait = moveStart - landing
            let to = (fx + u.x * swipe.travelMM * unitsX, fy + u.y * swipe.travelMM * unitsY)
            var moves: [Stroke.Move] = []
            if wait.value > 0 { moves.append(Stroke.Move(to: fx, fy, frames: 1, durationUS: UInt64(wait.value), easing: .linear)) }
            moves.append(Stroke.Move(to: to.0, to.1, frames: frames, durationUS: UInt64(frames) * UInt64(interval), easing: easing))
            script = script + FingerScript(stroke: Stroke(
                finger: firstFinger + Int32(i), startUS: UInt64(max(0, landing.value)), from: fx, fy, moves: moves,
                restUS: UInt64(max(0, hold.value + swipe.liftStagger.value * Int64(i))), lift: true))
        }
        return script
    }
}
