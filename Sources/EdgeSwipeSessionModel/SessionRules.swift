public import EdgeSwipeTOML
public import EdgeSwipeVocabulary
import EdgeSwipeProtocol

/// The desktop the session runs in, from its environment (``Desktop/detect(environment:)``); a rule may name one
/// (`compositor = "sway"`) to run only there.
public enum Desktop: String, Hashable, Sendable, CaseIterable {
    case sway, i3, hyprland, niri, kde, gnome, phosh

    /// The compositor whose IPC the session can speak, from the variables each sets in its session:
    /// `$SWAYSOCK`, `$I3SOCK`, `$HYPRLAND_INSTANCE_SIGNATURE`, `$NIRI_SOCKET`, then `$XDG_CURRENT_DESKTOP`.
    public static func detect(environment: [String: String]) -> Desktop? {
        func set(_ k: String) -> Bool { !(environment[k] ?? "").isEmpty }
        if set("SWAYSOCK") { return .sway }
        if set("HYPRLAND_INSTANCE_SIGNATURE") { return .hyprland }
        if set("NIRI_SOCKET") { return .niri }
        if set("I3SOCK") { return .i3 }
        let desktops = (environment["XDG_CURRENT_DESKTOP"] ?? "").lowercased().split(separator: ":")
        if desktops.contains("phosh") { return .phosh }
        if desktops.contains("kde") { return .kde }
        if desktops.contains("gnome") { return .gnome }
        return nil
    }

    /// Whether the session speaks this desktop's compositor IPC (workspace rules and focus events).
    public var hasCompositorIPC: Bool {
        switch self {
        case .sway, .i3, .hyprland, .niri: true
        case .kde, .gnome, .phosh: false
        }
    }
}

/// When a rule fires, in the life of the transition it matches.
public enum RulePhase: String, Hashable, Sendable, CaseIterable {
    case began, changed, completed, cancelled
}

/// Which way a workspace rule moves.
public enum WorkspaceStep: String, Hashable, Sendable, CaseIterable {
    case next, previous
}

/// GNOME Shell's overview, as `gnome_overview` asks for it.
public enum OverviewChange: String, Hashable, Sendable, CaseIterable {
    case show, hide, toggle
}

/// What a rule does.
public enum Effect: Hashable, Sendable, CustomStringConvertible {
    /// The next or previous workspace on the output the gesture came from, in whichever of sway/i3, Hyprland and
    /// niri runs.
    case workspace(WorkspaceStep)
    /// A sway/i3 command (`RUN_COMMAND`), as `swaymsg` takes it.
    case sway(String)
    /// A Hyprland request, as `hyprctl` sends it (`dispatch workspace m+1`).
    case hyprland(String)
    /// A niri action, as JSON (`{"FocusWorkspaceDown":{}}`).
    case niri(String)
    /// A key chord through the virtual keyboard.
    case key(KeyChord)
    /// A program run with `argv` (never through a shell), killed after `timeout`.
    case command(argv: [String], timeout: Duration)
    /// A KWin global shortcut by name (`org.kde.kglobalaccel` `invokeShortcut`).
    case kwinShortcut(String)
    /// GNOME Shell's overview (`org.gnome.Shell` `OverviewActive`).
    case gnomeOverview(OverviewChange)

    public var description: String {
        switch self {
        case .workspace(let step): "workspace \(step.rawValue)"
        case .sway(let c): "sway \(TOMLValue.quoted(c))"
        case .hyprland(let c): "hyprland \(TOMLValue.quoted(c))"
        case .niri(let a): "niri \(a)"
        case .key(let chord): "key \(chord)"
        case .command(let argv, _): "command \(argv.map(TOMLValue.quoted).joined(separator: " "))"
        case .kwinShortcut(let name): "kwin shortcut \(TOMLValue.quoted(name))"
        case .gnomeOverview(let change): "gnome overview \(change.rawValue)"
        }
    }

    /// The effect's key in a rule.
    static let keys = ["workspace", "sway", "hyprland", "niri", "key", "command", "kwin_shortcut", "gnome_overview"]

    /// What `--dry-run` logs in its place: `would send alt+Left`, `would switch to the next workspace`,
    /// `would run ["notify-send", "hi"]`.
    public var wouldDo: String {
        switch self {
        case .workspace(.next): "would switch to the next workspace"
        case .workspace(.previous): "would switch to the previous workspace"
        case .sway(let c): "would send sway \(TOMLValue.quoted(c))"
        case .hyprland(let c): "would send Hyprland \(TOMLValue.quoted(c))"
        case .niri(let a): "would send niri \(a)"
        case .key(let chord): "would send \(chord)"
        case .command(let argv, _): "would run [\(argv.map(TOMLValue.quoted).joined(separator: ", "))]"
        case .kwinShortcut(let name): "would invoke KWin's shortcut \(TOMLValue.quoted(name))"
        case .gnomeOverview(let change): "would \(change.rawValue) GNOME's overview"
        }
    }
}

/// What a rule matches; `nil` matches anything.
public struct RuleMatch: Hashable, Sendable {
    public var edge: Edge?
    public var swipe: SwipeDirection?
    public var fingers: ClosedRange<Int>?
    public var device: DeviceKind?
    public var output: String?
    public var container: String?
    public var operation: String?
    public var from: String?
    public var to: String?
    /// The focused application's `app_id` (Wayland) or class (X11), any of these.
    public var apps: [String]?
    public var desktop: Desktop?

    public init(
        edge: Edge? = nil, swipe: SwipeDirection? = nil, fingers: ClosedRange<Int>? = nil, device: DeviceKind? = nil,
        output: String? = nil, container: String? = nil, operation: String? = nil, from: String? = nil, to: String? = nil,
        apps: [String]? = nil, desktop: Desktop? = nil
    ) {
        self.edge = edge
        self.swipe = swipe
        self.fingers = fingers
        self.device = device
        self.output = output
        self.container = container
        self.operation = operation
        self.from = from
        self.to = to
        self.apps = apps
        self.desktop = desktop
    }
}

extension RuleMatch: CustomStringConvertible {
    /// The conditions as `--check-config` lists them: `left edge, 1 finger, in firefox`; `any gesture` for none.
    public var description: String {
        var parts: [String] = []
        if let edge { parts.append("\(edge.rawValue) edge") }
        if let swipe { parts.append("swipe \(swipe.rawValue)") }
        if let fingers {
            let n = fingers.lowerBound == fingers.upperBound ? "\(fingers.lowerBound)" : "\(fingers.lowerBound) to \(fingers.upperBound)"
            parts.append("\(n) finger\(fingers == 1...1 ? "" : "s")")
        }
        if let device { parts.append("on a \(device.rawValue)") }
        if let output { parts.append("output \(output)") }
        if let container { parts.append("container \(container)") }
        if let operation { parts.append("operation \(operation)") }
        if let from { parts.append("from \(from)") }
        if let to { parts.append("to \(to)") }
        if let apps { parts.append("in \(apps.joined(separator: " or "))") }
        if let desktop { parts.append("on \(desktop.rawValue)") }
        return parts.isEmpty ? "any gesture" : parts.joined(separator: ", ")
    }
}

/// One rule of `session.toml`: what it matches, when it fires, and what it does.
public struct Rule: Hashable, Sendable, CustomStringConvertible {
    /// `name = "..."`, else `#3` (its place in the file).
    public var name: String
    /// Where it was written: `session.toml:14`, or `built-in` for a default.
    public var place: String
    public var match: RuleMatch
    public var phase: RulePhase
    /// For `changed`: fire each time the percent crosses a multiple of this fraction (0.1: every 10 %).
    public var step: Double?
    public var effect: Effect

    public init(name: String, place: String, match: RuleMatch, phase: RulePhase = .completed, step: Double? = nil, effect: Effect) {
        self.name = name
        self.place = place
        self.match = match
        self.phase = phase
        self.step = step
        self.effect = effect
    }

    /// `rule 'back' (session.toml:14)`: how every log line about it names it.
    public var description: String { "rule '\(name)' (\(place))" }

    /// The place of every built-in rule.
    public static let builtInPlace = "built-in"

    /// Whether it is one of the built-in rules rather than a file's.
    public var isBuiltIn: Bool { place == Self.builtInPlace }

    /// Whether it can fire on `desktop`: it names none, or that one.
    public func applies(on desktop: Desktop?) -> Bool {
        match.desktop == nil || match.desktop == desktop
    }

    /// `left edge, 1 finger; on completed -> key alt+Left`: what it matches, when, and what it does.
    public var conditionsAndEffect: String {
        "\(match); on \(phase.rawValue)\(step.map { " every \($0)" } ?? "") -> \(effect)"
    }
}

/// The rules in force: the file's own, in its order, then the built-in ones, unless the file says
/// `defaults = false`. For each transition and phase the first matching rule fires, so a rule of the file's wins over
/// a built-in one for the same gesture and phase (a left-edge rule of yours replaces the built-in "back" key), while
/// a built-in rule still fires on a phase or a gesture the file's rules leave alone.
public struct RuleSet: Hashable, Sendable {
    /// Every rule, in the order they are tried: ``fileRules``, then ``builtIn``.
    public let rules: [Rule]
    /// The file's own rules.
    public let fileRules: [Rule]
    /// The built-in rules in force: ``builtInRules``, or none when the file says `defaults = false`. Each may name
    /// the one desktop it is for (`compositor`); the others' are kept and simply never match.
    public let builtIn: [Rule]
    /// The file the rules were read from, or `nil` when there was none (the built-in rules alone).
    public let file: String?
    /// Whether the built-in rules apply (the file says no `defaults = false`).
    public let usesDefaults: Bool
    /// The file's `[overlay]` table (OverlaySettings.swift).
    public var overlay: OverlaySettings

    /// `fileRules` read from `file`, then `builtIn` unless `defaults` is `false` (the tests give built-in rules of
    /// their own).
    public init(
        fileRules: [Rule], file: String?, defaults: Bool = true, builtIn: [Rule] = RuleSet.builtInRules, overlay: OverlaySettings = .defaults
    ) {
        self.fileRules = fileRules
        self.builtIn = defaults ? builtIn : []
        self.rules = fileRules + self.builtIn
        self.file = file
        self.usesDefaults = defaults
        self.overlay = overlay
    }

    /// The rules that can fire on `desktop`, in order: every rule of the file's (those for another desktop too, so
    /// that the session can say why they never fire), and the built-in ones for this desktop or for any.
    public func rules(on desktop: Desktop?) -> [Rule] {
        fileRules + builtIn.filter { $0.applies(on: desktop) }
    }

    /// `1 from ~/.config/edgeswipe/session.toml, then 3 built-in`: what the start-up line and a reload say is in
    /// force on `desktop`.
    public func summary(on desktop: Desktop?) -> String {
        let kept = builtIn.filter { $0.applies(on: desktop) }.count
        guard let file else { return "\(kept) built-in" }
        let own = "\(fileRules.count) from \(file)"
        return usesDefaults ? "\(own), then \(kept) built-in" : "\(own), no built-in (defaults = false)"
    }

    /// Whether any rule sends keys (the virtual keyboard is set up only then).
    public var needsKeyboard: Bool { rules.contains { if case .key = $0.effect { true } else { false } } }

    /// What works with no file at all, and after a file's own rules unless it says `defaults = false`: on sway,
    /// Hyprland and niri a completed 3-finger swipe left or right goes to the next or previous workspace of that
    /// output, and (where the virtual keyboard exists) a completed 1-finger left-edge swipe sends the "back" key.
    /// `config/session.toml` shows them as a file would write them. GNOME and KDE Plasma have their own instead
    /// (``builtInRules(for:)``).
    public static let builtInRules: [Rule] = [
        Rule(
            name: "next workspace", place: Rule.builtInPlace, match: RuleMatch(swipe: .left, fingers: 3...3),
            effect: .workspace(.next)),
        Rule(
            name: "previous workspace", place: Rule.builtInPlace, match: RuleMatch(swipe: .right, fingers: 3...3),
            effect: .workspace(.previous)),
        Rule(name: "back", place: Rule.builtInPlace, match: RuleMatch(edge: .left, fingers: 1...1), effect: .key(backChord)),
    ]

    /// The rules in force with no file: the built-in ones alone.
    public static let defaults = RuleSet(fileRules: [], file: nil)

    /// The built-in rules on `desktop`: GNOME's (``gnomeRules``) and KDE Plasma's (``plasmaRules``, PlasmaDefaults.swift)
    /// own, the general ones (``builtInRules``) elsewhere.
    public static func builtInRules(for desktop: Desktop?) -> [Rule] {
        switch desktop {
        case .gnome?: gnomeRules
        case .kde?: plasmaRules
        case .sway?, .i3?, .hyprland?, .niri?, .phosh?, nil: builtInRules
        }
    }

    /// What works with no file at all on `desktop`: its built-in rules alone.
    public static func defaults(for desktop: Desktop?) -> RuleSet { RuleSet(fileRules: [], file: nil, builtIn: builtInRules(for: desktop)) }

    /// These rules with `desktop`'s built-in ones after the file's (the parser reads a file without knowing the desktop).
    public func withBuiltIn(for desktop: Desktop?) -> RuleSet {
        RuleSet(fileRules: fileRules, file: file, defaults: usesDefaults, builtIn: Self.builtInRules(for: desktop), overlay: overlay)
    }

    /// GNOME's built-in rules bind only what GNOME itself lacks, and claim none of its gestures: its 3-finger swipes
    /// stay its own. A 1-finger swipe down from the top edge of a touchscreen opens the overview with the finger (live,
    /// through EdgeSwipe's extension): GNOME 40-47 have no edge swipe to the overview (GNOME's bottom edge raises the
    /// on-screen keyboard, all modes but the lock screen; its top edge only takes a fullscreen window out of
    /// fullscreen, where the overview is as welcome), and the left edge sends the back key (`alt+Left`) through the
    /// extension's keys.
    public static let gnomeRules: [Rule] = [
        Rule(
            name: "overview", place: Rule.builtInPlace, match: RuleMatch(edge: .top, fingers: 1...1, device: .touchscreen),
            effect: .gnomeOverview(.show)),
        Rule(name: "back", place: Rule.builtInPlace, match: RuleMatch(edge: .left, fingers: 1...1), effect: .key(backChord)),
    ]

    static let backChord: KeyChord = {
        do { return try KeyChord(parsing: "alt+Left") } catch { fatalError("alt+Left is a key chord: \(error)") }
    }()
}

/// Reads `session.toml`: the syntax through the TOML reader the daemon's configuration uses too (EdgeSwipeTOML), the
/// meaning here, every error naming the file, the line and the rule.
public enum SessionRulesParser {
    /// The longest a command may be given to run.
    public static let maxTimeout = Duration.seconds(3600)
    /// A command's timeout when its rule gives none.
    public static let defaultTimeout = Duration.seconds(10)
    /// At most this many rules (a file is read at start-up and on SIGHUP; matching walks them per message).
    public static let maxRules = 256

    /// Reads and parses the file at `path`.
    public static func load(path: String) throws(ConfigError) -> RuleSet {
        try parse(ConfigFile.readText(path), file: path)
    }

    /// Parses `text`; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> RuleSet {
        let root = try ConfigFile.readTOML(text, file: file)
        let top = Section(table: root, path: "", file: file, line: nil)
        try top.only(["version", "defaults", "rule", "overlay"])
        if let version = try top.int("version", default: nil), version != 1 {
            throw top.error("version", "unsupported session.toml version \(version); this edgeswipe-session reads version 1")
        }
        let defaults = try top.bool("defaults", default: true) ?? true
        var rules: [Rule] = []
        for (i, section) in try top.tables("rule", limit: maxRules).enumerated() {
            rules.append(try rule(section, index: i))
        }
        return RuleSet(fileRules: rules, file: file, defaults: defaults, overlay: try OverlaySettings.parse(top.section("overlay")))
    }

    static let matchKeys = ["edge", "swipe", "fingers", "device", "output", "container", "operation", "from", "to", "app", "compositor"]

    static func rule(_ s: Section, index: Int) throws(ConfigError) -> Rule {
        try s.only(["name", "on", "step", "timeout_s"] + matchKeys + Effect.keys)
        let name = try s.string("name", default: nil, nonEmpty: true) ?? "#\(index + 1)"
        func fail(_ key: String, _ message: String) -> ConfigError { s.error(key, "rule '\(name)': \(message)") }
        let place = "\(s.file):\(s.line ?? 0)"

        var match = RuleMatch()
        match.edge = try s.choice("edge", default: nil, Edge.allCases.map { ($0.rawValue, $0) })
        match.swipe = try s.choice("swipe", default: nil, SwipeDirection.allCases.map { ($0.rawValue, $0) })
        if match.edge != nil && match.swipe != nil {
            throw fail("swipe", "a rule matches an edge gesture or a multi-finger swipe, not both ('edge' and 'swipe')")
        }
        match.fingers = try fingers(s, name: name)
        match.device = try s.choice("device", default: nil, DeviceKind.allCases.map { ($0.rawValue, $0) })
        match.output = try s.string("output", default: nil, nonEmpty: true)
        match.container = try s.string("container", default: nil, nonEmpty: true)
        match.operation = try s.string("operation", default: nil, nonEmpty: true)
        match.from = try s.string("from", default: nil, nonEmpty: true)
        match.to = try s.string("to", default: nil, nonEmpty: true)
        match.apps = try apps(s, name: name)
        match.desktop = try s.choice("compositor", default: nil, Desktop.allCases.map { ($0.rawValue, $0) })

        let phase = try s.choice("on", default: .completed, RulePhase.allCases.map { ($0.rawValue, $0) }) ?? .completed
        var step: Double? = nil
        if s.value("step") != nil {
            guard phase == .changed else { throw fail("step", "'step' is for rules with on = \"changed\" (this one fires on \(phase.rawValue))") }
            step = try s.double("step", default: 0.1, in: 0.01...1)
        } else if phase == .changed {
            step = 0.1
        }

        let given = Effect.keys.filter { s.value($0) != nil }
        guard given.count == 1, let key = given.first else {
            if given.isEmpty {
                throw ConfigError(file: s.file, line: s.line, message: "rule '\(name)' does nothing: give it one effect (\(Effect.keys.joined(separator: ", ")))")
            }
            throw fail(given[1], "a rule has one effect; this one gives \(given.map { "'\($0)'" }.joined(separator: " and ")) (write two rules)")
        }
        if s.value("timeout_s") != nil && key != "command" {
            throw fail("timeout_s", "'timeout_s' is for command rules")
        }
        let effect = try self.effect(key, s, name: name)
        if let desktop = match.desktop { try check(effect, runsOn: desktop, s, key: key, name: name) }
        return Rule(name: name, place: place, match: match, phase: phase, step: step, effect: effect)
    }

    static func fingers(_ s: Section, name: String) throws(ConfigError) -> ClosedRange<Int>? {
        guard let v = s.value("fingers") else { return nil }
        let problem = "rule '\(name)': 'fingers' must be a count from 1 to 10 or [min, max] (got \(v))"
        if let n = v.int {
            guard (1...10).contains(n) else { throw s.error("fingers", problem) }
            return n...n
        }
        guard let a = v.array, a.count == 2, let lo = a[0].int, let hi = a[1].int, 1 <= lo, lo <= hi, hi <= 10 else {
            throw s.error("fingers", problem)
        }
        return lo...hi
    }

    static func apps(_ s: Section, name: String) throws(ConfigError) -> [String]? {
        guard let v = s.value("app") else { return nil }
        let list: [String]
        if let one = v.string { list = [one] } else if let many = try? s.strings("app") { list = many } else {
            throw s.error("app", "rule '\(name)': 'app' must be an application id or a list of them (got \(v))")
        }
        guard !list.isEmpty, !list.contains(where: \.isEmpty) else {
            throw s.error("app", "rule '\(name)': 'app' must name at least one application, none empty")
        }
        return list
    }

    static func effect(_ key: String, _ s: Section, name: String) throws(ConfigError) -> Effect {
        func fail(_ message: String) -> ConfigError { s.error(key, "rule '\(name)': \(message)") }
        func text() throws(ConfigError) -> String {
            guard let t = try s.string(key, default: nil), !t.isEmpty else { throw fail("'\(key)' must not be empty") }
            guard !t.contains("\n"), !t.contains("\0") else { throw fail("'\(key)' must be one line") }
            return t
        }
        switch key {
        case "workspace":
            guard let step = try s.choice(key, default: nil, WorkspaceStep.allCases.map { ($0.rawValue, $0) }) else { throw fail("'workspace' is missing") }
            return .workspace(step)
        case "sway":
            return .sway(try text())
        case "hyprland":
            return .hyprland(try text())
        case "niri":
            return .niri(try niriAction(try text(), fail: fail))
        case "key":
            let chord = try text()
            do throws(KeyChordError) { return .key(try KeyChord(parsing: chord)) } catch { throw fail(error.description) }
        case "command":
            guard let argv = try s.strings(key) else { throw fail("'command' is missing") }
            guard let program = argv.first, !program.isEmpty else {
                throw fail("'command' must be a list of the program and its arguments, the program first (got [])")
            }
            if argv.contains(where: { $0.contains("\0") }) { throw fail("'command' arguments cannot hold a NUL byte") }
            let seconds = try s.double("timeout_s", default: 10, in: 0.1...3600)
            return .command(argv: argv, timeout: .milliseconds(Int64((seconds * 1000).rounded())))
        case "kwin_shortcut":
            return .kwinShortcut(try text())
        case "gnome_overview":
            guard let change = try s.choice(key, default: nil, OverviewChange.allCases.map { ($0.rawValue, $0) }) else { throw fail("'gnome_overview' is missing") }
            return .gnomeOverview(change)
        default:
            throw fail("unknown effect '\(key)'")
        }
    }

    /// `FocusWorkspaceDown` or `{"FocusWorkspaceDown":{}}`: one action, as niri's JSON names it.
    static func niriAction(_ text: String, fail: (String) -> ConfigError) throws(ConfigError) -> String {
        if text.allSatisfy({ $0.isLetter || $0.isNumber }), text.first?.isUppercase == true { return "{\"\(text)\":{}}" }
        let value: JSONValue
        do { value = try JSONValue.parse(Array(text.utf8)) } catch {
            throw fail("'niri' must be an action name (FocusWorkspaceDown) or one action as JSON ({\"FocusMonitor\":{\"output\":\"eDP-1\"}}): \(error)")
        }
        guard case .object(let members) = value, members.count == 1 else {
            throw fail("'niri' must be one action as a JSON object with one key, its name (got \(value.kindName))")
        }
        return text
    }

    /// A rule for one desktop whose effect needs another is a mistake worth saying at load time.
    static func check(_ effect: Effect, runsOn desktop: Desktop, _ s: Section, key: String, name: String) throws(ConfigError) {
        let needs: [Desktop]? =
            switch effect {
            case .sway: [.sway, .i3]
            case .hyprland: [.hyprland]
            case .niri: [.niri]
            case .workspace: [.sway, .i3, .hyprland, .niri, .gnome]
            case .kwinShortcut: [.kde]
            case .gnomeOverview: [.gnome]
            case .key, .command: nil
            }
        if let needs, !needs.contains(desktop) {
            throw s.error(key, "rule '\(name)': '\(key)' cannot run on compositor = \"\(desktop.rawValue)\" (it needs \(needs.map(\.rawValue).joined(separator: " or ")))")
        }
    }
}
