/// The resistance a swipe with nowhere to go meets: a displacement that follows the finger at first, then ever
/// less, and never passes a bound. It is niri's `RubberBand` (`src/rubber_band.rs`): `band(x) = (1 - 1 / (x * c /
/// d + 1)) * d` with stiffness `c` and limit `d`, whose slope is `c` at 0 and which tends to `d`; libadwaita's
/// `adjust_for_overshoot` (`src/adw-swipe-tracker.c`) is the same curve with slope 1.
///
/// Both the input and the output are in percent of the transition the swipe would have driven: `x` is the inward
/// translation over the reference length, as a transition's percent would be.
public struct RubberBand: Hashable, Sendable, Codable {
    /// The slope at 0: how much of the finger's first millimetres the band shows.
    public var stiffness: Double
    /// The bound the displacement tends to and never reaches.
    public var limit: Percent
    /// The response of the critically damped spring that brings it back to 0 on release (as `CompletionCurve`'s
    /// spring).
    public var springResponse: Microseconds

    public init(stiffness: Double, limit: Percent, springResponse: Microseconds = .milliseconds(300)) {
        self.stiffness = stiffness
        self.limit = limit
        self.springResponse = springResponse
    }

    /// niri's `WORKSPACE_GESTURE_RUBBER_BAND` (`src/layout/monitor.rs`): stiffness 0.5, limit 0.05 of a step;
    /// it springs back with the run-outs' default spring response (300 ms).
    public static let niri = RubberBand(stiffness: 0.5, limit: Percent(0.05))

    /// The spring from a displacement of `displacement` back to exactly 0, starting at `velocity` (the band's
    /// own, in percent per second). Only a velocity toward 0 is kept: one away from it would carry the spring
    /// past where the finger left the band, and past the bound.
    public func springBack(from displacement: Percent, velocity: PercentPerSecond, at time: MonotonicInstant) -> AnimationSpec {
        let from = displacement.value.isFinite ? Percent(max(0, displacement.value)) : .zero
        let v = from.value > 0 && velocity.isFinite ? min(0, velocity.value) : 0
        return AnimationSpec.runOut(
            curve: .spring(response: springResponse), from: from, to: .zero, velocity: PercentPerSecond(v),
            fullDuration: springResponse, speed: 1, at: time)
    }

    private var usable: Bool {
        stiffness.isFinite && stiffness > 0 && limit.value.isFinite && limit.value > 0
    }

    /// The displacement for a pull of `x`; 0 for no pull or a pull outward, and never `limit` or more.
    public func displacement(_ x: Percent) -> Percent {
        guard usable, x.value.isFinite, x.value > 0 else { return .zero }
        let d = limit.value
        return Percent((1 - 1 / (x.value * stiffness / d + 1)) * d)
    }

    /// d(displacement)/dx at `x`: how much of the finger's velocity the band shows there.
    public func slope(at x: Percent) -> Double {
        guard usable, x.value.isFinite else { return 0 }
        let d = limit.value
        let s = max(0, x.value) * stiffness / d + 1
        return stiffness / (s * s)
    }
}

/// What a swipe with nowhere to go shows while the finger moves.
public enum Overscroll: Hashable, Sendable, Codable {
    /// Nothing moves: the gesture is reported, its displacement is not.
    case none
    /// A resisted, bounded displacement that springs back to 0 on release.
    case rubberBand(RubberBand)

    /// niri's band.
    public static let `default` = Overscroll.rubberBand(.niri)

    public var name: String {
        switch self {
        case .none: "none"
        case .rubberBand: "rubber-band"
        }
    }
}
