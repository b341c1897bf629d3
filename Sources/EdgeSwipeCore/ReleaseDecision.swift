/// Decides, when the finger lifts, whether the transition finishes or cancels.
///
/// The seeds finish at `percent >= 0.5`. Real systems also project the release velocity forward, so that a
/// flick finishes below the threshold and a flick back cancels above it. The projection is iOS's
/// (`UIScrollView.DecelerationRate`, WWDC 2018 "Designing Fluid Interfaces"): a velocity `v` decaying by a
/// factor `d` every millisecond travels `v * d / (1 - d) / 1000` further. libadwaita's SwipeTracker uses the same
/// model with `d = 0.998` on touchscreens and `0.997` on touchpads, and ignores velocities below a flick
/// threshold, so that a finger that simply stops is judged by where it is.
public struct ReleaseDecision: Hashable, Sendable, Codable {
    /// The projected percent at or past which the transition finishes (the seeds' 0.5).
    public var threshold: Percent
    /// Release speeds below this are treated as zero: a resting finger is not a flick.
    public var flickVelocity: PercentPerSecond
    /// The per-millisecond deceleration factor of the projection (a ratio, no unit); 0 disables projection.
    public var deceleration: Double

    public init(threshold: Percent = Percent(0.5), flickVelocity: PercentPerSecond = PercentPerSecond(0.3), deceleration: Double = 0.998) {
        self.threshold = threshold
        self.flickVelocity = flickVelocity
        self.deceleration = deceleration
    }

    public static let touchscreen = ReleaseDecision(threshold: Percent(0.5), flickVelocity: PercentPerSecond(0.3), deceleration: 0.998)
    public static let touchpad = ReleaseDecision(threshold: Percent(0.5), flickVelocity: PercentPerSecond(0.3), deceleration: 0.997)

    public static func defaults(for kind: DeviceKind) -> ReleaseDecision {
        switch kind {
        case .touchscreen: .touchscreen
        case .touchpad: .touchpad
        }
    }

    /// Seconds of travel that the projection adds per unit of velocity.
    public var projectionSeconds: Double {
        guard deceleration > 0, deceleration < 1 else { return 0 }
        return deceleration / (1 - deceleration) / 1000
    }

    /// Where the transition would come to rest if the finger's motion carried on and decayed.
    public func projectedPercent(_ progress: Progress) -> Percent {
        guard progress.velocity.isFinite, progress.velocity.magnitude >= flickVelocity else { return progress.percent }
        return progress.percent + progress.velocity.distance(in: projectionSeconds)
    }

    /// Whether a release at `progress` finishes the transition (or cancels it).
    public func shouldFinish(_ progress: Progress) -> Bool {
        projectedPercent(progress) >= threshold
    }
}
