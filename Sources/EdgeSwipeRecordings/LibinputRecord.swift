import EdgeSwipeCore
import EdgeSwipeInput

/// Reads `libinput record` files (YAML, format version 1): every device in `devices[]`, with its evdev
/// description (`name`, `id`, `codes`, `absinfo`, `properties`), its udev properties, and the `evdev` rows of its
/// `events[]` (`[sec, usec, type, code, value]`). Other event kinds (`libinput:` rows from `--with-libinput`) are
/// skipped.
///
/// The YAML is read with libyaml's event parser, as a stream (`YAMLEvents.swift`): a file is walked as it is read,
/// so ``describe(path:)`` checks a recording of any length, and ``LibinputRecordEventStream`` plays it, in the
/// memory of one chunk. Errors name the file, the line and column of the node, and the problem.
public enum LibinputRecord {
    /// The devices of a `libinput record` text, with their events; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(RecordingError) -> [RecordedDevice] {
        try read(YAMLInput(bytes: Array(text.utf8)), file: file)
    }

    /// The devices of the `libinput record` file at `path`, with their events, read as the file is parsed (its
    /// text is never held whole).
    static func load(path: String) throws(RecordingError) -> [RecordedDevice] {
        try read(try YAMLInput(path: path), file: path)
    }

    private static func read(_ input: YAMLInput, file: String) throws(RecordingError) -> [RecordedDevice] {
        var reader = Reader(yaml: try YAMLEventParser(input, file: file), keepsEvents: true)
        return try reader.document().enumerated().map { index, builder in
            builder.recorded(file: file, index: index, streamed: nil)
        }
    }

    /// The devices of the `libinput record` file at `path`, each with its events left in the file: every line is
    /// checked (so errors come before anything plays), events are counted, not kept, and a player reads them from
    /// the file as it plays (``LibinputRecordEventStream``).
    static func describe(path: String) throws(RecordingError) -> [RecordedDevice] {
        var reader = Reader(yaml: try YAMLEventParser(try YAMLInput(path: path), file: path), keepsEvents: false)
        return try reader.document().enumerated().map { index, builder in
            builder.recorded(
                file: path, index: index,
                streamed: StreamedEvents(
                    path: path, format: .libinputRecord, deviceIndex: index, eventCount: builder.eventCount,
                    firstEventTime: builder.firstEventTime))
        }
    }

    /// What a device's mapping holds, as it is read.
    struct DeviceBuilder {
        var name: String?
        var id = InputID()
        var types: Set<UInt16> = []
        var keys: Set<UInt16> = []
        var absInfo: [UInt16: AbsInfo] = [:]
        var properties: InputProperties = []
        var udev: [String: String] = [:]
        var node: String?
        var events: [EvdevEvent] = []
        var eventCount = 0
        var firstEventTime: MonotonicInstant?

        func recorded(file: String, index: Int, streamed: StreamedEvents?) -> RecordedDevice {
            let description = EvdevDeviceDescription(
                name: name ?? "", id: id, properties: properties, eventTypes: types, keys: keys, absInfo: absInfo,
                udevProperties: udev)
            return RecordedDevice(
                description: description, events: events, source: file + "#" + (node ?? "device \(index)"),
                streamed: streamed)
        }
    }

    /// The document's grammar over libyaml's events. Where a key appears twice in a mapping, the first is read
    /// and the others skipped.
    struct Reader {
        let yaml: YAMLEventParser
        /// Whether a device's events are kept, or only checked and counted (``describe(path:)``).
        let keepsEvents: Bool

        func error(at mark: YAMLMark, _ reason: RecordingError.Reason) -> RecordingError {
            RecordingError(file: yaml.file, line: mark.line, column: mark.column, reason: reason)
        }

        /// The whole stream: one document, a mapping with `version: 1` and a non-empty `devices` list.
        mutating func document() throws(RecordingError) -> [DeviceBuilder] {
            try yaml.next()  // the stream's start
            guard try yaml.next() == .documentStart else { throw RecordingError(file: yaml.file, line: nil, reason: .empty) }
            try yaml.next()
            let root = yaml.mark
            guard yaml.kind == .mappingStart else {
                throw error(at: root, .wrongType(key: "the document", expected: "a mapping"))
            }
            var sawVersion = false
            var devices: [DeviceBuilder]?
            var devicesMark = root
            while let key = try nextKey() {
                switch key {
                case "version" where !sawVersion:
                    sawVersion = true
                    guard yaml.kind == .scalar, yaml.scalarIs("1") else {
                        let version = yaml.kind == .scalar ? yaml.scalar : "?"
                        throw error(at: yaml.mark, .unsupportedVersion(version))
                    }
                case "devices" where devices == nil:
                    devicesMark = yaml.mark
                    guard yaml.kind == .sequenceStart else {
                        throw error(at: devicesMark, .wrongType(key: "devices", expected: "a list"))
                    }
                    var list: [DeviceBuilder] = []
                    while try yaml.next() != .sequenceEnd { list.append(try device(index: list.count)) }
                    devices = list
                default:
                    try yaml.skipNode()
                }
            }
            guard sawVersion else { throw error(at: root, .missingKey("version")) }
            guard let devices else { throw error(at: root, .missingKey("devices")) }
            guard !devices.isEmpty else { throw error(at: devicesMark, .noDevice) }
            try yaml.next()  // the document's end
            // One document, as the recordings libinput writes have (and as Yams' compose required).
            guard try yaml.next() == .streamEnd else {
                throw error(at: yaml.mark, .yaml("expected a single document in the stream but found another document"))
            }
            return devices
        }

        /// Within a mapping: the next key, with the parser on its value; `nil` at the mapping's end. A key that is
        /// not a scalar is skipped with its value (no key this reader knows is one).
        func nextKey() throws(RecordingError) -> String? {
            while try yaml.next() != .mappingEnd {
                guard yaml.kind == .scalar else {
                    try yaml.skipNode()
                    try yaml.next()
                    try yaml.skipNode()
                    continue
                }
                let key = yaml.scalar
                try yaml.next()
                return key
            }
            return nil
        }

        mutating func device(index: Int) throws(RecordingError) -> DeviceBuilder {
            let mark = yaml.mark
            guard yaml.kind == .mappingStart else { throw error(at: mark, .wrongType(key: "devices[\(index)]", expected: "a mapping")) }
            var d = DeviceBuilder()
            var sawEvdev = false, sawUdev = false, sawEvents = false, sawNode = false
            while let key = try nextKey() {
                switch key {
                case "evdev" where !sawEvdev:
                    sawEvdev = true
                    try evdev(into: &d)
                case "udev" where !sawUdev:
                    sawUdev = true
                    try udev(into: &d)
                case "events" where !sawEvents:
                    sawEvents = true
                    try events(into: &d)
                case "node" where !sawNode:
                    sawNode = true
                    if yaml.kind == .scalar { d.node = yaml.scalar } else { try yaml.skipNode() }
                default:
                    try yaml.skipNode()
                }
            }
            guard sawEvdev else { throw error(at: mark, .missingKey("evdev")) }
            return d
        }

        func evdev(into d: inout DeviceBuilder) throws(RecordingError) {
            let mark = yaml.mark
            guard yaml.kind == .mappingStart else { throw error(at: mark, .wrongType(key: "evdev", expected: "a mapping")) }
            var seen: Set<String> = []
            while let key = try nextKey() {
                guard !seen.contains(key) else {
                    try yaml.skipNode()
                    continue
                }
                seen.insert(key)
                switch key {
                case "name":
                    guard yaml.kind == .scalar else { throw error(at: yaml.mark, .wrongType(key: "name", expected: "a string")) }
                    d.name = yaml.scalar
                case "id":
                    let (v, at) = try integers(key: "id", count: 4)
                    d.id = InputID(
                        bus: try uint16(v[0], at: at, key: "id"), vendor: try uint16(v[1], at: at, key: "id"),
                        product: try uint16(v[2], at: at, key: "id"), version: try uint16(v[3], at: at, key: "id"))
                case "codes":
                    guard yaml.kind == .mappingStart else { throw error(at: yaml.mark, .wrongType(key: "codes", expected: "a mapping")) }
                    while try yaml.next() != .mappingEnd {
                        let type = try uint16(try integer(key: "codes type"), at: yaml.mark, key: "codes type")
                        d.types.insert(type)
                        try yaml.next()
                        if type == EvdevType.key {
                            let (codes, at) = try integers(key: "codes")
                            for code in codes { d.keys.insert(try uint16(code, at: at, key: "codes")) }
                        } else {
                            try yaml.skipNode()
                        }
                    }
                case "absinfo":
                    guard yaml.kind == .mappingStart else { throw error(at: yaml.mark, .wrongType(key: "absinfo", expected: "a mapping")) }
                    while try yaml.next() != .mappingEnd {
                        let code = try uint16(try integer(key: "absinfo code"), at: yaml.mark, key: "absinfo code")
                        try yaml.next()
                        let (v, at) = try integers(key: "absinfo", count: 5)
                        d.absInfo[code] = AbsInfo(
                            minimum: try int32(v[0], at: at, key: "absinfo minimum"),
                            maximum: try int32(v[1], at: at, key: "absinfo maximum"),
                            fuzz: try int32(v[2], at: at, key: "absinfo fuzz"),
                            flat: try int32(v[3], at: at, key: "absinfo flat"),
                            resolution: try int32(v[4], at: at, key: "absinfo resolution"))
                    }
                case "properties":
                    let (bits, at) = try integers(key: "properties")
                    for bit in bits {
                        guard let p = InputProperties(bit: Int(clamping: bit)) else {
                            throw error(at: at, .badNumber(field: "properties", token: String(bit)))
                        }
                        d.properties.insert(p)
                    }
                default:
                    try yaml.skipNode()
                }
            }
            guard d.name != nil else { throw error(at: mark, .missingKey("name")) }
        }

        /// `udev: {properties: [KEY=value, ...]}`; anything else there is ignored, as libinput's own tools do.
        func udev(into d: inout DeviceBuilder) throws(RecordingError) {
            guard yaml.kind == .mappingStart else { return try yaml.skipNode() }
            var sawProperties = false
            while let key = try nextKey() {
                guard key == "properties", !sawProperties, yaml.kind == .sequenceStart else {
                    try yaml.skipNode()
                    continue
                }
                sawProperties = true
                while try yaml.next() != .sequenceEnd {
                    guard yaml.kind == .scalar else {
                        try yaml.skipNode()
                        continue
                    }
                    let text = yaml.scalar
                    let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    d.udev[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
                }
            }
        }

        func events(into d: inout DeviceBuilder) throws(RecordingError) {
            if try !EventRows.opens(yaml) { return }
            var rows = EventRows()
            while let event = try rows.next(yaml) {
                if keepsEvents {
                    d.events.append(event)
                } else if d.firstEventTime == nil {
                    d.firstEventTime = event.time
                }
                d.eventCount += 1
            }
        }

        /// The current scalar as an integer (decimal, or hex after `0x`).
        func integer(key: String) throws(RecordingError) -> Int64 {
            guard yaml.kind == .scalar else {
                let mark = yaml.mark
                try yaml.skipNode()
                throw error(at: mark, .wrongType(key: key, expected: "an integer"))
            }
            guard let value = LibinputRecord.integer(yaml) else { throw error(at: yaml.mark, .badNumber(field: key, token: yaml.scalar)) }
            return value
        }

        /// The current sequence of integers, and where it starts. Fewer than `count` values is an error at the
        /// sequence; otherwise the first value that is not an integer is one, at the value.
        func integers(key: String, count: Int = 0) throws(RecordingError) -> (values: [Int64], at: YAMLMark) {
            let mark = yaml.mark
            guard yaml.kind == .sequenceStart else {
                throw error(at: mark, .wrongType(key: key, expected: "a list of integers"))
            }
            var values: [Int64] = []
            var n = 0
            var firstError: RecordingError?
            while try yaml.next() != .sequenceEnd {
                n += 1
                do throws(RecordingError) {
                    values.append(try integer(key: key))
                } catch {
                    firstError = firstError ?? error
                }
            }
            if n < count { throw self.error(at: mark, .truncated(expected: "\(count) values in '\(key)'")) }
            if let firstError { throw firstError }
            return (values, mark)
        }

        func uint16(_ value: Int64, at mark: YAMLMark, key: String) throws(RecordingError) -> UInt16 {
            guard let v = UInt16(exactly: value) else { throw error(at: mark, .badNumber(field: key, token: String(value))) }
            return v
        }

        func int32(_ value: Int64, at mark: YAMLMark, key: String) throws(RecordingError) -> Int32 {
            guard let v = Int32(exactly: value) else { throw error(at: mark, .badNumber(field: key, token: String(value))) }
            return v
        }
    }

    /// The current scalar as an integer: decimal (with an optional sign), or hex after `0x`; `nil` otherwise.
    static func integer(_ yaml: YAMLEventParser) -> Int64? {
        // Most scalars of a recording are short decimals: read those without building a string.
        let fast: Int64?? = yaml.withScalar { bytes in
            guard !bytes.isEmpty, bytes.count <= 18 else { return .none }
            var i = 0
            let negative = bytes[0] == UInt8(ascii: "-")
            if negative || bytes[0] == UInt8(ascii: "+") { i = 1 }
            guard i < bytes.count else { return .some(nil) }
            var value: Int64 = 0
            while i < bytes.count {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { return .none }
                value = value * 10 + Int64(digit)
                i += 1
            }
            return .some(negative ? -value : value)
        }
        if let fast { return fast }
        let text = yaml.scalar
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return Int64(text.dropFirst(2), radix: 16) }
        return Int64(text)
    }
}

/// A device's `events` list, read one `evdev` row at a time: each entry is a mapping, and only the rows of its
/// (first) `evdev` key are events; other entries (`libinput:` from `--with-libinput`) are skipped.
struct EventRows {
    private enum State {
        /// Between entries of the list.
        case entries
        /// Within an entry's mapping, whose `evdev` rows have been read when `readRows`.
        case entry(readRows: Bool)
        /// Within an entry's `evdev` rows.
        case rows
        case done
    }

    private var state = State.entries
    private static let rowKey = "evdev row [sec, usec, type, code, value]"

    /// Whether the current node (a device's `events` value) is a list to read; `false` when it is empty or null.
    static func opens(_ yaml: YAMLEventParser) throws(RecordingError) -> Bool {
        switch yaml.kind {
        case .sequenceStart:
            return true
        case .scalar:
            if yaml.scalarIs("") { return false }
            if yaml.isPlainScalar, yaml.scalarIs("null") || yaml.scalarIs("~") || yaml.scalarIs("Null") || yaml.scalarIs("NULL") {
                return false
            }
        case .streamStart, .streamEnd, .documentStart, .documentEnd, .alias, .sequenceEnd, .mappingStart, .mappingEnd:
            break
        }
        throw RecordingError(file: yaml.file, line: yaml.mark.line, column: yaml.mark.column, reason: .wrongType(key: "events", expected: "a list"))
    }

    /// The next event, or `nil` at the end of the list.
    mutating func next(_ yaml: YAMLEventParser) throws(RecordingError) -> EvdevEvent? {
        while true {
            switch state {
            case .done:
                return nil
            case .entries:
                switch try yaml.next() {
                case .sequenceEnd: state = .done
                case .mappingStart: state = .entry(readRows: false)
                default: try yaml.skipNode()
                }
            case .entry(let readRows):
                switch try yaml.next() {
                case .mappingEnd:
                    state = .entries
                case .scalar where !readRows && yaml.scalarIs("evdev"):
                    try yaml.next()
                    guard yaml.kind == .sequenceStart else {
                        throw RecordingError(
                            file: yaml.file, line: yaml.mark.line, column: yaml.mark.column,
                            reason: .wrongType(key: "evdev", expected: "a list of rows"))
                    }
                    state = .rows
                default:
                    // Another key: skip it and its value.
                    try yaml.skipNode()
                    try yaml.next()
                    try yaml.skipNode()
                }
            case .rows:
                if try yaml.next() == .sequenceEnd {
                    state = .entry(readRows: true)
                } else {
                    return try row(yaml)
                }
            }
        }
    }

    /// `[sec, usec, type, code, value]`: at least five integers (more are ignored).
    private func row(_ yaml: YAMLEventParser) throws(RecordingError) -> EvdevEvent {
        let mark = yaml.mark
        func error(_ reason: RecordingError.Reason, at place: YAMLMark = mark) -> RecordingError {
            RecordingError(file: yaml.file, line: place.line, column: place.column, reason: reason)
        }
        guard yaml.kind == .sequenceStart else { throw error(.wrongType(key: Self.rowKey, expected: "a list of integers")) }
        var v: (Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0)
        var n = 0
        var firstError: RecordingError?
        while try yaml.next() != .sequenceEnd {
            n += 1
            guard firstError == nil else {
                try yaml.skipNode()
                continue
            }
            guard yaml.kind == .scalar else {
                firstError = error(.wrongType(key: Self.rowKey, expected: "an integer"), at: yaml.mark)
                try yaml.skipNode()
                continue
            }
            guard let value = LibinputRecord.integer(yaml) else {
                firstError = error(.badNumber(field: Self.rowKey, token: yaml.scalar), at: yaml.mark)
                continue
            }
            switch n {
            case 1: v.0 = value
            case 2: v.1 = value
            case 3: v.2 = value
            case 4: v.3 = value
            case 5: v.4 = value
            default: break
            }
        }
        if n < 5 { throw error(.truncated(expected: "5 values in '\(Self.rowKey)'")) }
        if let firstError { throw firstError }
        guard v.0 >= 0, v.0 < 1 << 40, v.1 >= 0, v.1 < 1_000_000 else {
            throw error(.badNumber(field: "timestamp", token: "\(v.0), \(v.1)"))
        }
        guard let type = UInt16(exactly: v.2) else { throw error(.badNumber(field: "event type", token: String(v.2))) }
        guard let code = UInt16(exactly: v.3) else { throw error(.badNumber(field: "event code", token: String(v.3))) }
        guard let value = Int32(exactly: v.4) else { throw error(.badNumber(field: "event value", token: String(v.4))) }
        return EvdevEvent(time: MonotonicInstant(microseconds: UInt64(v.0) * 1_000_000 + UInt64(v.1)), type: type, code: code, value: value)
    }
}

/// One streamed device's events, read from its `libinput record` file as a player asks for them: the file is
/// parsed again from the start, past the devices before this one, to this device's `events` list. Owned by one
/// player (its cursor); not shared.
final class LibinputRecordEventStream: RecordedEventStream, @unchecked Sendable {
    private let yaml: YAMLEventParser?
    private let streamed: StreamedEvents
    private var rows = EventRows()
    private var positioned = false
    private var delivered = 0
    /// The next event, `nil` at the end.
    private(set) var current: EvdevEvent?
    /// Set when the file could not be read again, or no longer matches what its first pass found.
    private(set) var failure: RecordingError?

    init(_ streamed: StreamedEvents) {
        self.streamed = streamed
        do throws(RecordingError) {
            yaml = try YAMLEventParser(try YAMLInput(path: streamed.path), file: streamed.path)
        } catch {
            yaml = nil
            failure = error
        }
        advance()
    }

    func advance() {
        current = nil
        guard let yaml, failure == nil else { return }
        do throws(RecordingError) {
            if !positioned {
                positioned = true
                guard try seekEvents(yaml) else { return finish() }
            }
            if let event = try rows.next(yaml) {
                delivered += 1
                current = event
            } else {
                finish()
            }
        } catch {
            failure = error
        }
    }

    private func finish() {
        guard delivered != streamed.eventCount else { return }
        failure = streamed.changedWhilePlaying(delivered: delivered)
    }

    /// Moves to the start of this device's `events` list; `false` when it has none.
    private func seekEvents(_ yaml: YAMLEventParser) throws(RecordingError) -> Bool {
        let reader = LibinputRecord.Reader(yaml: yaml, keepsEvents: false)
        guard try yaml.next() == .streamStart, try yaml.next() == .documentStart, try yaml.next() == .mappingStart else {
            return false
        }
        while let key = try reader.nextKey() {
            guard key == "devices" else {
                try yaml.skipNode()
                continue
            }
            guard yaml.kind == .sequenceStart else { return false }
            var index = 0
            while try yaml.next() != .sequenceEnd {
                guard index == streamed.deviceIndex else {
                    try yaml.skipNode()
                    index += 1
                    continue
                }
                guard yaml.kind == .mappingStart else { return false }
                while let deviceKey = try reader.nextKey() {
                    if deviceKey == "events" { return try EventRows.opens(yaml) }
                    try yaml.skipNode()
                }
                return false
            }
            return false
        }
        return false
    }
}
