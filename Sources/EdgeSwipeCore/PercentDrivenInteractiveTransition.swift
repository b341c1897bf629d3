/// UIKit's `UIPercentDrivenInteractiveTransition`, as a value that reads no clock.
///
/// A state machine in the shape of the recognizer's (and libinput's gesture machine): one entry point,
/// ``handle(_:at:)``, a function per state, the data of a state in its case (a run-out's animation exists only
/// while it runs out), actions that carry their data, transitions reported as `old -> event -> new` (by the
/// shared dispatcher, ``StateMachine/step(_:at:into:)``) and impossible events reported as bugs, then ignored.
///
/// A finger drives `update`; `finish` or `cancel` hand the percent to a run-out that starts at the release
/// velocity; `caught` takes it back (iOS 10's interruptible transitions); `tick` reports the run-out's progress
/// and `run-out-ended` ends it exactly at 1 or 0.
extension TransitionPhase: MachineName {}

public struct PercentDrivenInteractiveTransition: StateMachine, Sendable {
    /// The phases a transition goes through, as clients see them (``TransitionPhase``): the machine's states.
    public typealias Phase = TransitionPhase

    /// A run-out in flight: the animation, and where it was when last reported.
    public struct RunOut: Hashable, Sendable {
        public var animation: AnimationSpec
        public var progress: Progress
    }

    /// Where the machine is, with the data that belongs there.
    public enum State: Hashable, Sendable {
        /// Started, held at 0 until the first update.
        case began
        /// Following the finger.
        case changed(Progress)
        case finishing(RunOut)
        case cancelling(RunOut)
        case completed
        case cancelled

        public var phase: Phase {
            switch self {
            case .began: .began
            case .changed: .changed
            case .finishing: .finishing
            case .cancelling: .cancelling
            case .completed: .completed
            case .cancelled: .cancelled
            }
        }

        /// How far it has run and how fast.
        public var progress: Progress {
            switch self {
            case .began: .zero
            case .changed(let p): p
            case .finishing(let r), .cancelling(let r): r.progress
            case .completed: Progress(percent: .complete, velocity: .zero)
            case .cancelled: .zero
            }
        }
    }

    /// What can happen to a transition.
    public enum Event: Hashable, Sendable {
        /// The finger moved: a percent (clamped to 0...1; NaN ignored) and its velocity (not finite counts as 0).
        case update(Progress)
        /// Released toward 1, at this velocity.
        case finish(velocity: PercentPerSecond)
        /// Released toward 0, at this velocity.
        case cancel(velocity: PercentPerSecond)
        /// A new touch caught the run-out: percent and velocity freeze where the animation is.
        case caught
        /// A run-out frame is due.
        case tick
        /// The run-out's animation has reached its end.
        case runOutEnded
        /// Stop at once, without animating (shutdown).
        case abort
    }

    public static func name(of event: Event) -> EventName {
        switch event {
        case .update: .update
        case .finish: .finish
        case .cancel: .cancel
        case .caught: .caught
        case .tick: .tick
        case .runOutEnded: .runOutEnded
        case .abort: .abort
        }
    }

    /// The log names a state by its phase.
    public typealias StateName = Phase
    public static func name(of state: State) -> Phase { state.phase }

    /// The names of the events, as the log writes them.
    public enum EventName: String, MachineName, Codable {
        case update, finish, cancel, caught, tick
        case runOutEnded = "run-out-ended"
        case abort
    }

    /// A step for clients: the phase, the percent and velocity, and the run-out's animation when one starts.
    public struct Report: Hashable, Sendable {
        public var phase: Phase
        public var progress: Progress
        /// On the report that starts a run-out.
        public var animation: AnimationSpec?
        /// Only progress moved (a finger update in `changed`, or a run-out frame): a slow client may skip it.
        public var isProgressOnly: Bool
    }

    /// What the caller must do, beside the log lines of ``MachineAction``: tell clients (a terminal phase ends
    /// the transition).
    public typealias Output = Report

    public private(set) var state: State = .began
    public let isInteractive: Bool
    /// The animator's full duration; a run-out lasts the remaining fraction of it.
    public let duration: Microseconds
    /// UIKit's `completionSpeed`: 2 runs out twice as fast.
    public let completionSpeed: Double
    /// UIKit's `completionCurve`.
    public let completionCurve: CompletionCurve

    /// An interactive transition, held at 0 until the first update.
    public init(duration: Microseconds, completionSpeed: Double = 1, completionCurve: CompletionCurve = .easeInOut) {
        self.isInteractive = true
        self.duration = duration
        self.completionSpeed = completionSpeed
        self.completionCurve = completionCurve
    }

    /// A non-interactive transition: `finish` at once runs the animator's own curve over its full duration.
    public init(animatingWith curve: CompletionCurve, duration: Microseconds) {
        self.isInteractive = false
        self.duration = duration
        self.completionSpeed = 1
        self.completionCurve = curve
    }

    public var phase: Phase { state.phase }

    // MARK: - The machine

    public mutating func dispatch(_ event: Event, at time: MonotonicInstant, into actions: inout ActionList<Action>) {
        switch state {
        case .began: onBegan(event, time, &actions)
        case .changed(let progress): onChanged(progress, event, time, &actions)
        case .finishing(let runOut): onFinishing(runOut, event, time, &actions)
        case .cancelling(let runOut): onCancelling(runOut, event, time, &actions)
        case .completed, .cancelled: actions.append(bug(event))
        }
    }

    /// Held at 0 until the first update; a request finishes from here at once.
    private mutating func onBegan(_ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .update(let new):
            follow(new, from: .zero, isProgressOnly: false, &actions)
        case .finish, .cancel, .abort, .caught, .tick, .runOutEnded:
            interact(.zero, event, time, &actions)
        }
    }

    /// Following the finger: only progress moves.
    private mutating func onChanged(_ progress: Progress, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .update(let new):
            follow(new, from: progress, isProgressOnly: true, &actions)
        case .finish, .cancel, .abort, .caught, .tick, .runOutEnded:
            interact(progress, event, time, &actions)
        }
    }

    /// The finger's update: a percent (clamped; NaN keeps the last one) and its velocity (not finite counts as 0).
    private mutating func follow(_ new: Progress, from progress: Progress, isProgressOnly: Bool, _ actions: inout ActionList<Action>) {
        let p = Progress(
            percent: new.percent.value.isNaN ? progress.percent : new.percent.clamped,
            velocity: new.velocity.isFinite ? new.velocity : .zero)
        state = .changed(p)
        actions.append(.output(Report(phase: .changed, progress: p, animation: nil, isProgressOnly: isProgressOnly)))
    }

    /// What began and changed do alike with everything but an update: release into a run-out, or abort.
    private mutating func interact(_ progress: Progress, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .finish(let velocity):
            let runOut = runOut(from: progress, to: .complete, velocity: velocity, at: time)
            state = .finishing(runOut)
            actions.append(.output(Report(phase: .finishing, progress: runOut.progress, animation: runOut.animation, isProgressOnly: false)))
        case .cancel(let velocity):
            let runOut = runOut(from: progress, to: .zero, velocity: velocity, at: time)
            state = .cancelling(runOut)
            actions.append(.output(Report(phase: .cancelling, progress: runOut.progress, animation: runOut.animation, isProgressOnly: false)))
        case .abort:
            abort(&actions)
        case .update, .caught, .tick, .runOutEnded:
            actions.append(bug(event))
        }
    }

    /// The run-out from `progress` to `target`, starting at the release velocity (not finite counts as 0).
    private func runOut(from progress: Progress, to target: Percent, velocity: PercentPerSecond, at time: MonotonicInstant) -> RunOut {
        let v = velocity.isFinite ? velocity : .zero
        let animation = AnimationSpec.runOut(
            curve: completionCurve, from: progress.percent, to: target, velocity: v, fullDuration: duration,
            speed: completionSpeed, at: time)
        return RunOut(animation: animation, progress: Progress(percent: progress.percent, velocity: v))
    }

    private mutating func onFinishing(_ runOut: RunOut, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .tick:
            let r = advanced(runOut, to: time)
            state = .finishing(r)
            actions.append(.output(Report(phase: .finishing, progress: r.progress, animation: nil, isProgressOnly: true)))
        case .caught, .runOutEnded, .abort, .update, .finish, .cancel:
            runningOut(runOut, event, time, &actions)
        }
    }

    private mutating func onCancelling(_ runOut: RunOut, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .tick:
            let r = advanced(runOut, to: time)
            state = .cancelling(r)
            actions.append(.output(Report(phase: .cancelling, progress: r.progress, animation: nil, isProgressOnly: true)))
        case .caught, .runOutEnded, .abort, .update, .finish, .cancel:
            runningOut(runOut, event, time, &actions)
        }
    }

    /// The run-out where its animation is at `time`.
    private func advanced(_ runOut: RunOut, to time: MonotonicInstant) -> RunOut {
        var r = runOut
        r.progress = Progress(percent: r.animation.percent(at: time), velocity: r.animation.velocity(at: time))
        return r
    }

    /// What finishing and cancelling do alike with everything but a tick: caught, ended at its exact end, or
    /// aborted.
    private mutating func runningOut(_ runOut: RunOut, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>) {
        switch event {
        case .caught:
            let p = Progress(percent: runOut.animation.percent(at: time), velocity: runOut.animation.velocity(at: time))
            state = .changed(p)
            actions.append(.output(Report(phase: .changed, progress: p, animation: nil, isProgressOnly: false)))
        case .runOutEnded:
            // The end is exact: 1 or 0, at rest, whatever the last frame showed.
            let completed = runOut.animation.toPercent >= .complete
            state = completed ? .completed : .cancelled
            actions.append(.output(Report(
                phase: completed ? .completed : .cancelled,
                progress: Progress(percent: completed ? .complete : .zero, velocity: .zero), animation: nil,
                isProgressOnly: false)))
        case .abort:
            abort(&actions)
        case .update, .finish, .cancel, .tick:
            actions.append(bug(event))
        }
    }

    /// Stop at once, without animating.
    private mutating func abort(_ actions: inout ActionList<Action>) {
        state = .cancelled
        actions.append(.output(Report(phase: .cancelled, progress: .zero, animation: nil, isProgressOnly: false)))
    }
}
