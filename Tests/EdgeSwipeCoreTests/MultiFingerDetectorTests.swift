import EdgeSwipeFingerScript
import EdgeSwipeTestSupport
import Testing
@testable import EdgeSwipeCore

/// The multi-finger detector's state machine, pair by pair: every (state, event) is a row of the table below, with
/// the state it leaves the machine in and the actions it takes, log lines included. `docs/ARCHITECTURE.md`'s
/// diagram is checked against the same table (`StateDiagramTests`). The rows are played by the shared runner
/// (`StateMachineTable`, in the test support), through frames of touches, as the engine feeds the detector: each
/// frame names the event it must be (``MultiFingerDetector/take(_:)`` is checked to agree), and the one pair no
/// frame can make is fed its event directly.
@Suite("MultiFingerDetector: every state and event")
struct MultiFingerDetectorTests: StateMachineTable {
    typealias D = MultiFingerDetector
    typealias Machine = Player

    /// The detector fed as the engine feeds it: a frame of touches at a time.
    struct Player: TableDrivenStateMachine {
        enum Event: Sendable {
            /// A frame of touches, and the event it must be.
            case frame(D.EventName, [Touch])
            /// The engine's word that the device's events were dropped.
            case dropped
            /// An event fed as it is, for a pair no frame makes.
            case event(D.Event)
        }

        var detector: D
        var stateName: D.StateName { detector.stateName }
        static func name(of event: Event) -> D.EventName {
            switch event {
            case .frame(let name, _): name
            case .dropped: .eventsDropped
            case .event(let e): D.name(of: e)
            }
        }

        mutating func handle(_ event: Event, at time: MonotonicInstant) -> ActionList<D.Action> {
            switch event {
            case .frame(let name, let touches):
                let taken = detector.take(TouchFrame(device: device.id, time: time, touches: touches))
                #expect(D.name(of: taken) == name, "the frame is \(taken)")
                return detector.handle(taken, at: time)
            case .dropped:
                return detector.reset(at: time)
            case .event(let e):
                return detector.handle(e, at: time)
            }
        }
    }

    /// The Synaptics I2C touchpad, 101.3 x 56.7 mm: three fingers side by side 10 mm apart.
    static let device = TestDevices.synapticsI2C
    static let mmX = 1 / 101.333
    static let mmY = 1 / 56.667
    static let home: [Int32: NormalizedPoint] = [
        0: NormalizedPoint(x: 0.3, y: 0.5), 1: NormalizedPoint(x: 0.3 + 10 * mmX, y: 0.5),
        2: NormalizedPoint(x: 0.3 + 20 * mmX, y: 0.5), 3: NormalizedPoint(x: 0.3 + 30 * mmX, y: 0.5),
        4: NormalizedPoint(x: 0.3 + 40 * mmX, y: 0.5),
    ]

    /// Where finger `id` lands (the middle of the pad for one the table never lands).
    static func at(_ id: Int32) -> NormalizedPoint { home[id] ?? NormalizedPoint(x: 0.5, y: 0.5) }
    static func land(_ ids: [Int32]) -> [Touch] { ids.map { Touch(id: $0, phase: .down, position: at($0)) } }
    static func lift(_ ids: [Int32]) -> [Touch] { ids.map { Touch(id: $0, phase: .up, position: at($0)) } }
    /// Fingers `ids` moved by (dx, dy) mm from where they landed.
    static func moved(_ ids: [Int32], _ dx: Double, _ dy: Double = 0) -> [Touch] {
        ids.map { Touch(id: $0, phase: .motion, position: NormalizedPoint(x: at($0).x + dx * mmX, y: at($0).y + dy * mmY)) }
    }
    /// The leftmost finger moved left and the rightmost right: a pinch's fingers.
    static func apart(_ mm: Double) -> [Touch] { moved([0], -mm) + moved([2], mm) }

    static let three: [Int32] = [0, 1, 2]

    static let setups: [D.StateName: [Player.Event]] = [
        .idle: [],
        .counting: [.frame(.fingersChanged, land(three))],
        .swiping: [.frame(.fingersChanged, land(three)), .frame(.motion, moved(three, 3))],
        .rejected: [.frame(.fingersChanged, land(three)), .frame(.motion, apart(3))],
    ]

    /// A fourth finger landed on a running 3-finger swipe, then 90 ms of frames: the next one (10 ms later) holds
    /// the new count for libinput's 100 ms switch timeout.
    static let fourthHeld: [Player.Event] =
        [.frame(.fingersChanged, land([3]) + moved(three, 3))] + Array(repeating: .frame(.motion, moved(three, 3)), count: 9)

    static let table: [Row] = {
        var rows: [Row] = []
        // idle: only a landing starts something.
        rows += [
            Row(state: .idle, event: .frame(.fingersChanged, land([0])), variant: "a finger landed", expect: .counting,
                actions: [step(.idle, .fingersChanged, .counting)]),
            Row(state: .idle, event: .event(.motion(delta: .zero)), variant: "no frame makes it: nothing is down", expect: .idle,
                actions: [bug(.motion, .idle)]),
            Row(state: .idle, event: .frame(.allLifted, lift([7])), variant: "a finger from before lost events", expect: .idle, actions: []),
            Row(state: .idle, event: .dropped, expect: .idle, actions: []),
        ]
        // counting: the fingers' motion decides, once the count holds.
        rows += [
            Row(state: .counting, event: .frame(.fingersChanged, land([3])), variant: "a fourth finger: counting again", expect: .counting,
                actions: []),
            Row(state: .counting, event: .frame(.motion, moved(three, 0.5)), variant: "short of 2 mm", expect: .counting, actions: []),
            Row(state: .counting, event: .frame(.motion, moved(three, 3)), variant: "3 mm the same way: a swipe", expect: .swiping,
                actions: [step(.counting, .motion, .swiping), "begin 3", "update"]),
            Row(state: .counting, event: .frame(.motion, apart(3)), variant: "3 mm ways apart: a pinch", expect: .rejected,
                actions: [step(.counting, .motion, .rejected)]),
            Row(state: .counting, event: .frame(.allLifted, lift(three)), expect: .idle, actions: [step(.counting, .allLifted, .idle)]),
            Row(state: .counting, event: .dropped, expect: .idle, actions: [step(.counting, .eventsDropped, .idle)]),
        ]
        // swiping: updates until every finger lifts; on a touchpad a new count that holds 100 ms cancels.
        rows += [
            Row(state: .swiping, event: .frame(.fingersChanged, land([3])), variant: "a fourth finger: the new count waits", expect: .swiping,
                actions: []),
            Row(state: .swiping, event: .frame(.fingersChanged, land([4]) + lift([3])), variant: "a new count held 100 ms",
                extra: fourthHeld, expect: .counting, actions: [step(.swiping, .fingersChanged, .counting), "end cancelled"]),
            Row(state: .swiping, event: .frame(.motion, moved(three, 5)), expect: .swiping, actions: ["update"]),
            Row(state: .swiping, event: .frame(.motion, moved(three, 4)), variant: "a new count held 100 ms", extra: fourthHeld,
                expect: .counting, actions: [step(.swiping, .motion, .counting), "end cancelled"]),
            Row(state: .swiping, event: .frame(.allLifted, lift(three)), expect: .idle, actions: [step(.swiping, .allLifted, .idle), "end"]),
            Row(state: .swiping, event: .dropped, variant: "the swipe recognizer cancels the swipe", expect: .idle,
                actions: [step(.swiping, .eventsDropped, .idle)]),
        ]
        // rejected: nothing until every finger lifts.
        rows += [
            Row(state: .rejected, event: .frame(.fingersChanged, land([3])), expect: .rejected, actions: []),
            Row(state: .rejected, event: .frame(.motion, moved(three, 5)), expect: .rejected, actions: []),
            Row(state: .rejected, event: .frame(.allLifted, lift(three)), expect: .idle, actions: [step(.rejected, .allLifted, .idle)]),
            Row(state: .rejected, event: .dropped, expect: .idle, actions: [step(.rejected, .eventsDropped, .idle)]),
        ]
        return rows
    }()

    static func makeMachine() -> Player {
        Player(detector: D(settings: .touchpad, device: device, emits: true))
    }

    /// Outputs, as `begin 3`, `update`, `end`, `end cancelled`.
    static func describe(_ action: D.Action, after event: D.EventName) -> String {
        if let line = action.logLine { return line }
        switch action {
        case .output(.begin(let fingers)): return "begin \(fingers)"
        case .output(.update): return "update"
        case .output(.end(let cancelled)): return cancelled ? "end cancelled" : "end"
        case .transitioned, .bug: return ""
        }
    }

    @Test("each state is reached by its setup")
    func setupsReachTheirStates() {
        #expect(Self.statesNotReached == [])
    }

    @Test("every pair: the new state, the actions and the log lines", arguments: table)
    func pair(_ row: Row) {
        Self.expectRow(row)
    }

    @Test("the table covers every (state, event) pair")
    func everyPair() {
        #expect(Self.pairsMissing == [])
    }

    @Test("a detector that does not emit (a live touchpad's) follows the fingers and says nothing")
    func silent() {
        var d = D(settings: .touchpad, device: Self.device, emits: false)
        let frames = [Self.land(Self.three), Self.moved(Self.three, 3), Self.moved(Self.three, 6), Self.lift(Self.three)]
        for (i, touches) in frames.enumerated() {
            let actions = d.handle(TouchFrame(device: Self.device.id, time: MonotonicInstant(microseconds: UInt64(i) * 10_000), touches: touches))
            #expect(actions.isEmpty)
            #expect(d.stateName == .idle)
        }
        #expect(d.centroid != nil)
    }
}
