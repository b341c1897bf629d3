import EdgeSwipeCore
@testable import EdgeSwipeInput
@testable import EdgeSwipeRecordings
import Foundation
import Testing

/// The `libinput record` reader over libyaml's events: a streamed recording plays to exactly what a loaded one
/// plays to and fails exactly where it fails, whatever the chunks the file is read in.
@Suite("Streamed libinput record files")
struct LibinputRecordStreamTests {
    static func directory(_ name: String) throws -> URL {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static let small = Array(smallLibinputRecord.utf8) + [0x0A]

    static func replacing(_ text: String, with replacement: String) -> [UInt8] {
        Array(smallLibinputRecord.replacingOccurrences(of: text, with: replacement).utf8)
    }

    /// Texts for the grammar and for the reader under it: line ends, names that are not ASCII or not UTF-8,
    /// entries that are not evdev rows, empty event lists, duplicate keys, and broken files.
    static let texts: [(String, [UInt8])] = [
        ("two devices", small),
        ("CRLF", Array(smallLibinputRecord.replacingOccurrences(of: "\n", with: "\r\n").utf8)),
        ("a name that is not ASCII", replacing("VEN_0488:00 0488:102C Touchpad", with: "Pavé tactile \u{1F446}")),
        ("a name that is not UTF-8", small.replacingSubsequence(Array("VEN_0488".utf8), with: [0x56, 0xFF, 0xC3, 0x28, 0xE2, 0x82])),
        ("events: null", replacing("  events:\n  - evdev:\n    - [  0, 200000,", with: "  events: null\n  other:\n  - evdev:\n    - [  0, 200000,")),
        ("events: empty", replacing("  events:\n  - evdev:\n    - [  0, 200000,", with: "  events:\n  other:\n  - evdev:\n    - [  0, 200000,")),
        ("events: a quoted null", replacing("  events:\n  - evdev:\n    - [  0, 200000,", with: "  events: \"null\"\n  other:\n  - evdev:\n    - [  0, 200000,")),
        ("a second events key is ignored", replacing("  properties: []\n  events:", with: "  properties: []\n  events: []\n  events:")),
        ("an entry with two evdev keys", replacing("  - libinput:\n    - {time: 0.0, type: POINTER_MOTION}", with: "  - evdev:\n    - [  1, 0, 0, 0, 0]\n    evdev:\n    - [  9, 0, 0, 0, 0]")),
        ("a row with more than five values", replacing("[  1, 500000,   3,  57,      -1]", with: "[1, 500000, 3, 57, -1, 7, 8]")),
        ("hex values", replacing("[  0,      0,   3,  57,    1985]", with: "[0x0, 0, 0x3, 0x39, 0x7C1]")),
        ("a row with four values", replacing("[  1, 500000,   3,  57,      -1]", with: "[1, 500000, 3, 57]")),
        ("a row with a list in it", replacing("[  1, 500000,   3,  57,      -1]", with: "[1, 500000, [3], 57, -1]")),
        ("a row that is a number", replacing("[  1, 500000,   3,  57,      -1]", with: "7")),
        ("a time past the limit", replacing("[  1, 500000,   3,  57,      -1]", with: "[1, 1000000, 3, 57, -1]")),
        ("evdev rows that are a mapping", replacing("  - evdev:\n    - [  1, 500000,", with: "  - evdev: {a: 1}\n  - evdev:\n    - [  1, 500000,")),
        ("another version", replacing("version: 1", with: "version: 2")),
        ("a version that is a list", replacing("version: 1", with: "version: [1]")),
        ("no version", replacing("version: 1\n", with: "")),
        ("devices that are a mapping", Array("version: 1\ndevices: {a: 1}\n".utf8)),
        ("no devices", Array("version: 1\ndevices: []\n".utf8)),
        ("a device that is a list", Array("version: 1\ndevices:\n- [1, 2]\n".utf8)),
        ("a device without a name", replacing("    name: \"AT Translated Set 2 keyboard\"\n", with: "")),
        ("codes with a list as a key", replacing("      0: [0, 1, 4, 17, 20]", with: "      [0]: [0, 1, 4, 17, 20]")),
        ("a key code past 16 bits", replacing("1: [1, 2, 16, 30, 44, 57]", with: "1: [1, 2, 16, 30, 44, 65536]")),
        ("broken YAML", Array("version: 1\ndevices: [\n  - {a: 1\n".utf8)),
        ("a control character", replacing("ndevices: 2", with: "ndevices: 2 \u{01}")),
        ("two documents", small + Array("---\nversion: 1\n".utf8)),
        ("a scalar document", Array("just text\n".utf8)),
        ("only a comment", Array("# libinput record\n".utf8)),
        ("empty", []),
    ]

    @Test("streamed and loaded recordings read the same devices, play to the same events and fail with the same errors", arguments: texts.map(\.0))
    func sameAsLoaded(_ name: String) throws {
        let bytes = try #require(Self.texts.first { $0.0 == name }).1
        let dir = try Self.directory("record-stream")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("r.yaml").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        StreamedRecordingCheck.expectSameAsLoaded(path, format: .libinputRecord)
    }

    @Test("the chunks a file is read in change nothing, even when they cut a character or a line in two", arguments: texts.map(\.0))
    func chunking(_ name: String) throws {
        let bytes = try #require(Self.texts.first { $0.0 == name }).1
        func read(_ chunk: Int) -> Result<[RecordedDevice], RecordingError> {
            Result { () throws(RecordingError) in
                let yaml = try YAMLEventParser(YAMLInput(bytes: bytes, chunk: chunk), file: "r.yaml")
                var reader = LibinputRecord.Reader(yaml: yaml, keepsEvents: true)
                return try reader.document().enumerated().map { $1.recorded(file: "r.yaml", index: $0, streamed: nil) }
            }
        }
        let whole = read(1 << 20)
        for chunk in [16, 17, 18, 19, 61, 4096] { #expect(read(chunk) == whole, "\(name) in chunks of \(chunk)") }
        // And as `parse` reads the text: bytes that are not UTF-8 already replaced.
        let parsed = Result { () throws(RecordingError) in try LibinputRecord.parse(String(decoding: bytes, as: UTF8.self), file: "r.yaml") }
        #expect(parsed == whole)
    }

    @Test("the errors name the line and column, the field and the offending text", arguments: [
        ("a row with a list in it", "r.yaml:39:19: 'evdev row [sec, usec, type, code, value]' must be an integer"),
        ("a row that is a number", "r.yaml:39:7: 'evdev row [sec, usec, type, code, value]' must be a list of integers"),
        ("a time past the limit", "r.yaml:39:7: bad number '1, 1000000' for timestamp"),
        ("evdev rows that are a mapping", "r.yaml:38:12: 'evdev' must be a list of rows"),
        ("events: a quoted null", "r.yaml:49:11: 'events' must be a list"),
        ("a version that is a list", "r.yaml:2:10: unsupported format version ?"),
        ("no version", "r.yaml:2:1: missing 'version'"),
        ("devices that are a mapping", "r.yaml:2:10: 'devices' must be a list"),
        ("no devices", "r.yaml:2:10: no device description"),
        ("a device that is a list", "r.yaml:3:3: 'devices[0]' must be a mapping"),
        ("a device without a name", "r.yaml:43:5: missing 'name'"),
        ("codes with a list as a key", "r.yaml:46:7: 'codes type' must be an integer"),
        ("a key code past 16 bits", "r.yaml:47:10: bad number '65536' for codes"),
        ("a control character", "r.yaml:3:13: invalid YAML: control characters are not allowed (0x1)"),
        ("two documents", "r.yaml:53:1: invalid YAML: expected a single document in the stream but found another document"),
        ("a scalar document", "r.yaml:1:1: 'the document' must be a mapping"),
        ("only a comment", "r.yaml: empty file"),
        ("empty", "r.yaml: empty file"),
    ])
    func errors(_ name: String, _ expected: String) throws {
        let bytes = try #require(Self.texts.first { $0.0 == name }).1
        do {
            _ = try LibinputRecord.parse(String(decoding: bytes, as: UTF8.self), file: "r.yaml")
            Issue.record("\(name) parsed")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test("what the reader keeps: null or empty event lists, hex, extra row values, the first of a repeated key")
    func accepted() throws {
        func devices(_ name: String) throws -> [RecordedDevice] {
            try LibinputRecord.parse(String(decoding: try #require(Self.texts.first { $0.0 == name }).1, as: UTF8.self), file: "r.yaml")
        }
        let plain = try devices("two devices")
        #expect(try devices("events: null")[1].events.isEmpty)
        #expect(try devices("events: empty")[1].events.isEmpty)
        #expect(try devices("hex values")[0].events == plain[0].events)
        #expect(try devices("a row with more than five values")[0].events == plain[0].events)
        #expect(try devices("a second events key is ignored")[1].events.isEmpty)
        let twoKeys = try devices("an entry with two evdev keys")[0].events
        #expect(twoKeys.count == plain[0].events.count + 1 && twoKeys.contains { $0.time.microseconds == 1_000_000 })
        #expect(try devices("a name that is not UTF-8")[0].description.name == "V\u{FFFD}\u{FFFD}(\u{FFFD}:00 0488:102C Touchpad")
        #expect(try devices("a name that is not ASCII")[0].description.name == "Pavé tactile \u{1F446}")
    }

    @Test("a streamed recording that changes while it plays stops with an error instead of playing something else")
    func changedWhilePlaying() throws {
        let dir = try Self.directory("record-changed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("r.yaml")
        try Data(Self.small).write(to: url)
        let recording = try Recording.stream(path: url.path)
        try Data(Self.replacing("  - evdev:\n    - [  1, 500000,   3,  57,      -1]\n    - [  1, 500000,   0,   0,       0]\n", with: "")).write(to: url)
        let played = StreamedRecordingCheck.play([recording])
        #expect(played.failures.first?.description.contains("changed while it was played") == true, "\(played.failures)")
    }
}

extension Array where Element == UInt8 {
    /// The bytes with the first occurrence of `pattern` replaced.
    fileprivate func replacingSubsequence(_ pattern: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        guard let start = indices.first(where: { self[$0...].starts(with: pattern) }) else { return self }
        return Array(self[..<start]) + replacement + Array(self[(start + pattern.count)...])
    }
}
