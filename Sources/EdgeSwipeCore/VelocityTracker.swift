/// Estimates a 2D velocity from the samples of the last `window` of time.
///
/// GNOME's SwipeTracker and libadwaita keep 150 ms of history. A plain first-to-last difference is skewed by
/// uneven sample spacing (evdev frames jitter, and a device may skip frames while the finger rests), so this
/// fits a least-squares line through every sample in the window instead. The samples live in a fixed ring, so
/// tracking never allocates after `init`.
public struct VelocityTracker: Sendable {
    public struct Sample: Sendable {
        public var time: MonotonicInstant
        public var x: Double
        public var y: Double
    }

    public let window: Microseconds
    private var ring: [Sample]
    private var head = 0
    private var count = 0

    public init(window: Microseconds = .milliseconds(150), capacity: Int = 64) {
        self.window = window
        self.ring = Array(repeating: Sample(time: .zero, x: 0, y: 0), count: max(2, capacity))
    }

    public mutating func reset() {
        head = 0
        count = 0
    }

    /// Adds a position (in any linear unit) at `time`. A sample older than the newest is treated as simultaneous.
    public mutating func add(x: Double, y: Double, at time: MonotonicInstant) {
        var t = time
        if count > 0, let last = newest, t < last.time { t = last.time }
        let index = (head + count) % ring.count
        ring[index] = Sample(time: t, x: x, y: y)
        if count < ring.count { count += 1 } else { head = (head + 1) % ring.count }
    }

    public var newest: Sample? { count == 0 ? nil : ring[(head + count - 1) % ring.count] }

    /// Units per second over the window ending at `now`; zero with fewer than two distinct instants.
    ///
    /// A least-squares fit over the samples inside the window. Samples are in time order (``add(x:y:at:)`` keeps
    /// them so), so those before the window are a prefix: it is found from the newest end, and only the window is
    /// walked, twice, without a division per step (this runs for every motion of a tracked finger).
    public func velocity(at now: MonotonicInstant) -> (x: Double, y: Double) {
        guard count >= 2 else { return (0, 0) }
        let horizon = now.advanced(by: Microseconds(-window.value))
        let capacity = ring.count
        return ring.withUnsafeBufferPointer { ring -> (x: Double, y: Double) in
            @inline(__always) func sample(_ i: Int) -> Sample {
                let index = head + i
                return ring[index < capacity ? index : index - capacity]
            }
            var first = count
            while first > 0, !(sample(first - 1).time < horizon) { first -= 1 }
            guard count - first >= 2 else { return (0, 0) }
            let origin = sample(first).time
            var n = 0.0, sumT = 0.0, sumX = 0.0, sumY = 0.0
            for i in first..<count {
                let s = sample(i)
                n += 1
                sumT += (s.time - origin).seconds
                sumX += s.x
                sumY += s.y
            }
            let meanT = sumT / n, meanX = sumX / n, meanY = sumY / n
            var stt = 0.0, stx = 0.0, sty = 0.0
            for i in first..<count {
                let s = sample(i)
                let dt = (s.time - origin).seconds - meanT
                stt += dt * dt
                stx += dt * (s.x - meanX)
                sty += dt * (s.y - meanY)
            }
            guard stt > 1e-12 else { return (0, 0) }
            return (stx / stt, sty / stt)
        }
    }
}
