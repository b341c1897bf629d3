import EdgeSwipeTOML
import Foundation
import Testing

@testable import EdgeSwipeSessionModel

@Suite("session.toml: rules and their errors")
struct SessionRulesTests {
    /// Bad input, each with the line and message the user reads.
    struct Bad: CustomStringConvertible, Sendable {
        var toml: String
        var line: Int?
        var message: String
        var description: String { message }
    }

    static let badInputs: [Bad] = [
        Bad(toml: "[[rule]]\nedge = \"left\"\nteleport = \"mars\"\n", line: 3,
            message: "unknown key 'teleport' in [rule]; expected one of: name, on, step, timeout_s, edge, swipe, fingers, device, output, container, operation, from, to, app, compositor, workspace, sway, hyprland, niri, key, command, kwin_shortcut, gnome_overview"),
        Bad(toml: "[[rule]]\nedge = \"left\"\nfinger = 1\nkey = \"alt+Left\"\n", line: 3,
            message: "unknown key 'finger' in [rule]; expected one of: name, on, step, timeout_s, edge, swipe, fingers, device, output, container, operation, from, to, app, compositor, workspace, sway, hyprland, niri, key, command, kwin_shortcut, gnome_overview"),
        Bad(toml: "[[rule]]\nname = \"x\"\nedge = \"left\"\n", line: 1,
            message: "rule 'x' does nothing: give it one effect (workspace, sway, hyprland, niri, key, command, kwin_shortcut, gnome_overview)"),
        Bad(toml: "[[rule]]\nedge = \"left\"\nkey = \"alt+Left\"\ncommand = [\"true\"]\n", line: 4,
            message: "rule '#1': a rule has one effect; this one gives 'key' and 'command' (write two rules)"),
        Bad(toml: "[[rule]]\nedge = \"left\"\ncompositor = \"weston\"\nkey = \"alt+Left\"\n", line: 3,
            message: "'compositor' must be one of \"sway\", \"i3\", \"hyprland\", \"niri\", \"kde\", \"gnome\", \"phosh\" (got \"weston\")"),
        Bad(toml: "[[rule]]\nswipe = \"left\"\ncompositor = \"gnome\"\nsway = \"workspace next\"\n", line: 4,
            message: "rule '#1': 'sway' cannot run on compositor = \"gnome\" (it needs sway or i3)"),
        Bad(toml: "[[rule]]\nedge = \"middle\"\nkey = \"a\"\n", line: 2,
            message: "'edge' must be one of \"left\", \"right\", \"top\", \"bottom\" (got \"middle\")"),
        Bad(toml: "[[rule]]\nedge = \"left\"\nswipe = \"left\"\nkey = \"a\"\n", line: 3,
            message: "rule '#1': a rule matches an edge gesture or a multi-finger swipe, not both ('edge' and 'swipe')"),
        Bad(toml: "[[rule]]\nswipe = \"left\"\nfingers = 11\nworkspace = \"next\"\n", line: 3,
            message: "rule '#1': 'fingers' must be a count from 1 to 10 or [min, max] (got 11)"),
        Bad(toml: "[[rule]]\nswipe = \"left\"\nfingers = [4, 3]\nworkspace = \"next\"\n", line: 3,
            message: "rule '#1': 'fingers' must be a count from 1 to 10 or [min, max] (got [4, 3])"),
        Bad(toml: "[[rule]]\nedge = \"left\"\non = \"ended\"\nkey = \"a\"\n", line: 3,
            message: "'on' must be one of \"began\", \"changed\", \"completed\", \"cancelled\" (got \"ended\")"),
        Bad(toml: "[[rule]]\nedge = \"left\"\nstep = 0.2\nkey = \"a\"\n", line: 3,
            message: "rule '#1': 'step' is for rules with on = \"changed\" (this one fires on completed)"),
        Bad(toml: "[[rule]]\nedge = \"left\"\non = \"changed\"\nstep = 0\ncommand = [\"true\"]\n", line: 4,
            message: "'step' must be between 0.01 and 1 (got 0)"),
        Bad(toml: "[[rule]]\nedge = \"left\"\nkey = \"hyper+Left\"\n", line: 3,
            message: "rule '#1': 'hyper' in 'hyper+Left' is not a modifier; expected shift, ctrl, alt, super, altgr, mod2 or mod3"),
        Bad(toml: "[[rule]]\nedge = \"left\"\nkey = \"alt+NoSuchKey\"\n", line: 3,
            message: "rule '#1': 'NoSuchKey' in 'alt+NoSuchKey' is not a key name (XKB keysym names: Left, Return, F5, XF86AudioRaiseVolume, a, ...)"),
        Bad(toml: "[[rule]]\nedge = \"left\"\nkey = \"alt+\"\n", line: 3,
            message: "rule '#1': 'alt+' is not a key chord: write modifiers and a key joined by '+' (alt+Left)"),
        Bad(toml: "[[rule]]\nedge = \"left\"\ncommand = []\n", line: 3,
            message: "rule '#1': 'command' must be a list of the program and its arguments, the program first (got [])"),
        Bad(toml: "[[rule]]\nedge = \"left\"\ncommand = \"notify-send hi\"\n", line: 3,
            message: "'command' must be an array (got \"notify-send hi\")"),
        Bad(toml: "[[rule]]\nedge = \"left\"\ncommand = [\"sleep\", \"9\"]\ntimeout_s = 0\n", line: 4,
            message: "'timeout_s' must be between 0.1 and 3600 (got 0)"),
        Bad(toml: "[[rule]]\nedge = \"left\"\nkey = \"a\"\ntimeout_s = 3\n", line: 4,
            message: "rule '#1': 'timeout_s' is for command rules"),
        Bad(toml: "[[rule]]\nswipe = \"up\"\nniri = \"{\\\"A\\\":1,\\\"B\\\":2}\"\n", line: 3,
            message: "rule '#1': 'niri' must be one action as a JSON object with one key, its name (got an object)"),
        Bad(toml: "[[rule]]\nswipe = \"up\"\nniri = \"focus down\"\n", line: 3,
            message: "rule '#1': 'niri' must be an action name (FocusWorkspaceDown) or one action as JSON ({\"FocusMonitor\":{\"output\":\"eDP-1\"}}): byte 0: invalid literal, expected 'false'"),
        Bad(toml: "[[rule]]\nswipe = \"up\"\nsway = \"\"\n", line: 3, message: "rule '#1': 'sway' must not be empty"),
        Bad(toml: "[[rule]]\nswipe = \"up\"\nworkspace = \"sideways\"\n", line: 3,
            message: "'workspace' must be one of \"next\", \"previous\" (got \"sideways\")"),
        Bad(toml: "[[rule]]\nedge = \"top\"\napp = []\nkey = \"a\"\n", line: 3,
            message: "rule '#1': 'app' must name at least one application, none empty"),
        Bad(toml: "[[rule]]\nedge = \"top\"\ngnome_overview = \"open\"\n", line: 3,
            message: "'gnome_overview' must be one of \"show\", \"hide\", \"toggle\" (got \"open\")"),
        Bad(toml: "version = 2\n", line: 1, message: "unsupported session.toml version 2; this edgeswipe-session reads version 1"),
        Bad(toml: "version = 1\ndefaults = \"no\"\n", line: 2, message: "'defaults' must be true or false (got \"no\")"),
        Bad(toml: "default = false\n", line: 1, message: "unknown key 'default' at the top level; expected one of: version, defaults, rule, overlay"),
        Bad(toml: "rule = 3\n", line: 1, message: "'rule' must be an array (got 3)"),
        Bad(toml: "[[rule]]\nedge = \"left\"\nkey = \"a\n", line: 3, message: "TOML syntax: a basic string ends at its closing '\"' on the same line"),
    ]

    @Test("every bad rule is refused at its line, naming the rule and the cause", arguments: badInputs)
    func refused(_ bad: Bad) {
        #expect(throws: ConfigError.self) { try SessionRulesParser.parse(bad.toml, file: "session.toml") }
        do {
            _ = try SessionRulesParser.parse(bad.toml, file: "session.toml")
        } catch {
            #expect(error.line == bad.line, "\(error)")
            if bad.message.hasPrefix("TOML syntax") {
                #expect(error.message.hasPrefix("TOML syntax"), "\(error)")
            } else {
                #expect(error.message == bad.message)
            }
        }
    }

    @Test("the common case is one short rule; every key reads as documented")
    func good() throws {
        let set = try SessionRulesParser.parse(
            """
            version = 1

            [[rule]]
            swipe = "left"
            fingers = 3
            workspace = "next"

            [[rule]]
            name = "firefox back"
            edge = "left"
            fingers = [1, 2]
            device = "touchscreen"
            output = "DSI-1"
            app = ["firefox", "org.mozilla.firefox"]
            compositor = "sway"
            key = "ctrl+bracketleft"

            [[rule]]
            name = "volume"
            edge = "right"
            on = "changed"
            step = 0.05
            command = ["pactl", "set-sink-volume", "@DEFAULT_SINK@", "+5%"]
            timeout_s = 2.5

            [[rule]]
            container = "overlay"
            operation = "present"
            to = "notifications"
            on = "began"
            niri = "FocusWorkspaceDown"

            [[rule]]
            edge = "top"
            on = "cancelled"
            kwin_shortcut = "Overview"
            """, file: "s.toml")
        #expect(set.fileRules.count == 5 && set.usesDefaults)
        #expect(set.rules == set.fileRules + RuleSet.builtInRules, "the file's rules, then the built-in ones")
        #expect(set.rules[0] == Rule(name: "#1", place: "s.toml:3", match: RuleMatch(swipe: .left, fingers: 3...3), effect: .workspace(.next)))
        let firefox = set.rules[1]
        #expect(firefox.name == "firefox back")
        #expect(firefox.match == RuleMatch(edge: .left, fingers: 1...2, device: .touchscreen, output: "DSI-1", apps: ["firefox", "org.mozilla.firefox"], desktop: .sway))
        #expect(firefox.effect == .key(try KeyChord(parsing: "ctrl+bracketleft")))
        #expect(set.rules[2].phase == .changed && set.rules[2].step == 0.05)
        #expect(set.rules[2].effect == .command(argv: ["pactl", "set-sink-volume", "@DEFAULT_SINK@", "+5%"], timeout: .milliseconds(2500)))
        #expect(set.rules[3].match == RuleMatch(container: "overlay", operation: "present", to: "notifications"))
        #expect(set.rules[3].effect == .niri("{\"FocusWorkspaceDown\":{}}"))
        #expect(set.rules[4].phase == .cancelled && set.rules[4].effect == .kwinShortcut("Overview"))
        #expect(set.needsKeyboard)
    }

    @Test("a changed rule without a step fires every 10 %; a command without a timeout gets 10 s")
    func implicitValues() throws {
        let set = try SessionRulesParser.parse("[[rule]]\nedge = \"right\"\non = \"changed\"\ncommand = [\"true\"]\n", file: "s.toml")
        #expect(set.rules[0].step == 0.1)
        #expect(set.rules[0].effect == .command(argv: ["true"], timeout: .seconds(10)))
    }

    @Test("key chords: aliases, canonical names, case-insensitive keysyms")
    func chords() throws {
        #expect(try KeyChord(parsing: "Alt+left").description == "alt+Left")
        #expect(try KeyChord(parsing: "control+logo+Tab").description == "ctrl+super+Tab")
        #expect(try KeyChord(parsing: "XF86AudioRaiseVolume").modifiers.isEmpty)
        #expect(throws: KeyChordError.self) { try KeyChord(parsing: "alt+alt+Left") }
    }

    @Test("the built-in rules apply after the file's own, unless it says defaults = false; what the start-up line says", arguments: [
        ("[[rule]]\nedge = \"right\"\nkey = \"ctrl+Tab\"\n", true, "1 from s.toml, then 3 built-in"),
        ("defaults = true\n[[rule]]\nedge = \"right\"\nkey = \"ctrl+Tab\"\n", true, "1 from s.toml, then 3 built-in"),
        ("defaults = false\n[[rule]]\nedge = \"right\"\nkey = \"ctrl+Tab\"\n", false, "1 from s.toml, no built-in (defaults = false)"),
        ("version = 1\n", true, "0 from s.toml, then 3 built-in"),
        ("defaults = false\n", false, "0 from s.toml, no built-in (defaults = false)"),
    ])
    func defaults(_ toml: String, _ kept: Bool, _ summary: String) throws {
        let set = try SessionRulesParser.parse(toml, file: "s.toml")
        #expect(set.usesDefaults == kept)
        #expect(set.builtIn == (kept ? RuleSet.builtInRules : []))
        #expect(Array(set.rules.prefix(set.fileRules.count)) == set.fileRules, "the file's rules come first")
        #expect(set.summary(on: .sway) == summary)
        #expect(RuleSet.defaults.summary(on: .sway) == "3 built-in", "with no file")
    }

    @Test("a built-in rule may be for one desktop: it counts, and is listed, only there")
    func builtInPerDesktop() throws {
        let gnomeOnly = Rule(name: "overview", place: Rule.builtInPlace, match: RuleMatch(swipe: .up, fingers: 3...3, desktop: .gnome), effect: .gnomeOverview(.toggle))
        let anywhere = try #require(RuleSet.builtInRules.first { $0.name == "back" })
        let set = RuleSet(fileRules: [], file: "s.toml", builtIn: [anywhere, gnomeOnly])
        #expect(set.summary(on: .gnome) == "0 from s.toml, then 2 built-in")
        #expect(set.summary(on: .sway) == "0 from s.toml, then 1 built-in")
        #expect(set.rules(on: .sway) == [anywhere] && set.rules(on: .gnome) == [anywhere, gnomeOnly])
        #expect(set.rules == [anywhere, gnomeOnly], "kept whatever the desktop: the matcher passes over a rule for another one")
    }

    @Test("what --check-config shows of each rule: its conditions, its phase and its effect", arguments: [
        ("[[rule]]\nedge = \"left\"\nkey = \"alt+Left\"\n", "left edge; on completed -> key alt+Left"),
        ("[[rule]]\nswipe = \"up\"\nfingers = [3, 4]\ndevice = \"touchpad\"\nworkspace = \"next\"\n", "swipe up, 3 to 4 fingers, on a touchpad; on completed -> workspace next"),
        ("[[rule]]\nedge = \"right\"\nfingers = 1\napp = [\"firefox\", \"foot\"]\ncompositor = \"sway\"\non = \"changed\"\nstep = 0.2\ncommand = [\"true\"]\n",
         "right edge, 1 finger, in firefox or foot, on sway; on changed every 0.2 -> command \"true\""),
        ("[[rule]]\noutput = \"DSI-1\"\ncontainer = \"overlay\"\noperation = \"present\"\nfrom = \"shell\"\nto = \"notifications\"\non = \"began\"\nkey = \"ctrl+d\"\n",
         "output DSI-1, container overlay, operation present, from shell, to notifications; on began -> key ctrl+d"),
        ("[[rule]]\non = \"cancelled\"\ncommand = [\"true\"]\n", "any gesture; on cancelled -> command \"true\""),
    ])
    func conditions(_ toml: String, _ shown: String) throws {
        let rule = try #require(try SessionRulesParser.parse(toml, file: "s.toml").fileRules.first)
        #expect(rule.conditionsAndEffect == shown)
    }

    @Test("what --dry-run logs in place of each effect", arguments: [
        (Effect.workspace(.next), "would switch to the next workspace"),
        (.workspace(.previous), "would switch to the previous workspace"),
        (.key(RuleSet.backChord), "would send alt+Left"),
        (.command(argv: ["notify-send", "it's \"done\""], timeout: .seconds(1)), "would run [\"notify-send\", \"it's \\\"done\\\"\"]"),
        (.sway("workspace 5"), "would send sway \"workspace 5\""),
        (.hyprland("dispatch workspace m+1"), "would send Hyprland \"dispatch workspace m+1\""),
        (.niri("{\"FocusWorkspaceDown\":{}}"), "would send niri {\"FocusWorkspaceDown\":{}}"),
        (.kwinShortcut("Overview"), "would invoke KWin's shortcut \"Overview\""),
        (.gnomeOverview(.toggle), "would toggle GNOME's overview"),
    ])
    func wouldDo(_ effect: Effect, _ said: String) {
        #expect(effect.wouldDo == said)
    }

    @Test("the shipped example file has no rule of its own, and shows the built-in rules as a file would write them")
    func exampleShowsTheDefaults() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/session.toml").path
        let shipped = try SessionRulesParser.load(path: file)
        #expect(shipped.fileRules.isEmpty && shipped.usesDefaults, "copied as it is, it changes nothing")
        // The commented block under "The built-in rules", uncommented, is the built-in list.
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("# --- The built-in rules") })
        let block = lines[(start + 1)...].prefix { !$0.hasPrefix("# ---") }
            .filter { $0.hasPrefix("# [[rule]]") || $0.firstMatch(of: #/^# [a-z_]+ = /#) != nil }
            .map { $0.dropFirst(2) }.joined(separator: "\n")
        let written = try SessionRulesParser.parse("defaults = false\n" + block, file: "block").fileRules
        let builtIn = RuleSet.builtInRules
        #expect(written.map(\.match) == builtIn.map(\.match))
        #expect(written.map(\.effect) == builtIn.map(\.effect))
        #expect(written.map(\.phase) == builtIn.map(\.phase))
        #expect(written.map(\.name) == builtIn.map(\.name))
    }

    @Test("the desktop comes from the session's variables")
    func desktop() {
        #expect(Desktop.detect(environment: ["SWAYSOCK": "/run/user/1000/sway-ipc.sock"]) == .sway)
        #expect(Desktop.detect(environment: ["HYPRLAND_INSTANCE_SIGNATURE": "abc"]) == .hyprland)
        #expect(Desktop.detect(environment: ["NIRI_SOCKET": "/run/user/1000/niri.sock"]) == .niri)
        #expect(Desktop.detect(environment: ["XDG_CURRENT_DESKTOP": "KDE"]) == .kde)
        #expect(Desktop.detect(environment: ["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"]) == .gnome)
        #expect(Desktop.detect(environment: ["XDG_CURRENT_DESKTOP": "Phosh:GNOME"]) == .phosh)
        #expect(Desktop.detect(environment: ["SWAYSOCK": ""]) == nil)
    }
}
