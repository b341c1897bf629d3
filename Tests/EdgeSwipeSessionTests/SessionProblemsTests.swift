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
            "[[rule]]\nswipe = \"left\"\nsway = \"workspace next\"\n[[rule]]\nedge = \"left\"\nkey = \"alt+Left\"\n[[rule]]\nedge = \"top\"\ncommand = [\"true\"]\n",
            file: "s.toml")
        let problems = Session.problems(of: set, desktop: .gnome, compositor: nil, keyboard: WaylandError(WaylandThread.noKeyProtocol))
        #expect(problems == [
            "rule '#1' (s.toml:1): needs sway or i3 ($SWAYSOCK is not set)",
            "rule '#2' (s.toml:4): keys cannot be sent: \(WaylandThread.noKeyProtocol)",
        ])
    }
}
