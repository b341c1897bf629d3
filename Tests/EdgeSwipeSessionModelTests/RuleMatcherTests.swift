import Testing

@testable import EdgeSwipeProtocol
@testable import EdgeSwipeSessionModel

/// Messages as the daemon sends them, written short.
enum Stream {
    static func hello(devices: [DeviceInfo] = [touchscreen, touchpad], running: [UInt64] = []) -> ServerMessage {
        var h = HelloMessage()
        h.devices = devices
        h.state.running = running.map { id in
            var r = RunningInfo()
            r.id = id
            return r
        }
        return .hello(h)
    }

    static let touchscreen: DeviceInfo = {
        var d = DeviceInfo()
        d.id = 1
        d.kind = .touchscreen
        d.output = "DSI-1"
        return d
    }()

    static let touchpad: DeviceInfo = {
        var d = DeviceInfo()
        d.id = 2
        d.kind = .touchpad
        return d
    }()

    static func gesture(device: UInt32 = 1, fingers: Int = 1, state: GestureState = .began, transition: UInt64? = nil) -> ServerMessage {
        var g = GestureMessage()
        g.kind = "edge"
        g.edge = .left
        g.device = device
        g.fingers = fingers
        g.state = state
        g.transition = transition
        return .gesture(g)
    }

    static func transition(
        _ id: UInt64, _ phase: TransitionPhase, percent: Double = 0, edge: Edge? = .left,
        swipe: SwipeDirection? = nil, fingers: Int? = nil, device: UInt32 = 1, container: String = "shell", operation: String = "previous-tab"
    ) -> ServerMessage {
        var t = TransitionMessage()
        t.id = id
        t.phase = phase
        t.percent = percent
        t.edge = edge
        t.swipeDirection = swipe
        t.swipeFingers = fingers
        t.device = device
        t.container = container
        t.operation = operation
        t.from = "home"
        t.to = "mail"
        t.progress = phase == .changed
        return .transition(t)
    }

    /// A whole edge swipe on the touchscreen, from its first message to `end`.
    static func edgeSwipe(_ id: UInt64, fingers: Int = 1, end: TransitionPhase = .completed, edge: Edge = .left) -> [ServerMessage] {
        [
            gesture(fingers: fingers), transition(id, .began, edge: edge), gesture(fingers: fingers, state: .changed, transition: id),
            transition(id, .changed, percent: 0.3, edge: edge), transition(id, .changed, percent: 0.7, edge: edge),
            transition(id, end == .completed ? .finishing : .cancelling, percent: 0.7, edge: edge), transition(id, end, percent: end == .completed ? 1 : 0, edge: edge),
        ]
    }

    static func swipe(_ id: UInt64, _ direction: SwipeDirection, fingers: Int = 3, end: TransitionPhase = .completed) -> [ServerMessage] {
        [
            transition(id, .began, edge: nil, swipe: direction, fingers: fingers, device: 2, operation: "next-tab"),
            transition(id, .changed, percent: 0.6, edge: nil, swipe: direction, fingers: fingers, device: 2, operation: "next-tab"),
            transition(id, end, percent: 1, edge: nil, swipe: direction, fingers: fingers, device: 2, operation: "next-tab"),
        ]
    }
}

@Suite("Matching the stream against the rules")
struct RuleMatcherTests {
    static func rules(_ toml: String) -> RuleSet {
        do { return try SessionRulesParser.parse(toml, file: "s.toml") } catch { fatalError("\(error)") }
    }

    /// Feeds `messages` with `app` focused; the rule names and phases that fired.
    static func run(_ rules: RuleSet, _ messages: [ServerMessage], app: String? = nil, desktop: Desktop? = .sway) -> [String] {
        var matcher = RuleMatcher(rules: rules, desktop: desktop)
        return messages.flatMap { matcher.handle($0, app: app) }.map { "\($0.rule.name) \($0.phase.rawValue)\($0.stepDirection.map { $0 > 0 ? " +" : " -" } ?? "")" }
    }

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var toml: String
        var messages: [ServerMessage]
        var app: String? = nil
        var desktop: Desktop? = .sway
        var fired: [String]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the defaults: a completed 1-finger left-edge swipe is back, once",
             toml: "", messages: [Stream.hello()] + Stream.edgeSwipe(1), fired: ["back completed"]),
        Case(name: "the defaults: a cancelled left-edge swipe fires nothing",
             toml: "", messages: [Stream.hello()] + Stream.edgeSwipe(1, end: .cancelled), fired: []),
        Case(name: "the defaults: a 2-finger left-edge swipe is not back",
             toml: "", messages: [Stream.hello()] + Stream.edgeSwipe(1, fingers: 2), fired: []),
        Case(name: "the defaults: 3-finger swipes left then right are next and previous workspace",
             toml: "", messages: [Stream.hello()] + Stream.swipe(1, .left) + Stream.swipe(2, .right),
             fired: ["next workspace completed", "previous workspace completed"]),
        Case(name: "the defaults: a 4-finger swipe matches no rule",
             toml: "", messages: [Stream.hello()] + Stream.swipe(1, .left, fingers: 4), fired: []),
        Case(name: "a rule for cancelled fires only on cancel; the built-in back still fires on the completed one",
             toml: "[[rule]]\nname = \"c\"\nedge = \"left\"\non = \"cancelled\"\ncommand = [\"true\"]\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1) + Stream.edgeSwipe(2, end: .cancelled), fired: ["back completed", "c cancelled"]),
        Case(name: "began fires once, at the start",
             toml: "defaults = false\n[[rule]]\nname = \"b\"\non = \"began\"\ncommand = [\"true\"]\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1), fired: ["b began"]),
        Case(name: "the file's left-edge rule replaces the built-in back key for that gesture; the built-in workspace rules still apply",
             toml: "[[rule]]\nname = \"mine\"\nedge = \"left\"\nkey = \"ctrl+Tab\"\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1) + Stream.swipe(2, .left) + Stream.swipe(3, .right),
             fired: ["mine completed", "next workspace completed", "previous workspace completed"]),
        Case(name: "a file's rule on another phase leaves the built-in one firing at completion",
             toml: "[[rule]]\nname = \"tick\"\nedge = \"left\"\non = \"began\"\ncommand = [\"true\"]\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1), fired: ["tick began", "back completed"]),
        Case(name: "defaults = false: only the file's rules, and a 3-finger swipe no rule of it matches does nothing",
             toml: "defaults = false\n[[rule]]\nname = \"up\"\nswipe = \"up\"\ncommand = [\"true\"]\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1) + Stream.swipe(2, .left) + Stream.swipe(3, .up), fired: ["up completed"]),
        Case(name: "changed fires each 25 % crossed, both ways",
             toml: "[[rule]]\nname = \"v\"\nedge = \"left\"\non = \"changed\"\nstep = 0.25\ncommand = [\"true\"]\n",
             messages: [Stream.hello(), Stream.transition(1, .began)] + [0.1, 0.3, 0.55, 0.6, 0.2, 0.8].map { Stream.transition(1, .changed, percent: $0) },
             fired: ["v changed +", "v changed +", "v changed -", "v changed +"]),
        Case(name: "the first matching rule wins: the application's rule before the general one",
             toml: "[[rule]]\nname = \"ff\"\nedge = \"left\"\napp = \"firefox\"\nkey = \"ctrl+bracketleft\"\n[[rule]]\nname = \"any\"\nedge = \"left\"\nkey = \"alt+Left\"\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1), app: "Firefox", fired: ["ff completed"]),
        Case(name: "another application gets the general rule",
             toml: "[[rule]]\nname = \"ff\"\nedge = \"left\"\napp = \"firefox\"\nkey = \"ctrl+bracketleft\"\n[[rule]]\nname = \"any\"\nedge = \"left\"\nkey = \"alt+Left\"\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1), app: "foot", fired: ["any completed"]),
        Case(name: "no focused application matches no app rule: the built-in back fires instead",
             toml: "[[rule]]\nname = \"ff\"\nedge = \"left\"\napp = \"firefox\"\nkey = \"a\"\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1), fired: ["back completed"]),
        Case(name: "device kind and output come from hello's devices",
             toml: "[[rule]]\nname = \"pad\"\ndevice = \"touchpad\"\ncommand = [\"true\"]\n[[rule]]\nname = \"dsi\"\noutput = \"DSI-1\"\ncommand = [\"true\"]\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1) + Stream.swipe(2, .left), fired: ["dsi completed", "pad completed"]),
        Case(name: "a device added later is known; one removed is not",
             toml: "defaults = false\n[[rule]]\nname = \"dsi\"\noutput = \"DSI-1\"\ncommand = [\"true\"]\n",
             messages: [Stream.hello(devices: []), .device({ var d = DeviceMessage(); d.change = .added; d.device = Stream.touchscreen; return d }())]
                + Stream.edgeSwipe(1)
                + [.device({ var d = DeviceMessage(); d.change = .removed; d.device = Stream.touchscreen; return d }())] + Stream.edgeSwipe(2),
             fired: ["dsi completed"]),
        Case(name: "a rule for another compositor does not fire; the built-in one after it does",
             toml: "[[rule]]\nname = \"h\"\nswipe = \"left\"\ncompositor = \"hyprland\"\nworkspace = \"next\"\n",
             messages: [Stream.hello()] + Stream.swipe(1, .left), fired: ["next workspace completed"]),
        Case(name: "container, operation, from and to",
             toml: "defaults = false\n[[rule]]\nname = \"n\"\ncontainer = \"shell\"\noperation = \"next-tab\"\nfrom = \"home\"\nto = \"mail\"\ncommand = [\"true\"]\n",
             messages: [Stream.hello()] + Stream.edgeSwipe(1) + Stream.swipe(2, .left), fired: ["n completed"]),
        Case(name: "a reconnection mid-transition: its end on the old connection was missed, nothing fires for it",
             toml: "", messages: [Stream.hello()] + Array(Stream.edgeSwipe(1).prefix(4)) + [Stream.hello(running: [])], fired: []),
        Case(name: "a reconnection to the same daemon mid-transition: its end fires once",
             toml: "", messages: [Stream.hello()] + Array(Stream.edgeSwipe(1).prefix(4)) + [Stream.hello(running: [1])]
                + Array(Stream.edgeSwipe(1).suffix(2)), fired: ["back completed"]),
        Case(name: "a terminal phase seen twice (a replayed line) fires once",
             toml: "", messages: [Stream.hello()] + Stream.edgeSwipe(1) + [Stream.transition(1, .completed, percent: 1)],
             fired: ["back completed"]),
    ]

    @Test("rules fire once per transition and phase, as the table says", arguments: cases)
    func table(_ c: Case) {
        let rules = c.toml.isEmpty ? RuleSet.defaults : Self.rules(c.toml)
        #expect(Self.run(rules, c.messages, app: c.app, desktop: c.desktop) == c.fired)
    }

    @Test("1,000 gestures a minute: each fires once, and nothing is kept after its end")
    func manyGestures() {
        var matcher = RuleMatcher(rules: .defaults, desktop: .sway)
        var fired = 0
        _ = matcher.handle(Stream.hello(), app: nil)
        for id in 1...1000 {
            for m in Stream.edgeSwipe(UInt64(id), end: id % 2 == 0 ? .completed : .cancelled) { fired += matcher.handle(m, app: nil).count }
        }
        #expect(fired == 500)
        #expect(matcher.runningCount == 0)
    }

    @Test("a fired edge rule carries the gesture's facts")
    func facts() {
        var matcher = RuleMatcher(rules: .defaults, desktop: .sway)
        let firings = ([Stream.hello()] + Stream.edgeSwipe(7)).flatMap { matcher.handle($0, app: "foot") }
        #expect(firings.count == 1)
        let f = firings[0].facts
        #expect(f.id == 7 && f.edge == .left && f.fingers == 1 && f.deviceKind == .touchscreen && f.output == "DSI-1" && f.percent == 1)
        #expect(firings[0].app == "foot")
    }
}
