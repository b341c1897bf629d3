import Testing

@testable import EdgeSwipeProtocol
@testable import EdgeSwipeSessionModel

/// Live rules: which rule takes a transition at `began`, and what the desktop is told until its end.
@Suite("Live rules: the transitions a GNOME animation follows")
struct LiveTransitionsTests {
    static let rules = """
        [[rule]]
        name = "ff overview"
        swipe = "up"
        fingers = 3
        app = "firefox"
        gnome_overview = "show"
        [[rule]]
        name = "next"
        swipe = "left"
        fingers = 3
        workspace = "next"
        [[rule]]
        name = "prev"
        swipe = "right"
        fingers = 3
        workspace = "previous"
        [[rule]]
        name = "back"
        edge = "left"
        key = "alt+Left"
        [[rule]]
        name = "early"
        swipe = "down"
        on = "began"
        gnome_overview = "hide"

        """

    /// A transition message with a run-out of `durationUS` on `finishing`/`cancelling`.
    static func t(_ id: UInt64, _ phase: TransitionPhase, _ percent: Double = 0, swipe: SwipeDirection = .left, runOutUS: Int64 = 250_000) -> ServerMessage {
        guard case .transition(var m) = Stream.transition(id, phase, percent: percent, edge: nil, swipe: swipe, fingers: 3, device: 2) else {
            fatalError("Stream.transition is a transition")
        }
        if phase == .finishing || phase == .cancelling {
            var a = AnimationInfo()
            a.durationUS = runOutUS
            m.animation = a
        }
        return .transition(m)
    }

    static func swipe(_ id: UInt64, _ swipe: SwipeDirection = .left, end: TransitionPhase = .completed) -> [ServerMessage] {
        [t(id, .began, swipe: swipe), t(id, .changed, 0.25, swipe: swipe), t(id, .changed, 0.6, swipe: swipe),
         t(id, end == .completed ? .finishing : .cancelling, 0.6, swipe: swipe), t(id, end, end == .completed ? 1 : 0, swipe: swipe)]
    }

    enum Step: Sendable {
        case line(ServerMessage)
        case letGo(UInt64)
        case disconnected
    }

    /// Feeds `steps` to a matcher and a tracker as the session does; the desktop's actions and the rules fired at
    /// completion, in order, written short.
    static func run(_ steps: [Step], desktop: Desktop? = .gnome, available: Set<LiveFamily> = Set(LiveFamily.allCases), app: String? = nil) -> [String] {
        var matcher = RuleMatcher(rules: RuleMatcherTests.rules(rules), desktop: desktop)
        var live = LiveTransitions(desktop: desktop)
        live.available = available
        var out: [String] = []
        func record(_ actions: [LiveTransitions.Action]) {
            for action in actions {
                switch action {
                case .begin(let g): out.append("begin \(g.transition) \(g.kind) by \(g.rule.name)")
                case .update(let id, let p): out.append("update \(id) \(p)")
                case .end(let id, let commit, let ms): out.append("end \(id) \(commit ? "commit" : "back") \(ms)ms")
                case .goBack(let id): out.append("go back \(id)")
                case .log: break
                }
            }
        }
        for step in steps {
            switch step {
            case .line(let m):
                let firings = RuleMatcherTests.firings(matcher.handle(m, app: app))
                let kept = firings.filter { !live.suppresses($0) }
                record(live.handle(m, matcher: matcher, app: app))
                out += kept.map { "fire \($0.rule.name) \($0.phase.rawValue)" }
            case .letGo(let id): record(live.letGo(id))
            case .disconnected: record(live.streamEnded())
            }
        }
        return out
    }

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var steps: [Step]
        var desktop: Desktop? = .gnome
        var available: Set<LiveFamily> = Set(LiveFamily.allCases)
        var app: String? = nil
        var expected: [String]
        var description: String { name }
    }

    static func lines(_ m: [ServerMessage]) -> [Step] { m.map(Step.line) }

    static let cases: [Case] = [
        Case(name: "on GNOME a workspace rule takes the swipe at began, follows it, commits with the run-out, and does not fire again",
             steps: lines([Stream.hello()] + swipe(1)),
             expected: ["begin 1 workspace next by next", "update 1 0.25", "update 1 0.6", "end 1 commit 250ms"]),
        Case(name: "a reversed swipe goes back with the daemon's run-out, and nothing fires",
             steps: lines([Stream.hello()] + swipe(1, .right, end: .cancelled)),
             expected: ["begin 1 workspace previous by prev", "update 1 0.25", "update 1 0.6", "end 1 back 250ms"]),
        Case(name: "on sway the same rule is not live: it fires once at completion",
             steps: lines([Stream.hello()] + swipe(1)), desktop: .sway, expected: ["fire next completed"]),
        Case(name: "without the extension (nothing available) the rule fires at completion",
             steps: lines([Stream.hello()] + swipe(1)), available: [], expected: ["fire next completed"]),
        Case(name: "a family the extension lacks is not live; the others are",
             steps: lines([Stream.hello()] + swipe(1) + swipe(2, .up)), available: [.overview], app: "firefox",
             expected: ["fire next completed", "begin 2 overview show by ff overview", "update 2 0.25", "update 2 0.6", "end 2 commit 250ms"]),
        Case(name: "an app rule is live only for its app: the focused app at began decides",
             steps: lines([Stream.hello()] + swipe(1, .up)), app: "foot", expected: []),
        Case(name: "a key rule and a began rule are never live",
             steps: lines([Stream.hello()] + Stream.edgeSwipe(1) + swipe(2, .down)),
             expected: ["fire back completed", "fire early began"]),
        Case(name: "a catch: changed after finishing follows again, and the next decision is sent",
             steps: lines([Stream.hello(), t(1, .began), t(1, .changed, 0.7), t(1, .finishing, 0.7), t(1, .changed, 0.4), t(1, .cancelling, 0.4, runOutUS: 90_000), t(1, .cancelled)]),
             expected: ["begin 1 workspace next by next", "update 1 0.7", "end 1 commit 250ms", "update 1 0.4", "end 1 back 90ms"]),
        Case(name: "the daemon changes its mind during the run-out: the new decision is sent once",
             steps: lines([Stream.hello(), t(1, .began), t(1, .changed, 0.5), t(1, .finishing, 0.5), t(1, .cancelling, 0.5), t(1, .cancelling, 0.5), t(1, .cancelled)]),
             expected: ["begin 1 workspace next by next", "update 1 0.5", "end 1 commit 250ms", "end 1 back 250ms"]),
        Case(name: "completed with no run-out line commits at once",
             steps: lines([Stream.hello(), t(1, .began), t(1, .changed, 0.9), t(1, .completed, 1)]),
             expected: ["begin 1 workspace next by next", "update 1 0.9", "end 1 commit 0ms"]),
        Case(name: "the desktop let go (GestureSettled): nothing more is sent, and the rule does not fire at completion",
             steps: lines([Stream.hello(), t(1, .began), t(1, .changed, 0.3)]) + [.letGo(1)] + lines([t(1, .changed, 0.5), t(1, .finishing, 0.5), t(1, .completed, 1)]),
             expected: ["begin 1 workspace next by next", "update 1 0.3"]),
        Case(name: "the connection lost mid-gesture: it goes back; the next transition is taken afresh",
             steps: lines([Stream.hello(), t(1, .began), t(1, .changed, 0.3)]) + [.disconnected] + lines([Stream.hello()] + swipe(2)),
             expected: ["begin 1 workspace next by next", "update 1 0.3", "go back 1",
                        "begin 2 workspace next by next", "update 2 0.25", "update 2 0.6", "end 2 commit 250ms"]),
        Case(name: "a new hello without the transition: it goes back; with it, it keeps following",
             steps: lines([Stream.hello(), t(1, .began), t(1, .changed, 0.3), Stream.hello(running: [1]), t(1, .changed, 0.4), Stream.hello(running: [])]),
             expected: ["begin 1 workspace next by next", "update 1 0.3", "update 1 0.4", "go back 1"]),
        Case(name: "after the run-out is sent, a lost stream sends nothing: the desktop finishes on its own",
             steps: lines([Stream.hello(), t(1, .began), t(1, .finishing, 0.8)]) + [.disconnected],
             expected: ["begin 1 workspace next by next", "end 1 commit 250ms"]),
        Case(name: "hostile numbers: a NaN percent is not sent, percents are clamped, a run-out is at most 5 s",
             steps: lines([Stream.hello(), t(1, .began), t(1, .changed, .nan), t(1, .changed, 7), t(1, .changed, -.infinity), t(1, .changed, -2),
                           t(1, .finishing, 1, runOutUS: .max), t(1, .completed, 1), t(2, .began), t(2, .cancelling, 0, runOutUS: -5), t(2, .cancelled)]),
             expected: ["begin 1 workspace next by next", "update 1 1.0", "update 1 0.0", "end 1 commit 5000ms",
                        "begin 2 workspace next by next", "end 2 back 0ms"]),
        Case(name: "a transition id the extension cannot keep exactly (above 2^53) is not live",
             steps: lines([Stream.hello()] + swipe(1 << 60)), expected: ["fire next completed"]),
        Case(name: "a began seen twice begins once",
             steps: lines([Stream.hello(), t(1, .began), t(1, .began), t(1, .cancelled)]),
             expected: ["begin 1 workspace next by next", "end 1 back 0ms"]),
    ]

    @Test("what GNOME is told, as the table says", arguments: cases)
    func table(_ c: Case) {
        #expect(Self.run(c.steps, desktop: c.desktop, available: c.available, app: c.app) == c.expected)
    }

    @Test("GNOME's defaults bind only what GNOME lacks: the top edge opens the overview live, the left edge is back, 3-finger swipes stay GNOME's")
    func gnomeDefaults() {
        let rules = RuleSet.defaults(for: .gnome)
        #expect(rules.rules(on: .gnome).map(\.name) == ["overview", "back"])
        #expect(RuleSet.defaults(for: .sway).rules(on: .sway).map(\.name) == ["next workspace", "previous workspace", "back"])
        #expect(GnomeClaims.gestures(for: rules) == [], "GNOME's own gestures are left alone")
        var matcher = RuleMatcher(rules: rules, desktop: .gnome)
        var live = LiveTransitions(desktop: .gnome)
        live.available = Set(LiveFamily.allCases)
        var out: [String] = []
        for m in [Stream.hello()] + Stream.edgeSwipe(1, edge: .top) + Stream.edgeSwipe(2) + Stream.swipe(3, .left) {
            let fired = RuleMatcherTests.firings(matcher.handle(m, app: nil)).filter { !live.suppresses($0) }
            for action in live.handle(m, matcher: matcher, app: nil) {
                if case .begin(let g) = action { out.append("live \(g.rule.name) \(g.kind)") }
            }
            out += fired.map { "fire \($0.rule.name)" }
        }
        #expect(out == ["live overview overview show", "fire back"])
    }

    @Test("the gestures a user's live rules claim from GNOME", arguments: [
        ("[[rule]]\nswipe = \"left\"\nfingers = 3\nworkspace = \"next\"\n", ["touchpad-horizontal", "touchscreen-horizontal"]),
        ("[[rule]]\nswipe = \"up\"\nfingers = 3\ndevice = \"touchpad\"\ngnome_overview = \"show\"\n", ["touchpad-vertical"]),
        ("[[rule]]\nswipe = \"up\"\nfingers = 2\ngnome_overview = \"show\"\n", []),
        ("[[rule]]\nedge = \"left\"\nworkspace = \"previous\"\n", []),
        ("[[rule]]\nswipe = \"left\"\nfingers = 3\nkey = \"alt+Left\"\n", []),
        ("[[rule]]\nfingers = 4\ndevice = \"touchscreen\"\nworkspace = \"next\"\n", ["touchscreen-horizontal", "touchscreen-vertical"]),
    ] as [(String, [String])])
    func claims(_ toml: String, _ expected: [String]) {
        // On GNOME a file's rules come before GNOME's built-in ones, which claim nothing.
        #expect(GnomeClaims.gestures(for: RuleMatcherTests.rules(toml).withBuiltIn(for: .gnome)) == expected)
    }

    @Test("each transition's machine logs its changes of state and forgets it at its end")
    func logsAndForgets() {
        var matcher = RuleMatcher(rules: RuleMatcherTests.rules(Self.rules), desktop: .gnome)
        var live = LiveTransitions(desktop: .gnome)
        live.available = [.workspace]
        var logs: [String] = []
        for m in [Stream.hello()] + Self.swipe(1) {
            _ = matcher.handle(m, app: nil)
            for case .log(let line) in live.handle(m, matcher: matcher, app: nil) { logs.append(line) }
            if case .transition(let t) = m, t.phase == .changed { #expect(live.owner(of: 1)?.name == "next") }
        }
        #expect(live.count == 0)
        #expect(logs == [
            "rule 'next' (s.toml:7): takes transition 1 (3-finger swipe left) live: workspace next",
            "rule 'next' (s.toml:7): transition 1: following -> finishing -> running-out",
            "rule 'next' (s.toml:7): transition 1: running-out -> completed -> ended",
        ])
    }

    @Test("measured: what following live rules adds to each line (printed, never asserted)")
    func measured() {
        let rules = RuleMatcherTests.rules(Self.rules)
        var stream: [ServerMessage] = [Stream.hello()]
        for id in UInt64(1)...200 {
            stream.append(Self.t(id, .began))
            for i in 1...40 { stream.append(Self.t(id, .changed, Double(i) / 50)) }
            stream += [Self.t(id, .finishing, 0.8), Self.t(id, .completed, 1)]
        }
        func run(live follow: Bool) -> Duration {
            var matcher = RuleMatcher(rules: rules, desktop: .gnome)
            var live = LiveTransitions(desktop: .gnome)
            live.available = Set(LiveFamily.allCases)
            var sink = 0
            let start = ContinuousClock.now
            for m in stream {
                let fired = RuleMatcherTests.firings(matcher.handle(m, app: nil))
                sink &+= fired.count
                if follow { sink &+= live.handle(m, matcher: matcher, app: nil).count &+ fired.filter(live.suppresses).count }
            }
            let took = ContinuousClock.now - start
            #expect(sink >= 0)
            return took
        }
        _ = (run(live: false), run(live: true))
        let plain = (0..<5).map { _ in run(live: false) }.min() ?? .zero
        let followed = (0..<5).map { _ in run(live: true) }.min() ?? .zero
        func ns(_ d: Duration) -> Double { Double(d.components.attoseconds) / 1e9 + Double(d.components.seconds) * 1e9 }
        print(String(format: "live rules, measured over %d lines: the matcher alone %.0f ns a line, with live rules %.0f ns a line (+%.0f)",
                     stream.count, ns(plain) / Double(stream.count), ns(followed) / Double(stream.count), (ns(followed) - ns(plain)) / Double(stream.count)))
    }

    @Test("the machine refuses nothing silently: an event after the end is a logged bug")
    func afterEnd() {
        var m = LiveTransition()
        _ = m.handle(.cancelled)
        #expect(m.handle(.changed(percent: 0.5)) == [.bug(event: .changed, state: .ended)])
        #expect(LiveTransition.Action.bug(event: .changed, state: .ended).logLine == "invalid event changed in state ended")
    }
}
