public import EdgeSwipeProtocol

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

/// Turns the daemon's stream into the rules to fire: for each transition and phase (`began`, each `changed` step,
/// `completed`, `cancelled`), the first rule, in file order, that matches fires, once.
///
/// It follows only what matching needs: the devices (kind and output, from `hello` and `device`), the finger count
/// of each device's latest gesture (edge transitions carry no finger count), and the transitions running since this
/// connection's `hello`. A transition's terminal phase is seen once, so nothing fires twice for it; a `cancelled`
/// transition fires only rules that ask for `cancelled`.
public struct RuleMatcher: Sendable {
    public private(set) var rules: RuleSet
    public let desktop: Desktop?
    private var devices: [UInt32: DeviceInfo] = [:]
    private var fingersByDevice: [UInt32: Int] = [:]
    private var running: [UInt64: Tracked] = [:]
    /// The latest transitions that ended on this connection: a line about one of them (a repeated terminal line)
    /// fires nothing. Bounded; cleared by a `hello` (a restarted daemon numbers its transitions from 1 again).
    private var ended: [UInt64] = []
    static let endedMemory = 64

    struct Tracked {
        var facts: TransitionFacts
        /// The rule that fires on `changed` for this transition (chosen at its first change), and the step level
        /// the percent was at when it last fired.
        var stepRule: Int?
        var stepLevel: Int = 0
    }

    public init(rules: RuleSet, desktop: Desktop?) {
        self.rules = rules
        self.desktop = desktop
    }

    /// New rules (a reload); running transitions keep what was learnt of them, and are matched against the new rules
    /// from their next phase.
    public mutating func replace(_ rules: RuleSet) {
        self.rules = rules
        for id in running.keys { running[id]?.stepRule = nil }
    }

    /// Transitions followed now (for tests and the state dump).
    public var runningCount: Int { running.count }

    /// What is known of running transition `id` now (what a live rule is matched against at `began`:
    /// LiveTransitions.swift).
    public func facts(of id: UInt64) -> TransitionFacts? { running[id]?.facts }

    /// The rules `message` fires, with the focused application `app`.
    public mutating func handle(_ message: ServerMessage, app: String?) -> [Firing] {
        switch message {
        case .hello(let h):
            devices = Dictionary(h.devices.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            fingersByDevice = [:]
            // A new connection: transitions not running any more ended while we were away, and must not fire.
            let alive = Set(h.state.running.map(\.id))
            running = running.filter { alive.contains($0.key) }
            ended = []
            return []
        case .device(let d):
            if d.change == .removed { devices[d.device.id] = nil } else { devices[d.device.id] = d.device }
            return []
        case .gesture(let g):
            if g.state == .began || g.state == .changed { fingersByDevice[g.device] = g.fingers }
            if let id = g.transition, running[id]?.facts.edge != nil, running[id]?.facts.fingers == nil {
                running[id]?.facts.fingers = g.fingers
            }
            return []
        case .transition(let t):
            return transition(t, app: app)
        case .goodbye:
            return []
        case .lifecycle, .presentation, .interaction, .state, .config, .error, .reply, .unknown:
            return []
        }
    }

    private mutating func transition(_ t: TransitionMessage, app: String?) -> [Firing] {
        if running[t.id] == nil && ended.contains(t.id) { return [] }
        var tracked = running[t.id] ?? Tracked(facts: facts(t))
        tracked.facts.percent = t.percent
        tracked.facts.velocity = t.velocity
        if tracked.facts.fingers == nil { tracked.facts.fingers = facts(t).fingers }
        let isNew = running[t.id] == nil
        switch t.phase {
        case .began:
            running[t.id] = tracked
            guard isNew else { return [] }
            return first(.began, tracked.facts, app: app).map { [$0] } ?? []
        case .changed:
            guard let fired = changed(&tracked, app: app) else {
                running[t.id] = tracked
                return []
            }
            running[t.id] = tracked
            return [fired]
        case .finishing, .cancelling:
            running[t.id] = tracked
            return []
        case .completed, .cancelled:
            running[t.id] = nil
            ended.append(t.id)
            if ended.count > Self.endedMemory { ended.removeFirst() }
            return first(t.phase == .completed ? .completed : .cancelled, tracked.facts, app: app).map { [$0] } ?? []
        }
    }

    /// A `changed` rule fires each time the percent crosses a multiple of its step (lisgd's repeating mode).
    private func changed(_ tracked: inout Tracked, app: String?) -> Firing? {
        if tracked.stepRule == nil {
            guard let chosen = first(.changed, tracked.facts, app: app) else { return nil }
            tracked.stepRule = chosen.ruleIndex
            tracked.stepLevel = 0
        }
        guard let index = tracked.stepRule, rules.rules.indices.contains(index), let step = rules.rules[index].step else { return nil }
        let level = Int((tracked.facts.percent / step + 1e-9).rounded(.down))
        guard level != tracked.stepLevel else { return nil }
        let direction = level > tracked.stepLevel ? 1 : -1
        tracked.stepLevel = level
        return Firing(rule: rules.rules[index], ruleIndex: index, phase: .changed, facts: tracked.facts, app: app, stepDirection: direction)
    }

    private func first(_ phase: RulePhase, _ facts: TransitionFacts, app: String?) -> Firing? {
        for (i, rule) in rules.rules.enumerated() where rule.phase == phase && matches(rule.match, facts, app: app) {
            return Firing(rule: rule, ruleIndex: i, phase: phase, facts: facts, app: app)
        }
        return nil
    }

    /// Whether `match` holds for `facts` with `app` focused, in this desktop.
    public func matches(_ match: RuleMatch, _ facts: TransitionFacts, app: String?) -> Bool {
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

    private func facts(_ t: TransitionMessage) -> TransitionFacts {
        let device = t.device.flatMap { devices[$0] }
        return TransitionFacts(
            id: t.id, container: t.container, operation: t.operation, from: t.from, to: t.to, edge: t.edge,
            swipe: t.swipeDirection, fingers: t.swipeFingers ?? t.device.flatMap { fingersByDevice[$0] },
            device: t.device, deviceKind: device?.kind, output: device?.output, percent: t.percent, velocity: t.velocity)
    }
}
