/// UIKit's `UIPercentDrivenInteractiveTransition`, as a value that reads no clock.
///
/// A finger drives ``update(_:)``; ``release(finish:velocity:at:)`` hands the percent to a run-out animation
/// that starts at the release velocity; ``catchRunOut(at:)`` takes it back (iOS 10's interruptible transitions).
public struct PercentDrivenInteractiveTransition: Sendable {
    /// The phases a transition goes through; `completed` and `cancelled` are terminal.
    public enum Phase: String, Hashable, Sendable, Codable {
        case began, changed, finishing, cancelling, completed, cancelled

        public var isTerminal: Bool { self == .completed || self == .cancelled }
        public var isRunningOut: Bool { self == .finishing || self == .cancelling }
    }

    /// The events that move the phase; their raw values appear in the `old -> event -> new` log.
    public enum Event: String, Hashable, Sendable, Codable {
        case update, finish, cancel, caught, runOutEnded = "run-out-ended", abort
    }

    public private(set) var phase: Phase
    /// How far it has run, always within 0...1.
    public private(set) var percent: Percent
    /// How fast the finger or the run-out is moving it.
    public private(set) var velocity: PercentPerSecond
    public private(set) var runOut: AnimationSpec?
    public let isInteractive: Bool
    /// The animator's full duration; the run-out lasts the remaining fraction of it.
    public let duration: Microseconds
    /// UIKit's `completionSpeed`: 2 runs out twice as fast.
    public var completionSpeed: Double
    /// UIKit's `completionCurve`.
    public var completionCurve: CompletionCurve

    /// An interactive transition, held at 0 until the first update.
    public init(duration: Microseconds, completionSpeed: Double = 1, completionCurve: CompletionCurve = .easeInOut) {
        self.phase = .began
        self.percent = .zero
        self.velocity = .zero
        self.isInteractive = true
        self.duration = duration
        self.completionSpeed = completionSpeed
        self.completionCurve = completionCurve
    }

    /// A non-interactive transition: the animator's own curve over its full duration, from 0 to 1.
    public init(animatingWith curve: CompletionCurve, duration: Microseconds, at time: MonotonicInstant) {
        self.phase = .finishing
        self.percent = .zero
        self.velocity = .zero
        self.isInteractive = false
        self.duration = duration
        self.completionSpeed = 1
        self.completionCurve = curve
        self.runOut = AnimationSpec.runOut(
            curve: curve, from: .zero, to: .complete, velocity: .zero, fullDuration: duration, speed: 1, at: time)
    }

    /// Follows the finger. The percent is clamped to 0...1; a NaN percent is ignored, and a velocity that is not
    /// finite counts as zero.
    @discardableResult
    public mutating func update(_ progress: Progress) -> (old: Phase, new: Phase)? {
        switch phase {
        case .began, .changed:
            if !progress.percent.value.isNaN { percent = progress.percent.clamped }
            velocity = progress.velocity.isFinite ? progress.velocity : .zero
            let old = phase
            phase = .changed
            return old == .changed ? nil : (old, .changed)
        case .finishing, .cancelling, .completed, .cancelled:
            return nil
        }
    }

    /// Hands the percent to a run-out toward 1 (`finish: true`) or 0.
    public mutating func release(finish: Bool, velocity releaseVelocity: PercentPerSecond, at time: MonotonicInstant) -> (old: Phase, new: Phase)? {
        switch phase {
        case .began, .changed:
            let old = phase
            velocity = releaseVelocity.isFinite ? releaseVelocity : .zero
            runOut = AnimationSpec.runOut(
                curve: completionCurve, from: percent, to: finish ? .complete : .zero, velocity: velocity,
                fullDuration: duration, speed: completionSpeed, at: time)
            phase = finish ? .finishing : .cancelling
            return (old, phase)
        case .finishing, .cancelling, .completed, .cancelled:
            return nil
        }
    }

    /// A new touch caught the run-out: the percent and velocity are frozen where the animation was, and the
    /// transition is interactive again.
    public mutating func catchRunOut(at time: MonotonicInstant) -> (old: Phase, new: Phase)? {
        guard phase.isRunningOut, let spec = runOut else { return nil }
        let old = phase
        percent = spec.percent(at: time)
        velocity = spec.velocity(at: time)
        runOut = nil
        phase = .changed
        return (old, .changed)
    }

    /// Advances the run-out to `time`. Returns the terminal phase once the animation has ended, with the percent
    /// set exactly to 1 or 0.
    public mutating func advance(to time: MonotonicInstant) -> Phase? {
        guard phase.isRunningOut, let spec = runOut else { return nil }
        if time >= spec.end {
            percent = spec.toPercent
            velocity = .zero
            phase = spec.toPercent >= .complete ? .completed : .cancelled
            runOut = nil
            return phase
        }
        percent = spec.percent(at: time)
        velocity = spec.velocity(at: time)
        return nil
    }

    /// Stops at once without animating (shutdown): the transition is cancelled at 0.
    public mutating func abort() -> (old: Phase, new: Phase)? {
        guard !phase.isTerminal else { return nil }
        let old = phase
        percent = .zero
        velocity = .zero
        runOut = nil
        phase = .cancelled
        return (old, .cancelled)
    }
}
