import CYAML
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeSystem
import SystemPackage

// libyaml's event parser (the C library Yams wraps) over a stream of bytes: a file is parsed as it is read, in
// chunks, so a recording of any size is walked in the memory of one chunk and one event.

/// Where a YAML event starts: 1-based line and column (columns count characters, as libyaml does).
struct YAMLMark: Hashable, Sendable {
    var line: Int
    var column: Int

    init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    init(_ mark: yaml_mark_t) {
        self.init(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}

/// The kind of a libyaml event.
enum YAMLEventKind: Hashable, Sendable {
    case streamStart, streamEnd, documentStart, documentEnd, alias, scalar, sequenceStart, sequenceEnd
    case mappingStart, mappingEnd
}

/// Bytes for the parser, in chunks: a file read as the parser asks for more, or bytes already in memory.
///
/// Bytes that are not UTF-8 are replaced as `String(decoding:as:)` replaces them (U+FFFD), so a file reads the
/// same streamed as decoded whole; device names are the only free text of a recording.
final class YAMLInput {
    private enum Origin {
        case file(path: String, file: FileDescriptor)
        case memory([UInt8])
    }

    private let origin: Origin
    private let chunk: Int
    /// UTF-8 read but not yet handed to the parser, from `pendingStart`.
    private var pending: [UInt8] = []
    private var pendingStart = 0
    /// The end of the last chunk when it stops inside a character: the start of the next one.
    private var carry: [UInt8] = []
    private var memoryOffset = 0
    private var atEnd = false
    /// Why reading the file failed, if it did (the system's words).
    private(set) var readError: String?

    /// Opens `path`; the error names the file and the system's reason.
    init(path: String, chunk: Int = 1 << 16) throws(RecordingError) {
        let file: FileDescriptor
        do { file = try FileDescriptor.open(atPath: path, .readOnly, options: [.closeOnExec]) } catch {
            throw RecordingError(file: path, line: nil, reason: .unreadable(error.description))
        }
        origin = .file(path: path, file: file)
        self.chunk = max(16, chunk)
    }

    init(bytes: [UInt8], chunk: Int = 1 << 16) {
        origin = .memory(bytes)
        self.chunk = max(16, chunk)
    }

    deinit {
        if case .file(_, let file) = origin { try? file.close() }
    }

    /// A fresh input over the same bytes, from their start.
    func reopened() -> YAMLInput? {
        switch origin {
        case .memory(let bytes): YAMLInput(bytes: bytes, chunk: chunk)
        case .file(let path, _): try? YAMLInput(path: path, chunk: chunk)
        }
    }

    /// Copies up to `size` bytes to `buffer`: how many, 0 at the end, `nil` when the file could not be read.
    func read(into buffer: UnsafeMutablePointer<UInt8>, size: Int) -> Int? {
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            guard fill() else { return nil }
        }
        let n = min(size, pending.count - pendingStart)
        pending.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            buffer.update(from: base + pendingStart, count: n)
        }
        pendingStart += n
        return n
    }

    /// Reads the next chunk into `pending`; it stays empty only at the end of the input.
    private func fill() -> Bool {
        while pending.isEmpty && !atEnd {
            var raw = carry
            carry = []
            switch origin {
            case .memory(let bytes):
                let end = min(bytes.count, memoryOffset + chunk)
                raw += bytes[memoryOffset..<end]
                memoryOffset = end
                atEnd = end == bytes.count
            case .file(_, let file):
                let start = raw.count
                raw += repeatElement(0, count: chunk)
                let n: Int
                do { n = try file.read(into: &raw, from: start) } catch {
                    readError = error.description
                    return false
                }
                raw.removeLast(chunk - n)
                atEnd = n == 0
            }
            // A character cut by the end of the chunk waits for the rest of it.
            let keep = atEnd ? 0 : Self.incompleteTail(raw)
            if keep > 0 {
                carry = Array(raw.suffix(keep))
                raw.removeLast(keep)
            }
            pending = UTF8Check.firstInvalidOffset(raw) == nil ? raw : Array(String(decoding: raw, as: UTF8.self).utf8)
        }
        return true
    }

    /// How many bytes at the end of `bytes` begin a character that the next bytes would complete (0 to 3).
    static func incompleteTail(_ bytes: [UInt8]) -> Int {
        let n = bytes.count
        guard n > 0 else { return 0 }
        for back in 1...min(3, n) {
            let b = bytes[n - back]
            if b & 0xC0 == 0x80 { continue }  // a continuation byte: its lead is further back
            let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
            return length > back ? back : 0
        }
        return 0
    }

    /// The line and column (1-based, columns in characters) of byte `offset` of what this input hands out.
    func mark(ofOffset offset: Int) -> YAMLMark? {
        guard let input = reopened() else { return nil }
        var line = 1, column = 1, seen = 0
        var previous: UInt8 = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while seen < offset {
            let wanted = min(buffer.count, offset - seen)
            let n = buffer.withUnsafeMutableBufferPointer { b in b.baseAddress.flatMap { input.read(into: $0, size: wanted) } }
            guard let n, n > 0 else { return nil }
            for b in buffer[0..<n] {
                if b == 0x0A {
                    if previous != 0x0D { line += 1 }
                    column = 1
                } else if b == 0x0D {
                    line += 1
                    column = 1
                } else if b & 0xC0 != 0x80 {
                    column += 1
                }
                previous = b
            }
            seen += n
        }
        return YAMLMark(line: line, column: column)
    }
}

/// libyaml's parser over one ``YAMLInput``, one event at a time. The parser and the current event are owned here
/// and freed in `deinit`.
final class YAMLEventParser {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let event: UnsafeMutablePointer<yaml_event_t>
    private var holdsEvent = false
    private let input: YAMLInput
    /// Names the input in errors.
    let file: String

    /// The kind of the current event.
    private(set) var kind = YAMLEventKind.streamEnd
    /// Where the current event starts.
    private(set) var mark = YAMLMark(line: 1, column: 1)

    init(_ input: YAMLInput, file: String) throws(RecordingError) {
        self.input = input
        self.file = file
        parser = .allocate(capacity: 1)
        event = .allocate(capacity: 1)
        guard yaml_parser_initialize(parser) != 0 else {
            parser.deallocate()
            event.deallocate()
            throw RecordingError(file: file, line: nil, reason: .yaml("libyaml could not set up a parser (out of memory)"))
        }
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input(parser, { data, buffer, size, sizeRead in
            guard let data, let buffer, let sizeRead else { return 0 }
            let input = Unmanaged<YAMLInput>.fromOpaque(data).takeUnretainedValue()
            guard let n = input.read(into: buffer, size: size) else { return 0 }
            sizeRead.pointee = n
            return 1
        }, Unmanaged.passUnretained(input).toOpaque())
    }

    deinit {
        if holdsEvent { yaml_event_delete(event) }
        yaml_parser_delete(parser)
        parser.deallocate()
        event.deallocate()
    }

    /// Moves to the next event; fails with libyaml's own words and place.
    @discardableResult
    func next() throws(RecordingError) -> YAMLEventKind {
        if holdsEvent {
            yaml_event_delete(event)
            holdsEvent = false
        }
        guard yaml_parser_parse(parser, event) != 0 else { throw parseError() }
        holdsEvent = true
        mark = YAMLMark(event.pointee.start_mark)
        switch event.pointee.type {
        case YAML_STREAM_START_EVENT: kind = .streamStart
        case YAML_STREAM_END_EVENT: kind = .streamEnd
        case YAML_DOCUMENT_START_EVENT: kind = .documentStart
        case YAML_DOCUMENT_END_EVENT: kind = .documentEnd
        case YAML_ALIAS_EVENT: kind = .alias
        case YAML_SCALAR_EVENT: kind = .scalar
        case YAML_SEQUENCE_START_EVENT: kind = .sequenceStart
        case YAML_SEQUENCE_END_EVENT: kind = .sequenceEnd
        case YAML_MAPPING_START_EVENT: kind = .mappingStart
        case YAML_MAPPING_END_EVENT: kind = .mappingEnd
        default: throw RecordingError(file: file, line: mark.line, column: mark.column, reason: .yaml("an event libyaml did not document"))
        }
        return kind
    }

    /// The current scalar's text, as written (quotes removed, escapes resolved); empty for other events.
    func withScalar<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard kind == .scalar, let value = event.pointee.data.scalar.value else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return body(UnsafeBufferPointer(start: value, count: event.pointee.data.scalar.length))
    }

    var scalar: String { withScalar { String(decoding: $0, as: UTF8.self) } }

    /// Whether the current scalar was written without quotes or block indicators (so `null` and `~` mean null).
    var isPlainScalar: Bool { kind == .scalar && event.pointee.data.scalar.style == YAML_PLAIN_SCALAR_STYLE }

    /// Whether the current scalar is `text`, without building a string.
    func scalarIs(_ text: StaticString) -> Bool {
        withScalar { bytes in
            bytes.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
    }

    /// Skips the rest of the node the current event starts (nothing more for a scalar or an alias).
    func skipNode() throws(RecordingError) {
        guard kind == .sequenceStart || kind == .mappingStart else { return }
        var depth = 1
        while depth > 0 {
            switch try next() {
            case .sequenceStart, .mappingStart: depth += 1
            case .sequenceEnd, .mappingEnd: depth -= 1
            case .scalar, .alias: break
            case .streamStart, .streamEnd, .documentStart, .documentEnd:
                throw RecordingError(file: file, line: mark.line, column: mark.column, reason: .yaml("unexpected end of a node"))
            }
        }
    }

    private func parseError() -> RecordingError {
        let p = parser.pointee
        let problem = p.problem.map { String(cString: $0) } ?? "unknown problem"
        switch p.error {
        case YAML_MEMORY_ERROR:
            return RecordingError(file: file, line: nil, reason: .yaml("out of memory"))
        case YAML_READER_ERROR:
            if let why = input.readError { return RecordingError(file: file, line: nil, reason: .unreadable(why)) }
            // The reader's problems (a control character, a bad byte order mark) come with a byte offset only.
            let at = input.mark(ofOffset: p.problem_offset)
            let value = p.problem_value >= 0 ? " (0x" + String(p.problem_value, radix: 16, uppercase: true) + ")" : ""
            return RecordingError(file: file, line: at?.line, column: at?.column, reason: .yaml(problem + value))
        default:
            let context = p.context.map { String(cString: $0) + " " } ?? ""
            let at = YAMLMark(p.problem_mark)
            return RecordingError(file: file, line: at.line, column: at.column, reason: .yaml(context + problem))
        }
    }
}
