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
        let problems = Session.problems(of: set, desktop: .gnome, compositor: nil, keyboard: WaylandError(WaylandThread.noKeyProtocol))
        #expect(problems == [
            "rule '#1' (s.toml:2): needs sway or i3 ($SWAYSOCK is not set)",
            "rule '#2' (s.toml:5): keys cannot be sent: \(WaylandThread.noKeyProtocol)",
        ])
    }

    @Test("the built-in rules that cannot run here are said too, after the file's, each once")
    func builtInProblems() throws {
        let set = try SessionRulesParser.parse("[[rule]]\nedge = \"top\"\ncommand = [\"true\"]\n", file: "s.toml")
        let problems = Session.problems(of: set, desktop: .gnome, compositor: nil, keyboard: WaylandError(WaylandThread.noKeyProtocol))
        #expect(problems == [
            "rule 'next workspace' (built-in): workspace rules need sway, i3, Hyprland or niri (this session is gnome)",
            "rule 'previous workspace' (built-in): workspace rules need sway, i3, Hyprland or niri (this session is gnome)",
            "rule 'back' (built-in): keys cannot be sent: \(WaylandThread.noKeyProtocol)",
        ])
        #expect(Session.problems(of: set, desktop: .sway, compositor: nil, keyboard: nil).isEmpty)
    }
}
