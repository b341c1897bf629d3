import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings
import Foundation
import Testing

/// A small evemu description in `evemu-record`'s layout (a two-slot DIRECT screen), and its events.
let smallEvemuDescription = """
    # EVEMU 1.3
    # Input device name: "Tiny Screen"
    N: Tiny Screen
    I: 0018 04f3 0001 0100
    P: 02 00 00 00 00 00 00 00
    B: 00 0b 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 00 00 00 00 00 00 00
    B: 01 00 04 00 00 00 00 00 00
    B: 03 03 00 00 00 00 80 60 02
    A: 00 0 1000 0 0 10
    A: 01 -20 500 0 0 10
    A: 2f 0 1 0 0 0
    A: 35 0 1000 0 0 10
    A: 36 -20 500 0 0 10
    A: 39 0 65535 0 0 0
    """

let smallEvemuEvents = """
    E: 0.000001 0003 0039 0021\t# EV_ABS / ABS_MT_TRACKING_ID   21
    E: 0.000001 0003 0035 0415\t# EV_ABS / ABS_MT_POSITION_X    415
    E: 0.000001 0003 0036 -010\t# EV_ABS / ABS_MT_POSITION_Y    -10
    E: 0.000001 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +0ms
    E: 0.010001 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1
    E: 0.010001 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +10ms
    """

/// A file that must not parse, and the message it must give (with the file's name, the line and the reason).
struct ParseErrorCase: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var message: String
    var testDescription: String { name }

    /// The message's own file name, under a folder that must not appear in it.
    var path: String { "/some/folder/" + (message.split(separator: ":").first.map(String.init) ?? "") }
}

@Suite struct ParseErrorTests {
    @Test(arguments: EvemuTests.errors + LibinputRecordTests.errors)
    func badInputGivesTheLineAndTheReason(_ c: ParseErrorCase) {
        do {
            _ = try Recording.parse(c.text, path: c.path)
            Issue.record("parsed without an error")
        } catch {
            #expect(error.description == c.message)
        }
    }
}

@Suite struct EvemuTests {
    @Test func parsesAnInlineDescriptionAndItsEvents() throws {
        let devices = try Evemu.parse(smallEvemuDescription + "\n" + smallEvemuEvents, file: "tiny.events")
        #expect(devices.count == 1)
        let d = try #require(devices.first).description
        #expect(d.name == "Tiny Screen")
        #expect(d.id == InputID(bus: 0x18, vendor: 0x04f3, product: 1, version: 0x100))
        #expect(d.properties == .direct)
        #expect(d.keys == [EvdevKey.btnTouch])
        #expect(d.eventTypes == [EvdevType.syn, EvdevType.key, EvdevType.abs])
        #expect(d.absInfo[EvdevAbs.y] == AbsInfo(minimum: -20, maximum: 500, resolution: 10))
        #expect(d.classification == .touch(.touchscreen, .multitouchB(slots: 2)))
        let events = try #require(devices.first).events
        #expect(events.count == 6)
        #expect(events[2] == EvdevEvent(time: MonotonicInstant(microseconds: 1), type: 3, code: 0x36, value: -10))
        #expect(events[4] == EvdevEvent(time: MonotonicInstant(microseconds: 10_001), type: 3, code: 0x39, value: -1))
    }

    @Test func oldDescriptionsWithoutResolutionOrPropertiesParse() throws {
        // Keys: rows 0-3 empty, row 4 BTN_LEFT (272), row 5 BTN_TOOL_FINGER, BTN_TOUCH and the multi-finger taps.
        let emptyKeyRows = String(repeating: "B: 01 00 00 00 00 00 00 00 00\n", count: 4)
        let text = """
            N: SynPS/2 Synaptics TouchPad
            I: 0011 0002 0007 01b1
            \(emptyKeyRows)B: 01 00 00 01 00 00 00 00 00
            B: 01 20 64 00 00 00 00 00 00
            A: 35 1472 5728 0 0
            A: 36 1408 4916 0 0
            A: 2f 0 1 0 0
            """
        let d = try Evemu.parseDescription(text, file: "hp.desc")
        #expect(d.properties == [])
        #expect(d.absInfo[EvdevAbs.mtPositionX] == AbsInfo(minimum: 1472, maximum: 5728))
        #expect(d.hasKey(EvdevKey.btnToolFinger) && d.hasKey(EvdevKey.btnTouch) && d.hasKey(EvdevKey.btnLeft))
        #expect(d.classification == .touch(.touchpad, .multitouchB(slots: 2)))
    }

    @Test func windowsLineEndingsAndTrailingCommentsAreTolerated() throws {
        let text = (smallEvemuDescription + "\n" + smallEvemuEvents).replacingOccurrences(of: "\n", with: "\r\n")
        let devices = try Recording.parse(text, path: "crlf.evemu").devices
        #expect(devices.first?.description.name == "Tiny Screen")
        #expect(devices.first?.events.count == 6)
    }

    @Test func eachNameStartsANewDevice() throws {
        let second = smallEvemuDescription.replacingOccurrences(of: "Tiny Screen", with: "Second")
        let devices = try Evemu.parse(
            smallEvemuDescription + "\n" + smallEvemuEvents + "\n" + second + "\n" + smallEvemuEvents, file: "two.events")
        #expect(devices.map(\.description.name) == ["Tiny Screen", "Second"])
        #expect(devices.map(\.events.count) == [6, 6])
    }

    @Test func writingAndReadingBackGivesTheSameDeviceAndEvents() throws {
        let original = try Evemu.parse(smallEvemuDescription + "\n" + smallEvemuEvents, file: "tiny.events")[0]
        let text = Evemu.write(original.description, events: original.events)
        let again = try Evemu.parse(text, file: "again.events")[0]
        #expect(again.description == original.description)
        #expect(again.events == original.events)
        #expect(text.contains("E: 0.010001 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID\n"))
    }

    /// Found by `scripts/fuzz.sh evemu-parse` (Fuzz/Regressions/evemu/axis-code-past-a-byte.evemu): the writer cut an
    /// axis code to its low byte, so axis 0x12f came back as 0x2f (ABS_MT_SLOT).
    @Test func anAxisCodePastOneByteIsWrittenWhole() throws {
        let text = "# EVEMU 1.3\nN: Wide Axis\nI: 0003 0001 0002 0003\nA: 35 0 4095 0 0 10\nA: 12f 0 4 0 0 0\nE: 0.000000 0000 0000 0\n"
        let original = try Evemu.parse(text, file: "wide.evemu")[0]
        let written = Evemu.write(original.description, events: original.events)
        #expect(written.contains("A: 12f 0 4 0 0 0\n") && written.contains("A: 35 0 4095 0 0 10\n"), "\(written)")
        let again = try Evemu.parse(written, file: "again.evemu")[0]
        #expect(again.description.absInfo == original.description.absInfo)
        #expect(Set(again.description.absInfo.keys) == [0x35, 0x12f])
    }

    /// Event lines that break after a valid description (so on line 20), and what is reported.
    static let badEventLines: [(line: String, reason: String)] = [
        ("E: 0.000001 0003 0039", "truncated line: expected E: <sec.usec> <type> <code> <value>, missing <value>"),
        ("E: 0.000001 00g3 0039 1", "bad hex '00g3' for event type"),
        ("E: 0.000001 0003 0039 1x", "bad number '1x' for event value"),
        ("E: 0.00a001 0003 0039 1", "bad number '0.00a001' for timestamp"),
    ]

    static let errors: [ParseErrorCase] =
        badEventLines.map {
            ParseErrorCase(name: $0.reason, text: smallEvemuDescription + "\n" + $0.line, message: "x.events:20: " + $0.reason)
        } + [
            ParseErrorCase(
                name: "event before any description", text: "# EVEMU 1.2\nE: 0.000001 0003 0039 1\n",
                message: "x.events:2: event before any device description (no inline 'N:' description and no .desc file)"),
            ParseErrorCase(
                name: "truncated absinfo", text: "N: x\nA: 35 0 1000\n",
                message: "x.events:2: truncated line: expected A: <code> <min> <max> <fuzz> <flat> [<resolution>]"),
            ParseErrorCase(name: "bad hex property byte", text: "N: x\nP: 02 zz\n", message: "x.events:2: bad hex 'zz' for property byte"),
            ParseErrorCase(
                name: "description line before the name", text: "I: 0003 0001 0002 0003\n",
                message: "x.events:1: 'I:' line before the device name ('N:')"),
            ParseErrorCase(name: "unknown line", text: "N: x\nQ: what\n", message: "x.events:2: unknown line 'Q:'"),
            ParseErrorCase(name: "not evemu at all", text: "hello world\n", message: "x.events:1: unknown line 'hello world'"),
            ParseErrorCase(name: "future version", text: "# EVEMU 2.0\nN: x\n", message: "x.events:1: unsupported format version 2.0"),
            ParseErrorCase(name: "empty", text: "", message: "x.events: empty file"),
            ParseErrorCase(name: "only comments", text: "# EVEMU 1.3\n# nothing\n", message: "x.events: no device description"),
        ]

    @Test func eventsInADescriptionFileAreAnError() {
        #expect(throws: RecordingError(file: "d.desc", line: 2, reason: .eventsInDescriptionFile)) {
            _ = try Evemu.parseDescription("N: x\nE: 0.1 0000 0000 0\n", file: "d.desc")
        }
    }
}

/// Files on disk: the `.desc` lookup and read errors.
@Suite struct RecordingFileTests {
    /// A fresh folder under the system's temporary directory, removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("edgeswipe-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func anEventsOnlyFileFindsTheLongestPrefixDesc() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try smallEvemuDescription.write(to: dir.appendingPathComponent("Tiny.desc"), atomically: true, encoding: .utf8)
        try smallEvemuDescription.replacingOccurrences(of: "N: Tiny Screen", with: "N: Tiny Screen rev B")
            .write(to: dir.appendingPathComponent("Tiny Screen.revB.desc"), atomically: true, encoding: .utf8)
        try smallEvemuEvents.write(to: dir.appendingPathComponent("Tiny Screen.revB.swipe.events"), atomically: true, encoding: .utf8)
        try smallEvemuEvents.write(to: dir.appendingPathComponent("Tiny.tap.events"), atomically: true, encoding: .utf8)

        let revB = try Recording.load(path: dir.appendingPathComponent("Tiny Screen.revB.swipe.events").path)
        #expect(revB.devices.map(\.description.name) == ["Tiny Screen rev B"])
        #expect(revB.devices.first?.events.count == 6)
        let tiny = try Recording.load(path: dir.appendingPathComponent("Tiny.tap.events").path)
        #expect(tiny.devices.map(\.description.name) == ["Tiny Screen"])
        #expect(tiny.format == .evemu)

        // An explicit description wins over the folder.
        let explicit = try Recording.load(
            path: dir.appendingPathComponent("Tiny Screen.revB.swipe.events").path,
            descriptionPath: dir.appendingPathComponent("Tiny.desc").path)
        #expect(explicit.devices.map(\.description.name) == ["Tiny Screen"])
    }

    @Test func anEventsOnlyFileWithoutADescIsAClearError() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("lonely.events").path
        try ("# EVEMU 1.3\n" + smallEvemuEvents).write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: RecordingError(file: path, line: 2, reason: .eventBeforeDescription(hint: "no inline 'N:' description and no .desc file"))) {
            _ = try Recording.load(path: path)
        }
    }

    @Test func aBadDescFileIsReportedAsItself() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "N: x\nA: 35 0\n".write(to: dir.appendingPathComponent("dev.desc"), atomically: true, encoding: .utf8)
        try smallEvemuEvents.write(to: dir.appendingPathComponent("dev.swipe.events"), atomically: true, encoding: .utf8)
        do {
            _ = try Recording.load(path: dir.appendingPathComponent("dev.swipe.events").path)
            Issue.record("loaded")
        } catch {
            #expect(error.description == "dev.desc:2: truncated line: expected A: <code> <min> <max> <fuzz> <flat> [<resolution>]")
        }
    }

    @Test func aMissingFileSaysWhy() {
        do {
            _ = try Recording.load(path: "/nonexistent/none.events")
            Issue.record("loaded")
        } catch {
            #expect(error.description == "none.events: cannot read: No such file or directory")
        }
    }
}
