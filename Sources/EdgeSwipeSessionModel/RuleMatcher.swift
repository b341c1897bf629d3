public import EdgeSwipeProtocol
public import EdgeSwipeVocabulary

/// What the stream says of one transition when a rule fires: what the rule matched, and what a command is told.
public struct TransitionFacts: Hashable, Sendable {
    public var id: UInt64
    public var container: String
    public var operation: String
    public var from: String
    public var to: String
    public var edge: Edge?
    public var swipe: SwipeDirection?
    /// The swipe's finger count, or the edge gesture's (from the daemon's `gesture` messages).
    public var fingers: Int?
    public var device: UInt32?
    public var deviceKind: DeviceKind?
    /// The output the device drives, when the daemon knows it.
    public var output: String?
    public var percent: Double
    public var velocity: Double

    public init(
        id: UInt64, container: String, operation: String, from: String, to: String, edge: Edge? = nil,
        swipe: SwipeDirection? = nil, fingers: Int? = nil, device: UInt32? = nil, deviceKind: DeviceKind? = nil,
        output: String? = nil, percent: Double = 0, velocity: Double = 0
    ) {
        self.id = id
        self.container = container
        self.operation = operation
        self.from = from
        self.to = to
        self.edge = edge
        self.swipe = swipe
        self.fingers = fingers
        self.device = device
        self.deviceKind = deviceKind
        self.output = output
        self.percent = percent
        self.velocity = velocity
    }

    /// `left-edge`, `swipe left` or `requested`: how log lines name the gesture.
    public var gestureName: String {
        if let edge { return "\(edge.rawValue)-edge swipe" }
        if let swipe { return "\(fingers.map { "\($0)-finger " } ?? "")swipe \(swipe.rawValue)" }
        return "requested transition"
    }
}

/// A rule to carry out now.
public struct Firing: Hashable, Sendable {
    public var rule: Rule
    /// The rule's index in its set (one command at a time per rule is counted by it).
    public var ruleIndex: Int
    public var phase: RulePhase
    public var facts: TransitionFacts
    /// The focused application when it fired, if the compositor said.
    public var app: String?
    /// For a `changed` rule: +1 when the percent crossed a step upward, -1 downward.
    public var stepDirection: Int?

    public init(
        rule: Rule, ruleIndex: Int, phase: RulePhase, facts: TransitionFacts, app: String? = nil, stepDirection: Int? = nil
    ) {
        self.rule = rule
        self.ruleIndex = ruleIndex
        self.phase = phase
        self.facts = facts
        self.app = app
        self.stepDirection = stepDirection
    }
}

/// The rules as one message is matched against them: the rule set, the desktop, and the application focused when
/// the message came. A value handed to ``TransitionRules`` with each event, so that the machine matches without
/// reading anything of its own.
public struct RuleBook: Hashable, Sendable {
    public var rules: RuleSet
    public var desktop: Desktop?
    public var app: String?

    public init(rules: RuleSet, desktop: Desktop?, app: String?) {
        self.rules = rules
        self.desktop = desktop
        self.app = app
    }

    /// The first rule, in file order, for `phase` that `facts` match.
    public func first(_ phase: RulePhase, _ facts: TransitionFacts) -> Firing? {
        for (i, rule) in rules.rules.enumerated() where rule.phase == phase && matches(rule.match, facts) {
            return Firing(rule: rule, ruleIndex: i, phase: phase, facts: facts, app: app)
        }
        return nil
    }

    /// Whether `match` holds for `facts` with ``app`` focused, in this desktop.
    public func matches(_ match: RuleMatch, _ facts: TransitionFacts) -> Bool {
        if let edge = match.edge, facts.edge != edge { return false }
        if let swipe = match.swipe, facts.swipe != swipe { return false }
        if let fingers = match.fingers {
            guard let n = facts.fingers, fingers.contains(n) else { return false }
        }
        if let kind = match.device, facts.deviceKind != kind { return false }
        if let output = match.output, facts.output != output { return false }
        if let c = match.container, facts.container != c { return false }
        if let o = match.operation, facts.operation != o { return false }
        if let f = match.from, facts.from != f { return false }
        if let t = match.to, facts.to != t { return false }
        if let apps = match.apps {
            guard let app = app?.lowercased(), apps.contains(where: { $0.lowercased() == app }) else { return false }
        }
        if let desktop = match.desktop, desktop != self.desktop { return false }
        return true
    }
}

/// One transition as the rules see it, from its first message on this connection to its terminal one: the state
/// machine that makes each phase fire at most once (`began`, each `changed` step, `completed` or `cancelled`).
///
/// A value of the project's kind (docs/STYLE.md): it reads no clock and does no I/O; each event carries the facts
/// of one `transition` message (or a finger count from a `gesture`) and the rules to match them against, and the
/// actions carry the firings. ``RuleMatcher`` keeps one per running transition.
///
/// ```
/// unseen --began/changed/run-out--> running --completed/cancelled--> ended
/// unseen --completed/cancelled--> ended          (a transition whose end is all this connection saw)
/// ```
public struct TransitionRules: StateMachine, Sendable {
    public enum State: Hashable, Sendable {
        /// Nothing of it seen yet on this connection.
        case unseen
        /// Running: what the stream said of it, and the `changed` rule it steps.
        case running(Watch)
        /// Its terminal phase came; nothing about it fires again.
        case ended
    }

    /// What a running transition carries: its facts (those of its first message, with the latest percent and
    /// velocity, and a finger count once one is known) and the step of its `changed` rule.
    public struct Watch: Hashable, Sendable {
        public var facts: TransitionFacts
        /// The rule that fires on `changed` (chosen at the first change some rule matches), and the step level
        /// the percent was at when it last fired.
        public var stepRule: Int?
        public var stepLevel = 0
    }

    public enum Event: Sendable {
        case began(TransitionFacts, RuleBook)
        case changed(TransitionFacts, RuleBook)
        /// `finishing` or `cancelling`: the run-out, which fires nothing.
        case runOut(TransitionFacts)
        case completed(TransitionFacts, RuleBook)
        case cancelled(TransitionFacts, RuleBook)
        /// A `gesture` message names the transition it drives, with its finger count (an edge transition carries
        /// none of its own).
        case fingers(Int)
        /// A reload: the `changed` rule is chosen again at the next change.
        case rulesReplaced
    }

    public enum StateName: String, MachineName { case unseen, running, ended }
    public enum EventName: String, MachineName {
        case began, changed, runOut = "run-out", completed, cancelled, fingers, rulesReplaced = "rules-replaced"
    }

    public typealias Output = Firing

    public private(set) var state: State = .unseen

    public init() {}

    public static func name(of state: State) -> StateName {
        switch state {
        case .unseen: .unseen
        case .running: .running
        case .ended: .ended
        }
    }

    public static func name(of event: Event) -> EventName {
        switch event {
        case .began: .began
        case .changed: .changed
        case .runOut: .runOut
        case .completed: .completed
        case .cancelled: .cancelled
        case .fingers: .fingers
        case .rulesReplaced: .rulesReplaced
        }
    }

    public mutating func dispatch(_ event: Event, at time: MonotonicInstant, into actions: inout ActionList<Action>) {
        switch state {
        case .unseen: onUnseen(event, &actions)
        case .running(let watch): onRunning(event, watch, &actions)
        case .ended: onEnded(event)
        }
    }

    private mutating func onUnseen(_ event: Event, _ actions: inout ActionList<Action>) {
        switch event {
        case .began(let facts, let book):
            state = .running(Watch(facts: facts))
            if let f = book.first(.began, facts) { actions.append(.output(f)) }
        case .changed(let facts, let book):
            var watch = Watch(facts: facts)
            if let f = Self.step(&watch, book) { actions.append(.output(f)) }
            state = .running(watch)
        case .runOut(let facts):
            state = .running(Watch(facts: facts))
        case .completed(let facts, let book):
            state = .ended
            if let f = book.first(.completed, facts) { actions.append(.output(f)) }
        case .cancelled(let facts, let book):
            state = .ended
            if let f = book.first(.cancelled, facts) { actions.append(.output(f)) }
        case .fingers, .rulesReplaced:
            break
        }
    }

    private mutating func onRunning(_ event: Event, _ current: Watch, _ actions: inout ActionList<Action>) {
        var watch = current
        switch event {
        case .began(let facts, _):
            // A repeated `began`: the percent moves, nothing fires again.
            watch.update(with: facts)
            state = .running(watch)
        case .changed(let facts, let book):
            watch.update(with: facts)
            let fired = Self.step(&watch, book)
            state = .running(watch)
            if let fired { actions.append(.output(fired)) }
        case .runOut(let facts):
            watch.update(with: facts)
            state = .running(watch)
        case .completed(let facts, let book):
            watch.update(with: facts)
            state = .ended
            if let f = book.first(.completed, watch.facts) { actions.append(.output(f)) }
        case .cancelled(let facts, let book):
            watch.update(with: facts)
            state = .ended
            if let f = book.first(.cancelled, watch.facts) { actions.append(.output(f)) }
        case .fingers(let n):
            // Only an edge transition learns its fingers from its gesture, and only the first count.
            if watch.facts.edge != nil, watch.facts.fingers == nil { watch.facts.fingers = n }
            state = .running(watch)
        case .rulesReplaced:
            watch.stepRule = nil
            state = .running(watch)
        }
    }

    /// A line about a transition that ended (a repeated terminal line, a late `changed`): nothing fires.
    private func onEnded(_ event: Event) {
        switch event {
        case .began, .changed, .runOut, .completed, .cancelled, .fingers, .rulesReplaced:
            break
        }
    }

    /// A `changed` rule fires each time the percent crosses a multiple of its step (lisgd's repeating mode).
    static func step(_ watch: inout Watch, _ book: RuleBook) -> Firing? {
        if watch.stepRule == nil {
            guard let chosen = book.first(.changed, watch.facts) else { return nil }
            watch.stepRule = chosen.ruleIndex
            watch.stepLevel = 0
        }
        guard let index = watch.stepRule, book.rules.rules.indices.contains(index), let step = book.rules.rules[index].step
        else { return nil }
        let level = stepLevel(percent: watch.facts.percent, step: step)
        guard level != watch.stepLevel else { return nil }
        let direction = level > watch.stepLevel ? 1 : -1
        watch.stepLevel = level
        return Firing(
            rule: book.rules.rules[index], ruleIndex: index, phase: .changed, facts: watch.facts, app: book.app,
            stepDirection: direction)
    }

    /// How many steps `percent` is past 0. The percent comes from the stream, which the client reads in 0...1, and a
    /// step from the rules file, at least 0.01; the conversion is clamped anyway, so that no number traps it.
    static func stepLevel(percent: Double, step: Double) -> Int {
        let steps = (percent / step + 1e-9).rounded(.down)
        guard steps.isFinite else { return 0 }
        return Int(min(1e6, max(-1e6, steps)))
    }
}

extension TransitionRules.Watch {
    init(facts: TransitionFacts) { self.facts = facts }

    /// A later message's facts: the latest percent and velocity, and its finger count when none was known. The
    /// rest stays as the first message said.
    mutating func update(with later: TransitionFacts) {
        facts.percent = later.percent
        facts.velocity = later.velocity
        if facts.fingers == nil { facts.fingers = later.fingers }
    }
}

/// Turns the daemon's stream into the rules to fire: for each transition and phase (`began`, each `changed` step,
/// `completed`, `cancelled`), the first rule, in file order, that matches fires, once.
///
/// It follows only what matching needs: the devices (kind and output, from `hello` and `device`), the finger count
/// of each device's latest gesture (edge transitions carry no finger count), and one ``TransitionRules`` per
/// running transition.
///
/// **Epochs.** Each `hello` starts a new epoch: a restarted daemon numbers its transitions from 1 again, and even
/// the same daemon's transitions may have ended while the connection was down, so nothing learnt on the previous
/// connection is matched against the new one, with one exception: a transition the new `hello` lists as running
/// with the id, container and operation it had (the same daemon's, followed across a dropped connection) keeps
/// what was learnt of it, such as an edge swipe's fingers. Another transition under an old id (a restarted
/// daemon's) is followed afresh from what the new connection says.
///
/// **Bounds.** At most ``maxRunning`` transitions are followed at once, as many as the daemon can run (one per
/// container, and a configuration holds at most `StateLimits.maxContainers`): past it, the oldest is forgotten,
/// said once per epoch. The transitions that ended are remembered per epoch, so that a repeated line fires
/// nothing: the latest ``endedMemory`` of them (a line repeated after more than that many others ended would be
/// taken for a new transition; no daemon repeats one that late, and a watermark below which every id counts as
/// ended would let one hostile id, 2^64 - 1, silence the rest of the epoch).
public struct RuleMatcher: Sendable {
    /// What to do with one message: fire a rule, or say something in the log.
    public enum Action: Hashable, Sendable {
        case fire(Firing)
        /// A bound reached, said once per epoch (`warning`).
        case warning(String)
        /// A transition's rules changed state (`transition 7: unseen -> began -> running`; `trace`).
        case trace(String)
    }

    public private(set) var rules: RuleSet
    public let desktop: Desktop?
    /// Counts the `hello`s: the connection whose stream is being matched.
    public private(set) var epoch = 0
    private var devices: [UInt32: DeviceInfo] = [:]
    private var fingersByDevice: [UInt32: Int] = [:]
    private var transitions: [UInt64: TransitionRules] = [:]
    private var ended = EndedMemory(capacity: endedMemory)
    private var warned: Set<String> = []

    /// Transitions followed at once: as many as the daemon runs (one per container; ``ClientBounds``).
    public static let maxRunning = ClientBounds.maxTransitions
    /// Ended transitions remembered by id: never fewer than ``maxRunning``, so that every transition that ran at once
    /// with another is still remembered when that one ends.
    public static let endedMemory = 4 * maxRunning
    /// Devices remembered (a hostile stream can announce any number; ``ClientBounds``).
    public static let maxDevices = ClientBounds.maxDevices

    public init(rules: RuleSet, desktop: Desktop?) {
        self.rules = rules
        self.desktop = desktop
    }

    /// New rules (a reload); running transitions keep what was learnt of them, and are matched against the new rules
    /// from their next phase.
    public mutating func replace(_ rules: RuleSet) {
        self.rules = rules
        for id in transitions.keys { _ = transitions[id]?.handle(.rulesReplaced, at: .zero) }
    }

    /// Transitions followed now (for tests and the state dump).
    public var runningCount: Int { transitions.count }
    /// Ended transitions remembered now (at most ``endedMemory``; for tests and the fuzzer's bound).
    public var endedCount: Int { ended.count }
    /// Devices remembered now (at most ``maxDevices``).
    public var deviceCount: Int { devices.count }

    /// What is known of running transition `id` now (what a live rule is matched against at `began`:
    /// LiveTransitions.swift).
    public func facts(of id: UInt64) -> TransitionFacts? {
        guard case .running(let watch)? = transitions[id]?.state else { return nil }
        return watch.facts
    }

    /// The actions `message` calls for, with the focused application `app`.
    public mutating func handle(_ message: ServerMessage, app: String?) -> [Action] {
        switch message {
        case .hello(let h):
            epoch += 1
            devices = [:]
            for d in h.devices.prefix(Self.maxDevices) { devices[d.id] = d }
            fingersByDevice = [:]
            let previous = transitions
            transitions = [:]
            for r in h.state.running.prefix(Self.maxRunning) {
                guard let old = previous[r.id], case .running(let watch) = old.state,
                      watch.facts.container == r.container, watch.facts.operation == r.operation else { continue }
                transitions[r.id] = old
            }
            ended = EndedMemory(capacity: Self.endedMemory)
            warned = []
            return []
        case .device(let d):
            if d.change == .removed {
                devices[d.device.id] = nil
                fingersByDevice[d.device.id] = nil
            } else if devices[d.device.id] != nil || devices.count < Self.maxDevices {
                devices[d.device.id] = d.device
            } else {
                return warnOnce("devices", "stream: more than \(Self.maxDevices) devices announced; the others are not followed")
            }
            return []
        case .gesture(let g):
            if (g.state == .began || g.state == .changed), devices[g.device] != nil { fingersByDevice[g.device] = g.fingers }
            guard let id = g.transition, transitions[id] != nil else { return [] }
            return step(id, .fingers(g.fingers))
        case .transition(let t):
            return transition(t, app: app)
        case .goodbye, .lifecycle, .presentation, .interaction, .state, .config, .error, .reply, .unknown:
            return []
        }
    }

    private mutating func transition(_ t: TransitionMessage, app: String?) -> [Action] {
        var actions: [Action] = []
        if transitions[t.id] == nil {
            guard !ended.contains(t.id) else { return [] }
            if transitions.count >= Self.maxRunning, let oldest = transitions.keys.min() {
                transitions[oldest] = nil
                ended.insert(oldest)
                actions += warnOnce(
                    "running",
                    "stream: more than \(Self.maxRunning) transitions running at once (the daemon runs one per container); forgetting the oldest, \(oldest), and so on")
            }
            transitions[t.id] = TransitionRules()
        }
        let facts = facts(t)
        let book = RuleBook(rules: rules, desktop: desktop, app: app)
        let event: TransitionRules.Event =
            switch t.phase {
            case .began: .began(facts, book)
            case .changed: .changed(facts, book)
            case .finishing, .cancelling: .runOut(facts)
            case .completed: .completed(facts, book)
            case .cancelled: .cancelled(facts, book)
            }
        return actions + step(t.id, event)
    }

    /// Hands `event` to transition `id`'s rules; an ended one is forgotten and remembered as ended.
    private mutating func step(_ id: UInt64, _ event: TransitionRules.Event) -> [Action] {
        guard var rules = transitions[id] else { return [] }
        var actions: [Action] = []
        for action in rules.handle(event, at: .zero) {
            switch action {
            case .output(let firing): actions.append(.fire(firing))
            case .transitioned, .bug: if let line = action.logLine { actions.append(.trace("transition \(id): \(line)")) }
            }
        }
        if rules.stateName == .ended {
            transitions[id] = nil
            ended.insert(id)
        } else {
            transitions[id] = rules
        }
        return actions
    }

    private mutating func warnOnce(_ key: String, _ line: String) -> [Action] {
        warned.insert(key).inserted ? [.warning("\(line) (said once per connection)")] : []
    }

    /// Whether `match` holds for `facts` with `app` focused, in this desktop.
    public func matches(_ match: RuleMatch, _ facts: TransitionFacts, app: String?) -> Bool {
        RuleBook(rules: rules, desktop: desktop, app: app).matches(match, facts)
    }

    private func facts(_ t: TransitionMessage) -> TransitionFacts {
        let device = t.device.flatMap { devices[$0] }
        return TransitionFacts(
            id: t.id, container: t.container, operation: t.operation, from: t.from, to: t.to, edge: t.edge,
            swipe: t.swipeDirection, fingers: t.swipeFingers ?? t.device.flatMap { fingersByDevice[$0] },
            device: t.device, deviceKind: device?.kind, output: device?.output, percent: t.percent, velocity: t.velocity)
    }
}

/// The ids of the latest `capacity` transitions that ended in one epoch: a set for the lookup and a ring for the
/// order they are forgotten in.
struct EndedMemory: Sendable {
    let capacity: Int
    private var ids: Set<UInt64> = []
    private var order: [UInt64] = []
    private var next = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func contains(_ id: UInt64) -> Bool { ids.contains(id) }

    /// Ids remembered now (at most ``capacity``).
    var count: Int { ids.count }

    mutating func insert(_ id: UInt64) {
        guard ids.insert(id).inserted else { return }
        if order.count < capacity {
            order.append(id)
            return
        }
        ids.remove(order[next])
        order[next] = id
        next = (next + 1) % capacity
    }
}
