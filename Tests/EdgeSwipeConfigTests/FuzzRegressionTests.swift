import Foundation
import Testing
@testable import EdgeSwipeConfig
import EdgeSwipeTOML

/// Inputs `scripts/fuzz.sh config` found, kept in Fuzz/Regressions/config. Each one crashed the process when TOMLKit
/// read the configuration: toml++ asserts (abort) on a table header that does not start with a key, and TOMLKit
/// stopped reading at a NUL byte, accepting the truncated file. Our reader makes each an error with its line and
/// column. `key-of-129-dotted-parts.toml` crashed only the harness: its differential check took our reader's
/// nesting bound (``TOMLReader/maxDepth``, which toml++ lacks) for a disagreement; the error is now marked
/// ``TOMLError/isBeyondLimit``. `byte-order-mark-then-bad-header.toml` aborted toml++ in the harness: its precheck
/// did not see a header right after a byte order mark, which toml++ skips. `float-past-binary64.toml` (fifth
/// session) was a disagreement in the reader itself: a calibration value `0.11…1e111…0` read as infinity, which
/// toml++ refuses; a float literal past binary64 is now refused where it stands. `date-t-without-time.toml`
/// `default-binding-on-wrong-kind.toml` (seventh session) was a finding in the reader: a file that made 'app' a
/// modal container, with no bindings of its own, kept the default left-edge 'pop' on it (the rendering round trip
/// refused what the reader had taken); that default is now left out with a warning (ConfigTests), and the file
/// reads and renders back the same.
/// `date-space-digit-not-time.toml` and `date-cut-short.toml` (seventh session) aborted toml++ in the harness:
/// text it takes for a date and is none (`0524-05-05ti5:k`, `0263-05-05 0,`, `0524-05-0=`: `parse_time()`,
/// `parse_value()` assert); the oracle's precheck now keeps such text from it, and our reader refuses it with its
/// place. `date-space-digit-vertical-tab.toml` (ninth session, CI's 30-second run) was the same with a vertical tab
/// ending the value: the precheck now ends a value where toml++ does (its whitespace); `date-letter-space-digit.toml`
/// (tenth session) the same with a letter in the date (`0524-05-0X`): the precheck now follows toml++'s scan of a
/// value's traits, where a letter counts only as a prefix or an exponent. `time-fraction-past-64-digits.toml`
/// was a known departure the harness did not know: toml++ refuses a time's fraction past 64 digits, TOML says to
/// truncate it (TOMLOracleTests); `long-float-digits-first.toml` and `long-float-fraction.toml` (tenth session) the
/// same for a float past toml++'s 127- and 128-character buffers. `no-bindings.toml` (tenth session) was a finding
/// in the rendering: `bindings = []` turns every binding off, but the effective configuration left the empty list
/// out, which reads back as the default bindings; it now says `bindings = []` (and `containers = []`).
@Suite("Configuration: fuzzing regressions")
struct ConfigFuzzRegressionTests {
    static let regressions = ConfigTests.packageRoot.appendingPathComponent("Fuzz/Regressions/config")

    /// The files the reader takes (their findings were in what the reader kept, or in the rendering).
    static let accepted: Set<String> = ["default-binding-on-wrong-kind.toml", "no-bindings.toml"]

    @Test("every saved fuzz input is rejected with the line and the reason, or read and rendered back the same; never a crash")
    func savedInputs() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.regressions.path).sorted()
        #expect(!files.isEmpty)
        for name in files {
            let data = try Data(contentsOf: Self.regressions.appendingPathComponent(name))
            let text = String(decoding: data, as: UTF8.self)
            do {
                let settings = try ConfigParser.parse(text, file: name)
                #expect(Self.accepted.contains(name), "\(name) was accepted")
                #expect(try ConfigParser.parse(settings.renderTOML(), file: "rendered.toml").engine == settings.engine, "\(name)")
            } catch {
                #expect(!Self.accepted.contains(name), "\(name): \(error)")
                #expect(error.line != nil, "\(name): \(error)")
                #expect(error.description.hasPrefix("\(name):"), "\(error)")
            }
        }
    }

    @Test("a float literal past binary64 is refused where it stands, not read as infinity")
    func floatPastBinary64() throws {
        let name = "float-past-binary64.toml"
        let text = String(decoding: try Data(contentsOf: Self.regressions.appendingPathComponent(name)), as: UTF8.self)
        do {
            _ = try ConfigParser.parse(text, file: name)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.line == 11, "\(error)")
            #expect(error.description.contains("out of the 64-bit float range"), "\(error)")
        }
    }

    @Test("a table header must start with a name", arguments: [
        ("[#]\n", 1, "found '#'"), ("[.]\n", 1, "found '.'"), ("[=]\n", 1, "found '='"), ("[é]\n", 1, "found 'é'"),
        ("[\u{7f}]\n", 1, "found the control character U+007F"), ("[[\u{3}]]\n", 1, "found the control character U+0003"),
        ("[daemon]\ntick_hz = 60\n\n[ #x]\n", 4, "found '#'"),
        ("[[ +bindings]]\n", 1, "found '+'"), ("[\u{b}]\n", 1, "found the control character U+000B"), ("[\n.]\n", 1, "found a line break"),
        ("[ [x]]\n", 1, "found '['"),
    ])
    func badTableHeader(_ text: String, _ line: Int, _ detail: String) {
        do {
            _ = try ConfigParser.parse(text, file: "c.toml")
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.line == line)
            #expect(error.description.hasPrefix("c.toml:\(line):"), "\(error)")
            #expect(error.description.contains("TOML syntax: expected a key (letters, digits, '_', '-' or a quoted string)"), "\(error)")
            #expect(error.description.contains(detail), "\(error)")
        }
    }

    @Test("a '}' where an array expects a value", arguments: [
        ("codes = [}\n", 1, 10), ("[devices]\nallow = [\"a\",\n  }]\n", 3, 3), ("x = [[1], [ } ]]\n", 1, 13),
    ])
    func closingBraceInArray(_ text: String, _ line: Int, _ column: Int) {
        do {
            _ = try ConfigParser.parse(text, file: "c.toml")
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.description == "c.toml:\(line):\(column): TOML syntax: expected a value, found '}'")
        }
    }

    @Test("a NUL byte is an error at its line, not the silent end of the file")
    func nulByte() {
        let text = "[daemon]\ntick_hz = 60\n\u{0}\n[bogus]\n"
        do {
            _ = try ConfigParser.parse(text, file: "c.toml")
            Issue.record("a file with a NUL byte was accepted")
        } catch {
            #expect(error.description == "c.toml:3:1: TOML syntax: a NUL byte; TOML text has none")
        }
    }

    @Test("what only looks like a bad header is still read: headers with spaces or quotes, brackets inside strings and arrays")
    func lookalikesAccepted() throws {
        let text = """
            [ daemon ]
            tick_hz = 60 # [=]

            ["transition"]
            threshold = 0.4

            [[ bindings ]]
            edge = "left"
            container = "shell"
            action = "next-tab"

            [devices]
            allow = [
              "[#] not a header",
            ]

            [[devices.override]]
            match = '''
            [#]
            '''
            """
        let settings = try ConfigParser.parse(text, file: "c.toml")
        #expect(settings.daemon.tickHz == 60)
        #expect(settings.devices.overrides.map(\.match) == ["[#]\n"])
        #expect(settings.engine.bindings.count == 1)
    }
}
