import EdgeSwipeTOML
import Testing

@testable import EdgeSwipeSessionModel

/// `[overlay]` in session.toml: what it takes, and each mistake with its line.
@Suite("session.toml: [overlay]")
struct OverlaySettingsTests {
    @Test("the table's settings, and the defaults without it", arguments: [
        ("", OverlaySettings.defaults),
        ("[overlay]\n", OverlaySettings.defaults),
        ("[overlay]\nenabled = false\n", OverlaySettings(enabled: false)),
        ("[overlay]\noutput = \"all\"\n", OverlaySettings(outputs: .all)),
        ("[overlay]\noutput = \"DSI-1\"\n", OverlaySettings(outputs: .named("DSI-1"))),
        ("[overlay]\naccent = \"#FF8800\"\n", OverlaySettings(accent: OverlaySettings.RGB(red: 1, green: 0x88 / 255.0, blue: 0))),
        ("[overlay]\nenabled = true\noutput = \"auto\"\naccent = \"0a84ff\"\n", OverlaySettings.defaults),
    ])
    func good(_ toml: String, _ expected: OverlaySettings) throws {
        #expect(try SessionRulesParser.parse(toml, file: "session.toml").overlay == expected)
    }

    @Test("mistakes are refused with their line", arguments: [
        ("[overlay]\nenable = false\n", 2, "unknown key 'enable' in [overlay]; expected one of: enabled, output, accent"),
        ("[overlay]\nenabled = \"no\"\n", 2, "'enabled' must be true or false (got \"no\")"),
        ("[overlay]\noutput = \"\"\n", 2, "'output' must not be empty"),
        ("[overlay]\naccent = \"blue\"\n", 2, "'accent' must be a colour as #rrggbb (got \"blue\")"),
        ("overlay = true\n", 1, "'overlay' must be a table (got true)"),
    ])
    func bad(_ toml: String, _ line: Int, _ message: String) {
        do {
            _ = try SessionRulesParser.parse(toml, file: "session.toml")
            Issue.record("accepted: \(toml)")
        } catch {
            #expect(error.line == line && error.message == message, "\(error)")
        }
    }
}
