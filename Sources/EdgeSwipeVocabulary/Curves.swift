import RealModule

/// The easing a run-out follows, named as UIKit's `UIView.AnimationCurve` plus a critically damped spring.
public enum CompletionCurve: Hashable, Sendable, Codable {
    case linear, easeIn, easeOut, easeInOut
    /// A critically damped spring: it starts at the release velocity and settles without oscillating.
    /// `response` is the period of the undamped spring, as in SwiftUI and `UISpringTimingParameters`.
    case spring(response: Microseconds)

    public var name: String {
        switch self {
        case .linear: "linear"
        case .easeIn: "ease-in"
        case .easeOut: "ease-out"
        case .easeInOut: "ease-in-out"
        case .spring: "spring"
        }
    }

    /// CSS/Core Animation control points for the eased curves.
    public var controlPoints: (x1: Double, y1: Double, x2: Double, y2: Double)? {
        switch self {
        case .linear: (0, 0, 1, 1)
        case .easeIn: (0.42, 0, 1, 1)
        case .easeOut: (0, 0, 0.58, 1)
        case .easeInOut: (0.42, 0, 0.58, 1)
        case .spring: nil
        }
    }
}

/// A cubic Bézier timing function from (0,0) to (1,1), as in CSS `cubic-bezier()`.
public struct CubicBezier: Hashable, Sendable, Codable {
    public var x1, y1, x2, y2: Double
    public init(x1: Double, y1: Double, x2: Double, y2: Double) {
        self.x1 = min(1, max(0, x1))
        self.y1 = y1
        self.x2 = min(1, max(0, x2))
        self.y2 = y2
    }

    @inlinable func component(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - s
        return 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s
    }
    @inlinable func derivative(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - s
        return 3 * u * u * p1 + 6 * u * s * (p2 - p1) + 3 * s * s * (1 - p2)
    }

    /// The curve parameter whose x is `t` (x is monotonic because x1, x2 lie in 0...1).
    func parameter(forX t: Double) -> Double {
        var s = t
        for _ in 0..<8 {
            let err = component(s, x1, x2) - t
            if abs(err) < 1e-9 { return s }
            let d = derivative(s, x1, x2)
            if abs(d) < 1e-9 { break }
            s -= err / d
        }
        var lo = 0.0, hi = 1.0
        s = min(1, max(0, t))
        for _ in 0..<60 {
            let x = component(s, x1, x2)
            if abs(x - t) < 1e-10 { break }
            if x < t { lo = s } else { hi = s }
            s = (lo + hi) / 2
        }
        return s
    }

    /// Progress (0 at the start, 1 at the end) at time fraction `t`.
    public func value(at t: Double) -> Double {
        if t <= 0 { return 0 }
        if t >= 1 { return 1 }
        return component(parameter(forX: t), y1, y2)
    }

    /// d(progress)/d(time fraction) at `t`.
    public func slope(at t: Double) -> Double {
        let s = parameter(forX: min(1, max(0, t)))
        let dx = derivative(s, x1, x2)
        let dy = derivative(s, y1, y2)
        if abs(dx) < 1e-12 { return dy >= 0 ? 1e6 : -1e6 }
        return dy / dx
    }
}

/// How a percent runs from one value to another once nobody holds it: everything a client needs to
/// interpolate the run-out at its own refresh rate, and everything the engine needs to tick it.
public struct AnimationSpec: Hashable, Sendable, Codable {
    public enum Timing: Hashable, Sendable, Codable {
        case cubicBezier(CubicBezier)
        /// A critically damped spring of angular frequency `omega` (rad/s).
        case criticallyDampedSpring(omega: Double)
    }

    public var curve: CompletionCurve
    public var timing: Timing
    public var start: MonotonicInstant
    public var duration: Microseconds
    public var fromPercent: Percent
    public var toPercent: Percent
    /// The velocity at the start: the release velocity, so the hand-off has no jump.
    public var initialVelocity: PercentPerSecond

    public init(
        curve: CompletionCurve, timing: Timing, start: MonotonicInstant, duration: Microseconds, fromPercent: Percent,
        toPercent: Percent, initialVelocity: PercentPerSecond
    ) {
        self.curve = curve
        self.timing = timing
        self.start = start
        self.duration = duration
        self.fromPercent = fromPercent
        self.toPercent = toPercent
        self.initialVelocity = initialVelocity
    }

    public var end: MonotonicInstant { start.advanced(by: duration) }

    /// The percent at `time`, clamped to 0...1 and exactly `toPercent` from the end on.
    public func percent(at time: MonotonicInstant) -> Percent {
        if time >= end || duration.value <= 0 { return toPercent }
        let elapsed = max(0, (time - start).seconds)
        let (from, to, v0) = (fromPercent.value, toPercent.value, initialVelocity.value)
        let value: Double
        switch timing {
        case .cubicBezier(let bezier):
            value = from + (to - from) * bezier.value(at: elapsed / duration.seconds)
        case .criticallyDampedSpring(let omega):
            let d0 = from - to
            value = to + (d0 + (v0 + omega * d0) * elapsed) * Double.exp(-omega * elapsed)
        }
        return Percent(value).clamped
    }

    /// The velocity at `time`; zero from the end on.
    public func velocity(at time: MonotonicInstant) -> PercentPerSecond {
        if time >= end || duration.value <= 0 { return .zero }
        let elapsed = max(0, (time - start).seconds)
        let (from, to, v0) = (fromPercent.value, toPercent.value, initialVelocity.value)
        switch timing {
        case .cubicBezier(let bezier):
            return PercentPerSecond((to - from) * bezier.slope(at: elapsed / duration.seconds) / duration.seconds)
        case .criticallyDampedSpring(let omega):
            let d0 = from - to
            let b = v0 + omega * d0
            return PercentPerSecond((b - omega * (d0 + b * elapsed)) * Double.exp(-omega * elapsed))
        }
    }
}
