import RealModule

// How the engine chooses a run-out when the finger lets go (or a request animates): the spec's shape, duration and
// start. Clients only read a spec (`AnimationSpec.percent(at:)`, in the vocabulary); choosing one is the engine's.
extension AnimationSpec {
    /// The run-out from `from` to `to`, starting at `velocity` so that neither the percent nor its velocity jumps
    /// at the hand-off.
    ///
    /// Eased curves last `|to - from| x duration / speed`, as `UIPercentDrivenInteractiveTransition` does. Their
    /// first control point is moved along its tangent so the curve leaves at the release velocity; where that
    /// would overshoot, it is pulled in (y1 <= 1) and the curve simply leaves steeper. A spring runs until it is
    /// within 0.1 % of its target, or crosses it.
    public static func runOut(
        curve: CompletionCurve, from: Percent, to: Percent, velocity: PercentPerSecond,
        fullDuration: Microseconds, speed: Double, at start: MonotonicInstant
    ) -> AnimationSpec {
        let delta = to.value - from.value
        let safeSpeed = speed > 0 && speed.isFinite ? speed : 1
        switch curve {
        case .spring(let response):
            // completionSpeed stiffens the spring rather than rescaling time, so the release velocity holds.
            let omega = 2 * Double.pi / max(response.seconds, 0.001) * safeSpeed
            let duration = springSettleTime(omega: omega, d0: from.value - to.value, v0: velocity.value)
            return AnimationSpec(
                curve: curve, timing: .criticallyDampedSpring(omega: omega), start: start,
                duration: .seconds(duration), fromPercent: from, toPercent: to, initialVelocity: velocity)
        case .linear, .easeIn, .easeOut, .easeInOut:
            let seconds = abs(delta) * fullDuration.seconds / safeSpeed
            let duration = Microseconds.seconds(seconds)
            guard duration.value > 0, let cp = curve.controlPoints else {
                return AnimationSpec(
                    curve: curve, timing: .cubicBezier(CubicBezier(x1: 0, y1: 0, x2: 1, y2: 1)), start: start,
                    duration: .zero, fromPercent: from, toPercent: to, initialVelocity: .zero)
            }
            // The slope the curve must leave with, in progress per time fraction.
            let slope = velocity.value * seconds / delta
            var x1 = cp.x1 > 0 ? cp.x1 : 1.0 / 3.0
            if slope > 1 / x1 { x1 = 1 / slope }
            let y1 = max(-0.5, x1 * slope)
            let bezier = CubicBezier(x1: x1, y1: y1, x2: cp.x2, y2: cp.y2)
            return AnimationSpec(
                curve: curve, timing: .cubicBezier(bezier), start: start, duration: duration,
                fromPercent: from, toPercent: to, initialVelocity: velocity)
        }
    }

    /// The first time at which a critically damped spring from displacement `d0` with velocity `v0` is within
    /// 0.001 of its target and slower than 0.01/s, or crosses it; capped at 3 s.
    static func springSettleTime(omega: Double, d0: Double, v0: Double) -> Double {
        if abs(d0) < 1e-6 && abs(v0) < 1e-6 { return 0 }
        let b = v0 + omega * d0
        // A crossing happens once at most, at t = -d0 / b when that is positive.
        if b != 0 {
            let crossing = -d0 / b
            if crossing > 0 && crossing < 3 { return crossing }
        }
        var t = 0.0
        let step = 0.001
        while t < 3 {
            let d = (d0 + b * t) * Double.exp(-omega * t)
            let v = (b - omega * (d0 + b * t)) * Double.exp(-omega * t)
            if abs(d) < 0.001 && abs(v) < 0.05 { return t }
            t += step
        }
        return 3
    }
}
