/// The names a state machine's log gives its states and events: the words of `old -> event -> new`, of its bug
/// lines and of its diagram in `docs/ARCHITECTURE.md`.
public protocol MachineName: RawRepresentable<String>, Hashable, Sendable, CaseIterable {}

/// What one step of a state machine tells its caller: a change of state to log, an event it cannot take in its
/// state, or what the caller must do (the machine's own `Output`, carrying its data).
///
/// Written once for every machine, as libinput writes its gesture machine's log line once, in the dispatcher
/// (`tp_gesture_handle_event`): a state's handler never says whether its step is logged.
public enum MachineAction<StateName: MachineName, EventName: MachineName, Output: Hashable & Sendable>: Hashable, Sendable {
    /// The state changed: log `old -> event -> new`. Only the dispatcher makes it, whenever the old state's name
    /// differs from the new one's.
    case transitioned(from: StateName, event: EventName, to: StateName)
    /// `event` cannot happen in `state`: a bug in the caller, logged as libinput's `log_gesture_bug` does, and
    /// otherwise ignored.
    case bug(event: EventName, state: StateName)
    /// What the caller must do.
    case output(Output)

    /// The log line of a transition or a bug, as libinput words them; `nil` for an output.
    @inlinable public var logLine: String? {
        switch self {
        case .transitioned(let from, let event, let to): "\(from.rawValue) -> \(event.rawValue) -> \(to.rawValue)"
        case .bug(let event, let state): "invalid event \(event.rawValue) in state \(state.rawValue)"
        case .output: nil
        }
    }
}

/// A state machine in the shape of libinput's gesture machine (`evdev-mt-touchpad-gestures.c`): a value that
/// reads no clock and performs no I/O, with one entry point, ``handle(_:at:)``, and a function per state, which
/// ``dispatch(_:at:into:)`` picks. The data of a state lives in its case. A handler appends its outputs (and
/// ``bug(_:)`` for an event its state cannot take); ``step(_:at:into:)``, written once here, logs the change of
/// state, first among the step's actions, whenever the old state's name differs from the new one's.
public protocol StateMachine {
    associatedtype State: Hashable & Sendable
    associatedtype Event: Sendable
    associatedtype StateName: MachineName
    associatedtype EventName: MachineName
    associatedtype Output: Hashable & Sendable
    typealias Action = MachineAction<StateName, EventName, Output>

    var state: State { get }
    /// The name the log gives `state`.
    static func name(of state: State) -> StateName
    /// The name the log gives `event`.
    static func name(of event: Event) -> EventName
    /// Hands `event` to the current state's handler: a `switch` over the states, each case calling its own
    /// function. Called by ``step(_:at:into:)`` only.
    mutating func dispatch(_ event: Event, at time: MonotonicInstant, into actions: inout ActionList<Action>)
    /// Feeds one event; returns what the caller must do, in order. The default is one ``step(_:at:into:)``.
    mutating func handle(_ event: Event, at time: MonotonicInstant) -> ActionList<Action>
}

extension StateMachine {
    /// The name of the current state.
    @inlinable public var stateName: StateName { Self.name(of: state) }

    /// One step: the current state's handler, then the log line if the state changed (first among the actions).
    @inlinable public mutating func step(_ event: Event, at time: MonotonicInstant, into actions: inout ActionList<Action>) {
        let old = Self.name(of: state)
        var taken = ActionList<Action>()
        dispatch(event, at: time, into: &taken)
        let new = Self.name(of: state)
        if old != new { actions.append(.transitioned(from: old, event: Self.name(of: event), to: new)) }
        actions.append(contentsOf: taken)
    }

    @inlinable public mutating func handle(_ event: Event, at time: MonotonicInstant) -> ActionList<Action> {
        var actions = ActionList<Action>()
        step(event, at: time, into: &actions)
        return actions
    }

    /// The bug action for `event` in the current state.
    @inlinable public func bug(_ event: Event) -> Action { .bug(event: Self.name(of: event), state: Self.name(of: state)) }
}
