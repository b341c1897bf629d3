import EdgeSwipeCore
@testable import EdgeSwipeInput
@testable import EdgeSwipeRecordings
import Foundation
import Testing

/// A streamed recording must play to exactly what a loaded one plays to, and fail exactly where it fails.
@Suite("Streamed evemu recordings")
struct EvemuStreamTests {
    static func write(_ bytes: [UInt8], in dir: URL, _ name: String = "r.evemu") throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    static let swipe = Array((smallEvemuDescription + "\n" + smallEvemuEvents + "\n").utf8)

    /// Texts that exercise the line splitting and the parser: line ends of every kind, comments, invalid UTF-8 in a
    /// name, two devices, and broken files whose errors must be the same.
    static let texts: [(String, [UInt8])] = [
        ("plain", swipe),
        ("CRLF", Array(String(decoding: swipe, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)),
        ("lone CR", Array(String(decoding: swipe, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r").utf8)),
        ("NEL, LS and PS", Array(String(decoding: swipe, as: UTF8.self).replacingOccurrences(of: "\n", with: "\u{85}").replacingOccurrences(of: "# EVEMU 1.3\u{85}", with: "# EVEMU 1.3\u{2028}\u{2029}").utf8)),
        ("no final newline", Array(swipe.dropLast())),
        ("invalid UTF-8 in the name", Array(String(decoding: swipe, as: UTF8.self).utf8).replacingName(with: [0x54, 0xFF, 0xC3, 0x41])),
        ("two devices", swipe + Array(String(decoding: swipe, as: UTF8.self).replacingOccurrences(of: "Tiny Screen", with: "Other Screen").replacingOccurrences(of: "E: 0.0", with: "E: 0.5").utf8)),
        ("a bad event line", swipe + Array("E: 1.0 0003 zz 0001\n".utf8)),
        ("an unknown line", Array("# EVEMU 1.3\nN: x\nQ: what\n".utf8)),
        ("events only, no description", Array(smallEvemuEvents.utf8)),
        ("empty", []),
        ("only a newline", [0x0A]),
    ]

    @Test("streamed and loaded recordings play to the same events and fail with the same errors", arguments: texts.map(\.0))
    func sameAsLoaded(_ name: String) throws {
        let bytes = try #require(Self.texts.first { $0.0 == name }).1
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("evemu-stream-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.write(bytes, in: dir)
        StreamedRecordingCheck.expectSameAsLoaded(path, format: .evemu)
    }

    @Test("the line reader splits exactly where String.split(whereSeparator: isNewline) does, across chunk boundaries")
    func lineSplitting() throws {
        let samples: [[UInt8]] = [
            Array("a\nb\r\nc\rd\u{0B}e\u{0C}f\u{85}g\u{2028}h\u{2029}i".utf8),
            Array("\r\n\r\n\r".utf8), Array("x\r".utf8), [0xE2, 0x80], [0xE2, 0x80, 0x41, 0x0A], [0xC2], [0x61, 0xC2, 0x0A, 0x85],
            Array(String(repeating: "long line without end ", count: 50).utf8),
        ]
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lines-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for bytes in samples {
            let expected = String(decoding: bytes, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
            let path = try Self.write(bytes, in: dir)
            for chunk in [16, 17, 19, 64, 1 << 16] {
                let reader = try TextLineReader(path: path, chunk: chunk)
                var lines: [String] = []
                while let line = reader.next() { lines.append(line) }
                #expect(lines == expected, "\(bytes) in chunks of \(chunk)")
            }
        }
    }

    @Test("a streamed recording that changes while it plays stops with an error instead of playing something else")
    func changedWhilePlaying() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("evemu-changed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.write(Self.swipe, in: dir)
        let recording = try Recording.stream(path: path)
        _ = try Self.write(Array(smallEvemuDescription.utf8) + [0x0A], in: dir)
        let played = StreamedRecordingCheck.play([recording])
        #expect(played.failures.first?.description.contains("changed while it was played") == true, "\(played.failures)")
    }
}

extension Array where Element == UInt8 {
    /// The bytes with the `N:` line's name replaced by `name`.
    fileprivate func replacingName(with name: [UInt8]) -> [UInt8] {
        let text = String(decoding: self, as: UTF8.self)
        guard let range = text.range(of: "N: Tiny Screen") else { return self }
        let before = Array(text[..<range.lowerBound].utf8)
        let after = Array(text[range.upperBound...].utf8)
        return before + Array("N: ".utf8) + name + after
    }
}
