public import EdgeSwipeProtocol

// Live rules: on a desktop whose own animation can follow the finger (GNOME Shell, through EdgeSwipe's extension), a
// rule that would fire once at completion drives that animation instead, from the transition's `began` to its end.
// The rule is chosen at `began` by the same matching as `RuleMatcher` (the first `completed` rule that matches what
// is known then); from then on it owns the transition, and does not fire again at completion: GNOME is never driven
// twice for one transition. ARCHITECTURE.md, "On GNOME: the session matches, the extension animates".

/// Which of a desktop's animations a live rule drives.
public enum LiveFamily: String, Hashable, Sendable, CaseIterable {
    /// The next or previous workspace (GNOME: `workspace-next`, `workspace-previous`).
    case workspace
    /// The overview (GNOME: `overview-show`, `overview-hide`).
    case overview
}

/// What a live rule does with the finger.
public enum LiveKind: Hashable, Sendable, CustomStringConvertible {
    case workspace(WorkspaceStep)
    /// `toggle` becomes `show` or `hide` when the gesture begins, from whether the overview is shown then.
    case overview(OverviewChange)

    /// The kind of `rule` on `desktop` when it is live there: a `workspace` or `gnome_overview` rule that fires on
    /// `completed` (what the rule asks for is then "this, when the swipe completes", which the animation shows as it
    /// goes), on GNOME. `nil`: the rule fires as it does everywhere.
    public init?(_ rule: Rule, desktop: Desktop?) {
        guard desktop == .gnome, rule.phase == .completed else { return nil }
        switch rule.effect {
        case .workspace(let step): self = .workspace(step)
        case .gnomeOverview(let change): self = .overview(change)
        case .sway, .hyprland, .niri, .key, .command, .kwinShortcut: return nil
        }
    }

    public var family: LiveFamily {
        switch self {
        case .workspace: .workspace
        case .overview: .overview
        }
    }

    /// The extension's name for the gesture (`workspace-next`), or `nil` for a toggle, which is named when it
    /// begins.
    public var gnomeKind: String? {
        switch self {
        case .workspace(.next): "workspace-next"
        case .workspace(.previous): "workspace-previous"
        case .overview(.show): "overview-show"
        case .overview(.hide): "overview-hide"
        case .overview(.toggle): nil
        }
    }

    public var description: String {
        switch self {
        case .workspace(let step): "workspace \(step.rawValue)"
        case .overview(let change): "overview \(change.rawValue)"
        }
    }
}

/// A transition a live rule took at its `began`: what to begin on the desktop.
public struct LiveGesture: Hashable, Sendable {
    public var rule: Rule
    public var kind: LiveKind
    /// What the stream said of the transition at `began` (its id, the output its device drives).
    public var facts: TransitionFacts
    public var app: String?

    public init(rule: Rule, kind: LiveKind, facts: TransitionFacts, app: String? = nil) {
        self.rule = rule
        self.kind = kind
        self.facts = facts
        self.app = app
    }

    public var transition: UInt64 { facts.id }
}

/// One transition owned by a live rule, as a state machine (STYLE.md, 1): one entry (``handle(_:)``), a function per
/// state, the data in the states, and the log line `following -> finishing -> running-out` written by the dispatcher
/// alone. It begins in `following` (the rule took the transition at `began` and the desktop's gesture has begun).
///
/// ```
/// following ──finishing/cancelling──► running-out ──changed (a catch)──► following
///     │  └──completed/cancelled/stream-ended──► ended ◄──completed/cancelled/stream-ended──┘
///     └──let-go──► released ──completed/cancelled/stream-ended──► ended
/// ```
public struct LiveTransition: Hashable, Sendable {
    public enum State: Hashable, Sendable {
        /// The desktop's gesture follows each percent.
        case following
        /// The daemon decided (`commit`, or go back): the desktop runs out with that decision. A `changed` catches it.
        case runningOut(commit: Bool)
        /// The desktop let go (its gesture went back on its own, or refused, or the call failed): nothing more is
        /// sent, and the rule does not fire at completion either.
        case released
        /// The transition is over: the tracker forgets it.
        case ended
    }

    public enum StateName: String, Hashable, Sendable, CaseIterable {
        case following, runningOut = "running-out", released, ended
    }

    public enum Event: Hashable, Sendable {
        /// The percent, finite and within 0...1.
        case changed(percent: Double)
        /// The run-out toward completion, over this long (the daemon's `animation.duration_us`).
        case finishing(durationMS: UInt32)
        case cancelling(durationMS: UInt32)
        case completed, cancelled
        /// The daemon's stream ended under the transition (the connection lost, a new `hello` without it).
        case streamEnded
        /// The desktop let go of the gesture (GNOME's `GestureSettled`, a refusal, a failed call).
        case letGo
    }

    public enum EventName: String, Hashable, Sendable, CaseIterable {
        case changed, finishing, cancelling, completed, cancelled, streamEnded = "stream-ended", letGo = "let-go"
    }

    /// What the caller sends the desktop.
    public enum Output: Hashable, Sendable {
        case update(percent: Double)
        case end(commit: Bool, durationMS: UInt32)
        /// Go back to where the gesture began (the stream ended: nobody decides any more).
        case goBack
    }

    public enum Action: Hashable, Sendable {
        case transitioned(from: StateName, event: EventName, to: StateName)
        /// An event the state cannot take: a bug of the caller, logged, otherwise ignored.
        case bug(event: EventName, state: StateName)
        case output(Output)

        /// `following -> finishing -> running-out`, or the bug's line; `nil` for an output.
        public var logLine: String? {
            switch self {
            case .transitioned(let from, let event, let to): "\(from.rawValue) -> \(event.rawValue) -> \(to.rawValue)"
            case .bug(let event, let state): "invalid event \(event.rawValue) in state \(state.rawValue)"
            case .output: nil
            }
        }
    }

    public private(set) var state: State = .following

    public init() {}

    public static func name(of state: State) -> StateName {
        switch state {
        case .following: .following
        case .runningOut: .runningOut
        case .released: .released
        case .ended: .ended
        }
    }

    public static func name(of event: Event) -> EventName {
        switch event {
        case .changed: .changed
        case .finishing: .finishing
        case .cancelling: .cancelling
        case .completed: .completed
        case .cancelled: .cancelled
        case .streamEnded: .streamEnded
        case .letGo: .letGo
        }
    }

    public var stateName: StateName { Self.name(of: state) }

    /// Feeds one event; what the caller must do, the change of state first.
    public mutating func handle(_ event: Event) -> [Action] {
        let old = stateName
        let taken: [Action]
        switch state {
        case .following: taken = onFollowing(event)
        case .runningOut(let commit): taken = onRunningOut(event, commit: commit)
        case .released: taken = onReleased(event)
        case .ended: taken = [.bug(event: Self.name(of: event), state: old)]
        }
        let new = stateName
        return old == new ? taken : [.transitioned(from: old, event: Self.name(of: event), to: new)] + taken
    }

    private mutating func onFollowing(_ event: Event) -> [Action] {
        switch event {
        case .changed(let percent):
            return [.output(.update(percent: percent))]
        case .finishing(let ms):
            state = .runningOut(commit: true)
            return [.output(.end(commit: true, durationMS: ms))]
        case .cancelling(let ms):
            state = .runningOut(commit: false)
            return [.output(.end(commit: false, durationMS: ms))]
        // An end without a run-out (a run-out of no length, or its line coalesced away): the decision at once.
        case .completed:
            state = .ended
            return [.output(.end(commit: true, durationMS: 0))]
        case .cancelled:
            state = .ended
            return [.output(.end(commit: false, durationMS: 0))]
        case .streamEnded:
            state = .ended
            return [.output(.goBack)]
        case .letGo:
            state = .released
            return []
        }
    }

    private mutating func onRunningOut(_ event: Event, commit: Bool) -> [Action] {
        switch event {
        // A finger caught the run-out: the desktop follows again (GNOME's extension catches on the update).
        case .changed(let percent):
            state = .following
            return [.output(.update(percent: percent))]
        case .finishing(let ms):
            state = .runningOut(commit: true)
            return commit ? [] : [.output(.end(commit: true, durationMS: ms))]
        case .cancelling(let ms):
            state = .runningOut(commit: false)
            return commit ? [.output(.end(commit: false, durationMS: ms))] : []
        // The desktop was given the decision and its length: it finishes the run-out on its own.
        case .completed, .cancelled, .streamEnded:
            state = .ended
            return []
        case .letGo:
            state = .released
            return []
        }
    }

    private mutating func onReleased(_ event: Event) -> [Action] {
        switch event {
        case .changed, .finishing, .cancelling, .letGo:
            return []
        case .completed, .cancelled, .streamEnded:
            state = .ended
            return []
        }
    }
}

/// The transitions live rules own, fed the same stream as `RuleMatcher` (after it, so that the facts it keeps are
/// known): at a transition's `began` it picks the rule (``handle(_:matcher:app:)``), then follows the transition to
/// its end through a ``LiveTransition`` each, turning their outputs into actions for the desktop.
public struct LiveTransitions: Sendable {
    public let desktop: Desktop?
    /// The animations the desktop can drive now (on GNOME, what the extension offered when the session registered;
    /// empty while it is not there): a live rule whose family is missing fires at completion as anywhere else.
    public var available: Set<LiveFamily> = []
    private var owned: [UInt64: Owned] = [:]

    struct Owned: Sendable {
        var gesture: LiveGesture
        var machine = LiveTransition()
    }

    /// The longest run-out a desktop is told of (the extension clamps to the same).
    public static let maxRunOutMS: UInt32 = 5000
    /// The largest transition id the extension keeps exactly (its numbers are doubles): above it, not live.
    public static let maxTransitionID: UInt64 = (1 << 53) - 1

    public init(desktop: Desktop?) { self.desktop = desktop }

    /// What to do for the desktop.
    public enum Action: Hashable, Sendable {
        /// Begin the desktop's gesture (then updates follow).
        case begin(LiveGesture)
        case update(transition: UInt64, percent: Double)
        case end(transition: UInt64, commit: Bool, durationMS: UInt32)
        /// The stream ended under it: go back.
        case goBack(transition: UInt64)
        /// A line for the log (debug): the owning rule, and each change of state.
        case log(String)
    }

    /// Transitions owned now (tests, the state dump).
    public var count: Int { owned.count }

    /// The rule that owns transition `id`, if a live rule does.
    public func owner(of id: UInt64) -> Rule? { owned[id]?.gesture.rule }

    /// Whether `firing` must not happen because a live rule owns its transition: the `completed` phase belongs to the
    /// owner, which drove the desktop all along (or let go, and then nothing is driven again). Asked before
    /// ``handle(_:matcher:app:)`` takes the same line.
    public func suppresses(_ firing: Firing) -> Bool {
        firing.phase == .completed && owned[firing.facts.id] != nil
    }

    /// One line of the daemon's stream, after `matcher` has taken it; `app` is the focused application.
    public mutating func handle(_ message: ServerMessage, matcher: RuleMatcher, app: String?) -> [Action] {
        switch message {
        case .hello(let hello):
            // A new connection: what it does not list as running ended while we were away.
            let alive = Set(hello.state.running.map(\.id))
            var out: [Action] = []
            for id in owned.keys.sorted() where !alive.contains(id) { out += step(id, .streamEnded) }
            return out
        case .transition(let t):
            return transition(t, matcher: matcher, app: app)
        case .device, .gesture, .goodbye, .lifecycle, .presentation, .interaction, .state, .config, .error, .reply, .unknown:
            return []
        }
    }

    /// The daemon's stream ended (the connection was lost): every gesture that follows the finger goes back.
    public mutating func streamEnded() -> [Action] {
        var out: [Action] = []
        for id in owned.keys.sorted() { out += step(id, .streamEnded) }
        return out
    }

    /// The desktop let go of transition `id` (GNOME's `GestureSettled`, a refused `BeginGesture`, a failed call):
    /// its rule sends nothing more for it and does not fire at its completion.
    public mutating func letGo(_ id: UInt64) -> [Action] { step(id, .letGo) }

    private mutating func transition(_ t: TransitionMessage, matcher: RuleMatcher, app: String?) -> [Action] {
        switch t.phase {
        case .began:
            guard owned[t.id] == nil else { return [] }
            return began(t, matcher: matcher, app: app)
        case .changed:
            // A percent that is no number is not sent; the extension clamps to 0...1 too.
            guard t.percent.isFinite else { return [] }
            return step(t.id, .changed(percent: min(1, max(0, t.percent))))
        case .finishing:
            return step(t.id, .finishing(durationMS: Self.runOutMS(t.animation)))
        case .cancelling:
            return step(t.id, .cancelling(durationMS: Self.runOutMS(t.animation)))
        case .completed:
            return step(t.id, .completed)
        case .cancelled:
            return step(t.id, .cancelled)
        }
    }

    /// The first `completed` rule that matches what is known at `began` takes the transition, if it is live here.
    private mutating func began(_ t: TransitionMessage, matcher: RuleMatcher, app: String?) -> [Action] {
        guard desktop == .gnome, !available.isEmpty, t.id <= Self.maxTransitionID, let facts = matcher.facts(of: t.id) else { return [] }
        guard let rule = matcher.rules.rules.first(where: { $0.phase == .completed && matcher.matches($0.match, facts, app: app) }),
            let kind = LiveKind(rule, desktop: desktop), available.contains(kind.family)
        else { return [] }
        let gesture = LiveGesture(rule: rule, kind: kind, facts: facts, app: app)
        owned[t.id] = Owned(gesture: gesture)
        return [.log("\(rule): takes transition \(t.id) (\(facts.gestureName)) live: \(kind)"), .begin(gesture)]
    }

    private mutating func step(_ id: UInt64, _ event: LiveTransition.Event) -> [Action] {
        guard var record = owned[id] else { return [] }
        var out: [Action] = []
        for action in record.machine.handle(event) {
            switch action {
            case .transitioned, .bug:
                if let line = action.logLine { out.append(.log("\(record.gesture.rule): transition \(id): \(line)")) }
            case .output(.update(let percent)):
                out.append(.update(transition: id, percent: percent))
            case .output(.end(let commit, let ms)):
                out.append(.end(transition: id, commit: commit, durationMS: ms))
            case .output(.goBack):
                out.append(.goBack(transition: id))
            }
        }
        if record.machine.state == .ended { owned[id] = nil } else { owned[id] = record }
        return out
    }

    /// The run-out's length in whole milliseconds, from the stream's microseconds, clamped to 0...``maxRunOutMS``
    /// before any conversion (a hostile or broken stream's number cannot trap).
    static func runOutMS(_ animation: AnimationInfo?) -> UInt32 {
        guard let us = animation?.durationUS, us > 0 else { return 0 }
        let bounded = min(us, Int64(maxRunOutMS) * 1000)
        return UInt32((bounded + 500) / 1000)
    }
}

/// GNOME's own gestures that the user's live rules take over (the extension's `ClaimGestures` names): GNOME then
/// never drives the same animation as a rule. A rule claims a gesture when it is live on GNOME (``LiveKind``), matches
/// swipes (not edges), and can match three or more fingers, which GNOME's gestures use: `touchpad-horizontal` for a
/// left/right swipe on a touchpad, `touchscreen-vertical` for an up/down one on a touchscreen, both devices when the
/// rule names none. GNOME's defaults in EdgeSwipe claim nothing: they bind only what GNOME lacks.
public enum GnomeClaims {
    public static func gestures(for rules: RuleSet) -> [String] {
        var out: Set<String> = []
        for rule in rules.rules where LiveKind(rule, desktop: .gnome) != nil && rule.match.edge == nil {
            guard rule.match.desktop == nil || rule.match.desktop == .gnome else { continue }
            if let fingers = rule.match.fingers, fingers.upperBound < 3 { continue }
            let devices: [DeviceKind] = rule.match.device.map { [$0] } ?? [.touchpad, .touchscreen]
            let axes: [String] =
                switch rule.match.swipe {
                case .left?, .right?: ["horizontal"]
                case .up?, .down?: ["vertical"]
                case nil: ["horizontal", "vertical"]
                }
            for device in devices {
                for axis in axes { out.insert("\(device.rawValue)-\(axis)") }
            }
        }
        return out.sorted()
    }
}
