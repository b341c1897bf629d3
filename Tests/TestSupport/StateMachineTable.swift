public import EdgeSwipeCore
// A plain `swift build` (release above all) builds this support target too, where swift-testing is not offered:
// the checking part is for test builds only.
#if canImport(Testing)
public import Testing
#endif

// The table runner every state machine's test file shares. Each machine keeps its own file with its own table (every
// (state, event) pair -> the new state and the actions, log lines included); how a row is played, how the log lines
// a row expects are worded, and which states and pairs a table misses are the same for all of them, so they live
// here once.

/// A state machine as its table drives it: the one `handle(event, at: time)` entry, and the names its log lines give
/// its states and events.
public protocol TableDrivenStateMachine {
    associatedtype Event: Sendable
    associatedtype Action: Hashable & Sendable
    associatedtype StateName: RawRepresentable<String> & CaseIterable & Hashable & Sendable
    associatedtype EventName: RawRepresentable<String> & CaseIterable & Hashable & Sendable

    var stateName: StateName { get }
    static func name(of event: Event) -> EventName
    mutating func handle(_ event: Event, at time: MonotonicInstant) -> ActionList<Action>
}

// The machines' shared kit (`StateMachine`, in the core) gives each of them what the table needs.
extension ScreenEdgePanRecognizer: TableDrivenStateMachine {}
extension SwipeRecognizer: TableDrivenStateMachine {}
extension PercentDrivenInteractiveTransition: TableDrivenStateMachine {}

/// One row of a machine's table: from `state` (reached by the table's setup for it, then `extra`), `event` leaves the
/// machine in `expect`, having taken `actions`, in order: log lines as the machine words them, the rest as the test
/// file describes them.
public struct StateMachineRow<Machine: TableDrivenStateMachine>: Sendable, CustomStringConvertible {
    public var state: Machine.StateName
    public var event: Machine.Event
    /// What differs from the plain pair, when it matters (whose touch, how many fingers).
    public var variant: String
    /// Events after the setup and before `event`.
    public var extra: [Machine.Event]
    public var expect: Machine.StateName
    public var actions: [String]

    public init(
        state: Machine.StateName, event: Machine.Event, variant: String = "", extra: [Machine.Event] = [],
        expect: Machine.StateName, actions: [String]
    ) {
        self.state = state
        self.event = event
        self.variant = variant
        self.extra = extra
        self.expect = expect
        self.actions = actions
    }

    /// How the test names the row: `tracking + touch-up (another finger)`.
    public var description: String {
        "\(state.rawValue) + \(Machine.name(of: event).rawValue)\(variant.isEmpty ? "" : " (\(variant))")"
    }
}

/// A machine's table test: the machine, how to reach each state from a new one, the table, and how the test words an
/// action that is not a log line. ``run(_:)`` plays a row the same way for every machine: the setup's events 10 ms
/// apart from one second, then the row's extra events, then its event.
public protocol StateMachineTable {
    associatedtype Machine: TableDrivenStateMachine
    /// A new machine, as every row starts from.
    static func makeMachine() -> Machine
    /// The events that take a new machine to each state.
    static var setups: [Machine.StateName: [Machine.Event]] { get }
    static var table: [StateMachineRow<Machine>] { get }
    /// An action `event` took, described (its log line, when it has one).
    static func describe(_ action: Machine.Action, after event: Machine.EventName) -> String
}

extension StateMachineTable {
    public typealias Row = StateMachineRow<Machine>

    /// When a row's first event happens.
    public static var tableStart: MonotonicInstant { MonotonicInstant(microseconds: 1_000_000) }

    /// The log line of an impossible (state, event) pair.
    public static func bug(_ event: Machine.EventName, _ state: Machine.StateName) -> String {
        "invalid event \(event.rawValue) in state \(state.rawValue)"
    }

    /// The log line of a transition: `old -> event -> new`.
    public static func step(_ from: Machine.StateName, _ event: Machine.EventName, _ to: Machine.StateName) -> String {
        "\(from.rawValue) -> \(event.rawValue) -> \(to.rawValue)"
    }

    /// A new machine after `events`, 10 ms apart from ``tableStart``, and the time of the next event.
    public static func machine(after events: [Machine.Event]) -> (Machine, MonotonicInstant) {
        var machine = makeMachine()
        var time = tableStart
        for event in events {
            _ = machine.handle(event, at: time)
            time = time.advanced(by: .milliseconds(10))
        }
        return (machine, time)
    }

    /// Plays `row`: the machine after it, and its event's actions, described.
    public static func run(_ row: Row) -> (Machine, [String]) {
        var (machine, time) = machine(after: (setups[row.state] ?? []) + row.extra)
        let actions = machine.handle(row.event, at: time)
        return (machine, actions.map { describe($0, after: Machine.name(of: row.event)) })
    }

    /// The states whose setup leaves a new machine in another state, each as `wanted (reached other)`.
    public static var statesNotReached: [String] {
        Machine.StateName.allCases.compactMap { state in
            let reached = machine(after: setups[state] ?? []).0.stateName
            return reached == state ? nil : "\(state.rawValue) (reached \(reached.rawValue))"
        }
    }

    /// The (state, event) pairs no row of the table takes, each as `state + event`.
    public static var pairsMissing: [String] {
        Machine.StateName.allCases.flatMap { state in
            Machine.EventName.allCases.compactMap { event in
                table.contains { $0.state == state && Machine.name(of: $0.event) == event } ? nil : "\(state.rawValue) + \(event.rawValue)"
            }
        }
    }

    #if canImport(Testing)
    /// Plays `row` and checks it: the state it leaves the machine in, its actions and log lines, and that they fit
    /// the machines' inline action list. Returns the machine, for checks of what may follow.
    @discardableResult
    public static func expectRow(_ row: Row, sourceLocation: SourceLocation = #_sourceLocation) -> Machine {
        let (machine, actions) = run(row)
        #expect(machine.stateName == row.expect, sourceLocation: sourceLocation)
        #expect(actions == row.actions, sourceLocation: sourceLocation)
        #expect(actions.count <= 4, "the inline action list holds four", sourceLocation: sourceLocation)
        return machine
    }
    #endif
}
