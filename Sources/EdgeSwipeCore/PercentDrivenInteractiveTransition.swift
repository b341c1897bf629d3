/// UIKit's `UIPercentDrivenInteractiveTransition`, as a value that reads no clock.
///
/// A state machine in the shape of the recognizer's (and libinput's gesture machine): one entry point,
/// ``handle(_:at:)``, a function per state, the data of a state in its case (a run-out's animation exists only
/// while it runs out), actions that carry their data, transitions reported as `old -> event -> new` and
/// impossible events reported as bugs, then ignored.
///
/// A finger drives `update`; `finish` or `cancel` hand the percent to a run-out that starts at the release
/// velocity; `caught` takes it back (iOS 10's interruptible transitions); `tick` reports the run-out's progress
/// and `run-out-ended` ends it exactly at 1 or 0.
public struct PercentDrivenInteractiveTransition: Sendable {
    /// The phases a transition goes through, as clients see them; `completed` and `cancelled` are terminal.
    public enum Phase: String, Hashable, Sendable, Codable, CaseIterable {
        case began, changed, finishing, cancelling, completed, cancelled

        public var isTerminal: Bool { self == .completed || self == .cancelled }
        public var isRunningOut: Bool { self == .finishing || self == .cancelling }
    }

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

        public var name: EventName {
            switch self {
            case .update: .update
            case .finish: .finish
            case .cancel: .cancel
            case .caught: .caught
            case .tick: .tick
            case .runOutEnded: .runOutEnded
            case .abort: .abort
            }
        }
    }

    /// The names of the events, as the log writes them.
    public enum EventName: String, Hashable, Sendable, Codable, CaseIterable {
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

    /// What the caller must do.
    public enum Action: Hashable, Sendable {
        /// The phase changed: log `old -> event -> new`.
        case transitioned(from: Phase, event: EventName, to: Phase)
        /// `event` cannot happen in `phase`: logged as a bug, then ignored.
        case bug(event: EventName, phase: Phase)
        /// Tell clients (a terminal phase ends the transition).
        case report(Report)
    }

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

    /// Feeds one event at `time`; returns what the caller must do, in order.
    public mutating func handle(_ event: Event, at time: MonotonicInstant) -> ActionList<Action> {
        var actions = ActionList<Action>()
        switch state {
        case .began: onInteractive(.zero, began: true, event, time, &actions)
        case .changed(let progress): onInteractive(progress, began: false, event, time, &actions)
        case .finishing(let runOut): onRunningOut(runOut, finishing: true, event, time, &actions)
        case .cancelling(let runOut): onRunningOut(runOut, finishing: false, event, time, &actions)
        case .completed, .cancelled: actions.append(.bug(event: event.name, phase: state.phase))
        }
        return actions
    }

    private mutating func onInteractive(
        _ progress: Progress, began: Bool, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>
    ) {
        switch event {
        case .update(let new):
            let p = Progress(
                percent: new.percent.value.isNaN ? progress.percent : new.percent.clamped,
                velocity: new.velocity.isFinite ? new.velocity : .zero)
            if began { move(to: .changed(p), on: event, &actions) } else { state = .changed(p) }
            actions.append(.report(Report(phase: .changed, progress: p, animation: nil, isProgressOnly: !began)))
        case .finish(let velocity), .cancel(let velocity):
            let finish = event.name == .finish
            let v = velocity.isFinite ? velocity : .zero
            let animation = AnimationSpec.runOut(
                curve: completionCurve, from: progress.percent, to: finish ? .complete : .zero, velocity: v,
                fullDuration: duration, speed: completionSpeed, at: time)
            let runOut = RunOut(animation: animation, progress: Progress(percent: progress.percent, velocity: v))
            move(to: finish ? .finishing(runOut) : .cancelling(runOut), on: event, &actions)
            actions.append(.report(Report(
                phase: finish ? .finishing : .cancelling, progress: runOut.progress, animation: animation,
                isProgressOnly: false)))
        case .abort:
            move(to: .cancelled, on: event, &actions)
            actions.append(.report(Report(phase: .cancelled, progress: .zero, animation: nil, isProgressOnly: false)))
        case .caught, .tick, .runOutEnded:
            actions.append(.bug(event: event.name, phase: state.phase))
        }
    }

    private mutating func onRunningOut(
        _ runOut: RunOut, finishing: Bool, _ event: Event, _ time: MonotonicInstant, _ actions: inout ActionList<Action>
    ) {
        let phase: Phase = finishing ? .finishing : .cancelling
        switch event {
        case .caught:
            let p = Progress(percent: runOut.animation.percent(at: time), velocity: runOut.animation.velocity(at: time))
            move(to: .changed(p), on: event, &actions)
            actions.append(.report(Report(phase: .changed, progress: p, animation: nil, isProgressOnly: false)))
        case .tick:
            var r = runOut
            r.progress = Progress(percent: r.animation.percent(at: time), velocity: r.animation.velocity(at: time))
            state = finishing ? .finishing(r) : .cancelling(r)
            actions.append(.report(Report(phase: phase, progress: r.progress, animation: nil, isProgressOnly: true)))
        case .runOutEnded:
            // The end is exact: 1 or 0, at rest, whatever the last frame showed.
            let completed = runOut.animation.toPercent >= .complete
            move(to: completed ? .completed : .cancelled, on: event, &actions)
            actions.append(.report(Report(
                phase: completed ? .completed : .cancelled,
                progress: Progress(percent: completed ? .complete : .zero, velocity: .zero), animation: nil,
                isProgressOnly: false)))
        case .abort:
            move(to: .cancelled, on: event, &actions)
            actions.append(.report(Report(phase: .cancelled, progress: .zero, animation: nil, isProgressOnly: false)))
        case .update, .finish, .cancel:
            actions.append(.bug(event: event.name, phase: phase))
        }
    }

    private mutating func move(to new: State, on event: Event, _ actions: inout ActionList<Action>) {
        let old = state.phase
        state = new
        actions.append(.transitioned(from: old, event: event.name, to: new.phase))
    }
}

extension PercentDrivenInteractiveTransition.Action {
    /// The log line of a transition or a bug, as libinput words them; `nil` for reports.
    public var logLine: String? {
        switch self {
        case .transitioned(let from, let event, let to): "\(from.rawValue) -> \(event.rawValue) -> \(to.rawValue)"
        case .bug(let event, let phase): "invalid event \(event.rawValue) in state \(phase.rawValue)"
        case .report: nil
        }
    }
}
