/// UIKit's `UIPercentDrivenInteractiveTransition`, as a value that reads no clock.
///
/// A finger drives `update(percent:)`; `finish` and `cancel` hand the percent to a run-out animation that
/// starts at the release velocity; `catchRunOut` takes it back (iOS 10's interruptible transitions).
public struct PercentDrivenInteractiveTransition: Sendable {
    /// The phases a transition goes through; `completed` and `cancelled` are terminal.
    public enum Phase: String, Hashable, Sendable, Codable {
        case began, changed, finishing, cancelling, completed, cancelled

        public var isTerminal: Bool { self == .completed || self == .cancelled }
        public var isRunningOut: Bool { self == .finishing || self == .cancelling }
    }

    /// The events that move the phase; their raw values appear in the `old -> event -> new` log.
    public enum Event: String, Hashable, Sendable, Codable {
        case update, finish, cancel, caught, tick, runOutEnded = "run-out-ended", abort
    }

    public private(set) var phase: Phase
    public private(set) var percent: Double
    /// Percent per second.
    public private(set) var velocity: Double
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
        self.percent = 0
        self.velocity = 0
        self.isInteractive = true
        self.duration = duration
        self.completionSpeed = completionSpeed
        self.completionCurve = completionCurve
    }

    /// A non-interactive transition: the animator's own curve over its full duration, from 0 to 1.
    public init(animatingWith curve: CompletionCurve, duration: Microseconds, at time: MonotonicInstant) {
        self.phase = .finishing
        self.percent = 0
        self.velocity = 0
        self.isInteractive = false
        self.duration = duration
        self.completionSpeed = 1
        self.completionCurve = curve
        self.runOut = AnimationSpec.runOut(
            curve: curve, from: 0, to: 1, velocity: 0, fullDuration: duration, speed: 1, at: time)
    }

    /// Follows the finger. The percent is clamped to 0...1; NaN is ignored.
    @discardableResult
    public mutating func update(percent newPercent: Double, velocity newVelocity: Double) -> (old: Phase, new: Phase)? {
        switch phase {
        case .began, .changed:
            if !newPercent.isNaN { percent = min(1, max(0, newPercent)) }
            velocity = newVelocity.isFinite ? newVelocity : 0
            let old = phase
            phase = .changed
            return old == .changed ? nil : (old, .changed)
        case .finishing, .cancelling, .completed, .cancelled:
            return nil
        }
    }

    /// Hands the percent to a run-out toward 1 (`finish: true`) or 0.
    public mutating func release(finish: Bool, velocity releaseVelocity: Double, at time: MonotonicInstant) -> (old: Phase, new: Phase)? {
        switch phase {
        case .began, .changed:
            let old = phase
            velocity = releaseVelocity.isFinite ? releaseVelocity : 0
            runOut = AnimationSpec.runOut(
                curve: completionCurve, from: percent, to: finish ? 1 : 0, velocity: velocity,
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
            velocity = 0
            phase = spec.toPercent >= 1 ? .completed : .cancelled
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
        percent = 0
        velocity = 0
        runOut = nil
        phase = .cancelled
        return (old, .cancelled)
    }
}
