import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeSystem
import SystemPackage

// Streamed evemu recordings: a recording of any length is played in the memory of a few lines.
//
// `Recording.load` reads the whole file, splits it into lines and keeps every event: a 27 MB recording took
// 506 MB (the probe, release build; 645 MB in a debug build here), most of it the text, its lines and the events.
// `Recording.stream` reads the file twice instead, a line at a time. The first pass checks every line with the same
// parser (so errors are the same, and come before anything is played) and describes the devices, counting their
// events without keeping them; when the recording plays, each device's events are read from the file again as the
// player needs them. Lines are split exactly as `String.split(whereSeparator: \.isNewline)` splits the whole text,
// and each line is decoded as the whole text would be, so a streamed recording plays to the same bytes as a loaded
// one.
//
// `libinput record` files (YAML) stream the same way, through libyaml's event parser (LibinputRecord.swift).

/// Reads a file a line at a time. Lines end at any newline Swift's `Character.isNewline` knows (`\n`, `\r`,
/// `\r\n`, VT, FF, NEL, LS, PS); invalid UTF-8 is replaced as `String(decoding:as:)` replaces it. After the last
/// newline comes one more line, empty if the file ends with a newline, as `split(omittingEmptySubsequences:
/// false)` gives.
final class TextLineReader {
    private let file: FileDescriptor
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEOF = false
    private var finished = false
    /// Whether the file held no byte at all.
    private(set) var isEmptyFile = false
    /// Why reading stopped early, if it did.
    private(set) var readError: String?

    init(path: String, chunk: Int = 1 << 16) throws(RecordingError) {
        do { file = try FileDescriptor.open(atPath: path, .readOnly, options: [.closeOnExec]) } catch {
            throw RecordingError(file: path, line: nil, reason: .unreadable(error.description))
        }
        buffer = [UInt8](repeating: 0, count: max(16, chunk))
        fill()
        isEmptyFile = end == 0 && atEOF && readError == nil
    }

    deinit { try? file.close() }

    /// Reads more after `end`, moving what is left to the front first.
    private func fill() {
        if start > 0 {
            // Overlapping regions: copyMemory moves like memmove.
            buffer.withUnsafeMutableBytes { raw in raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[start..<end])) }
            end -= start
            start = 0
        }
        if end == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
        do {
            let n = try file.read(into: &buffer, from: end)
            if n == 0 { atEOF = true } else { end += n }
        } catch {
            readError = error.description
            atEOF = true
        }
    }

    /// The length of the newline at `i`, 0 if there is none, or `nil` if more bytes are needed to tell.
    private func newline(at i: Int) -> Int? {
        func byte(_ k: Int) -> UInt8? { i + k < end ? buffer[i + k] : nil }
        switch buffer[i] {
        case 0x0A, 0x0B, 0x0C: return 1
        case 0x0D:
            guard let next = byte(1) else { return atEOF ? 1 : nil }
            return next == 0x0A ? 2 : 1
        case 0xC2:
            guard let next = byte(1) else { return atEOF ? 0 : nil }
            return next == 0x85 ? 2 : 0
        case 0xE2:
            guard let b1 = byte(1), let b2 = byte(2) else {
                if atEOF { return 0 }
                if let b1 = byte(1), b1 != 0x80 { return 0 }
                return nil
            }
            return b1 == 0x80 && (b2 == 0xA8 || b2 == 0xA9) ? 3 : 0
        default: return 0
        }
    }

    /// The next line, or `nil` after the last.
    func next() -> String? {
        guard !finished else { return nil }
        var i = start
        while true {
            while i < end {
                guard let length = newline(at: i) else { break }
                if length > 0 {
                    let line = String(decoding: buffer[start..<i], as: UTF8.self)
                    start = i + length
                    return line
                }
                i += 1
            }
            if atEOF && i >= end {
                finished = true
                return String(decoding: buffer[start..<end], as: UTF8.self)
            }
            let scanned = i - start
            fill()
            i = start + scanned
        }
    }
}

extension Evemu.Parser {
    /// Parses every line `lines` gives, as ``run(_:externalDescription:)`` parses a text.
    mutating func run(
        lines: TextLineReader, externalDescription: () throws(RecordingError) -> EvdevDeviceDescription?
    ) throws(RecordingError) {
        if lines.isEmptyFile { throw RecordingError(file: file, line: nil, reason: .empty) }
        while let line = lines.next() {
            lineNumber += 1
            try parseLine(line[...], externalDescription: externalDescription)
        }
        if let why = lines.readError { throw RecordingError(file: file, line: lineNumber, reason: .unreadable(why)) }
    }
}

extension Recording {
    /// Reads a recording for playing without holding its events: the file is checked from start to end and its
    /// devices described (errors are those of ``load(path:descriptionPath:)``, before anything plays), and a
    /// player reads each device's events from the file as it plays them. An evemu file is read a line at a time,
    /// a `libinput record` file an event of libyaml's at a time.
    public static func stream(path: String, descriptionPath: String? = nil) throws(RecordingError) -> Recording {
        if looksLikeLibinputRecord(try head(of: path), path: path) {
            return Recording(path: path, format: .libinputRecord, devices: try LibinputRecord.describe(path: path))
        }
        let reader = try TextLineReader(path: path)
        var parser = Evemu.Parser(file: path, descriptionOnly: false)
        parser.keepsEvents = false
        try parser.run(lines: reader) { () throws(RecordingError) -> EvdevDeviceDescription? in
            guard let desc = descriptionPath ?? findDescription(forRecording: path) else { return nil }
            return try Evemu.parseDescription(try readText(desc), file: desc)
        }
        guard !parser.devices.isEmpty else { throw RecordingError(file: path, line: nil, reason: .noDevice) }
        let devices = parser.devices.enumerated().map { index, builder in
            RecordedDevice(
                description: builder.description, events: [], source: path,
                streamed: StreamedEvents(path: path, format: .evemu, deviceIndex: index, eventCount: builder.eventCount, firstEventTime: builder.firstEventTime))
        }
        return Recording(path: path, format: .evemu, devices: devices)
    }

    /// The start of the file as text: enough characters for ``looksLikeLibinputRecord(_:path:)``, which reads
    /// the first 4,096.
    static func head(of path: String) throws(RecordingError) -> String {
        // A cut through a character at the end changes nothing in the first 4,096.
        String(decoding: try readBytes(path) { String(decoding: $0, as: UTF8.self).count > 4097 }, as: UTF8.self)
    }
}

/// One streamed device's events, read from its file as a player asks for them. Owned by one player (its cursor);
/// not shared.
final class EvemuEventStream: RecordedEventStream, @unchecked Sendable {
    private let reader: TextLineReader?
    private var parser: Evemu.Parser
    private let streamed: StreamedEvents
    private var devicesSeen = 0
    private var delivered = 0
    /// The next event, `nil` at the end.
    private(set) var current: EvdevEvent?
    /// Set when the file could not be read again, or no longer matches what its first pass found.
    private(set) var failure: RecordingError?

    init(_ streamed: StreamedEvents) {
        self.streamed = streamed
        parser = Evemu.Parser(file: streamed.path, descriptionOnly: false)
        do throws(RecordingError) {
            reader = try TextLineReader(path: streamed.path)
        } catch {
            reader = nil
            failure = error
        }
        advance()
    }

    func advance() {
        current = nil
        guard let reader, failure == nil else { return }
        while let line = reader.next() {
            do throws(RecordingError) {
                if let found = try parser.event(onLine: line[...], devicesSeen: &devicesSeen), found.device == streamed.deviceIndex {
                    delivered += 1
                    current = found.event
                    return
                }
            } catch {
                failure = error
                return
            }
        }
        if let why = reader.readError {
            failure = RecordingError(file: streamed.path, line: parser.lineNumber, reason: .unreadable(why))
        } else if delivered != streamed.eventCount {
            failure = streamed.changedWhilePlaying(delivered: delivered)
        }
    }
}
