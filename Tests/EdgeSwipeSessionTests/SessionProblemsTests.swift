import EdgeSwipeSessionModel
import Testing

@testable import EdgeSwipeSession

/// What the composition says of rules it cannot carry out here; the rules themselves are the model's
/// (EdgeSwipeSessionModelTests).
@Suite("The session: what cannot run here")
struct SessionProblemsTests {
    @Test("what cannot run here is said per rule: a missing $SWAYSOCK, no virtual keyboard, D-Bus elsewhere")
    func problems() throws {
        let set = try SessionRulesParser.parse(
            "defaults = false\n[[rule]]\nswipe = \"left\"\nsway = \"workspace next\"\n[[rule]]\nedge = \"left\"\nkey = \"alt+Left\"\n[[rule]]\nedge = \"top\"\ncommand = [\"true\"]\n",
            file: "s.toml")
        let problems = Session.problems(of: set, desktop: .kde, compositor: nil, keyboard: WaylandError(WaylandThread.noKeyProtocol))
        #expect(problems == [
            "rule '#1' (s.toml:2): needs sway or i3 ($SWAYSOCK is not set)",
            "rule '#2' (s.toml:5): keys cannot be sent: \(WaylandThread.noKeyProtocol)",
        ])
        // On GNOME keys go through EdgeSwipe's extension, which is known to be there only later.
        #expect(Session.problems(of: set, desktop: .gnome, compositor: nil, keyboard: WaylandError(WaylandThread.noKeyProtocol)) == [
            "rule '#1' (s.toml:2): needs sway or i3 ($SWAYSOCK is not set)"
        ])
    }

    static let gnomeRules = """
        defaults = false
        [[rule]]
        swipe = "left"
        fingers = 3
        workspace = "next"
        [[rule]]
        edge = "top"
        gnome_overview = "show"
        [[rule]]
        edge = "left"
        key = "alt+Left"
        [[rule]]
        swipe = "right"
        on = "began"
        workspace = "previous"
        [[rule]]
        edge = "right"
        command = ["true"]

        """

    @Test("--check-config on GNOME: which rules are live, which fire at completion, which cannot run, with and without the extension",
          arguments: [
            (true, [
                "rule '#1' (s.toml:2): live: GNOME's workspace next animation follows the finger, and commits or goes back with the swipe",
                "rule '#2' (s.toml:6): live: GNOME's overview show animation follows the finger, and commits or goes back with the swipe",
                "rule '#3' (s.toml:9): on completed",
                "rule '#4' (s.toml:12): cannot run: on GNOME a workspace rule drives GNOME's animation, so it must be on = \"completed\"",
                "rule '#5' (s.toml:16): on completed",
            ]),
            (false, [
                "rule '#1' (s.toml:2): cannot run: workspaces on GNOME need EdgeSwipe's extension",
                "rule '#2' (s.toml:6): at completion (the overview is toggled over D-Bus; live with EdgeSwipe's extension)",
                "rule '#3' (s.toml:9): cannot run: keys on GNOME need EdgeSwipe's extension",
                "rule '#4' (s.toml:12): cannot run: on GNOME a workspace rule drives GNOME's animation, so it must be on = \"completed\"",
                "rule '#5' (s.toml:16): on completed",
            ]),
          ] as [(Bool, [String])])
    func gnomePlan(_ present: Bool, _ expected: [String]) throws {
        let rules = try SessionRulesParser.parse(Self.gnomeRules, file: "s.toml")
        #expect(Session.gnomePlan(of: rules.rules(on: .gnome), extensionPresent: present) == expected)
    }

    @Test("the built-in rules that cannot run here are said too, after the file's, each once")
    func builtInProblems() throws {
        let set = try SessionRulesParser.parse("[[rule]]\nedge = \"top\"\ncommand = [\"true\"]\n", file: "s.toml")
        // An unknown desktop keeps the general built-in rules (GNOME and Plasma have their own: RuleSet.builtInRules(for:)).
        let problems = Session.problems(of: set, desktop: nil, compositor: nil, keyboard: WaylandError(WaylandThread.noKeyProtocol))
        #expect(problems == [
            "rule 'next workspace' (built-in): workspace rules need sway, i3, Hyprland or niri (this session is an unknown desktop)",
            "rule 'previous workspace' (built-in): workspace rules need sway, i3, Hyprland or niri (this session is an unknown desktop)",
            "rule 'back' (built-in): keys cannot be sent: \(WaylandThread.noKeyProtocol)",
        ])
        // On GNOME the built-in workspace rules leave GNOME's own swipes alone, and keys go through the extension.
        #expect(Session.problems(of: set, desktop: .gnome, compositor: nil, keyboard: WaylandError(WaylandThread.noKeyProtocol)).isEmpty)
        #expect(Session.problems(of: set, desktop: .sway, compositor: nil, keyboard: nil).isEmpty)
    }
}
