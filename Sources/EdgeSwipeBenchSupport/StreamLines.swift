// The protocol's NDJSON lines read and rewritten as bytes, without a JSON parser: what the benchmarks do per line,
// where a parser's cost would be in the figure.

/// Byte searches in one stream line.
public enum LineBytes {
    private static let timeKey = Array(#""time_us":"#.utf8)

    /// Where `key` starts in `line`, if it does.
    public static func find(_ key: [UInt8], in line: ArraySlice<UInt8>) -> Int? {
        var i = line.startIndex
        let last = line.endIndex - key.count
        while i <= last {
            if line[i] == key[0] && line[i..<(i + key.count)].elementsEqual(key) { return i }
            i += 1
        }
        return nil
    }

    /// The value of `"time_us":` in a line, without a JSON parser (the field is an unsigned integer).
    public static func timeUS(in line: ArraySlice<UInt8>) -> UInt64? {
        let key = timeKey
        if let i = find(key, in: line) {
            do {
                var j = i + key.count
                var value: UInt64 = 0
                var digits = 0
                while j < line.endIndex, line[j] >= 48, line[j] <= 57 {
                    value = value &* 10 &+ UInt64(line[j] - 48)
                    j += 1
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
        }
        return nil
    }
}

/// One captured stream line, ready to be sent again with other numbers: its sequence number, its times (`time_us`
/// and a run-out's `start_time_us`/`end_time_us`) moved, its transition id moved (a transition's `id`, another
/// message's `transition`). The numbers are found once, by their keys' text, so every sending is a splice.
public struct CapturedLine: Sendable {
    enum Field: Sendable { case seq, time, transition }

    public let bytes: [UInt8]
    /// The message's `type` (`transition`, `gesture`, ...).
    public let type: String
    public let timeUS: UInt64
    /// The transition it belongs to, if any.
    public let transition: UInt64?
    /// A transition's `completed` phase: the line a rule's effect follows.
    public let completes: Bool
    private let fields: [(field: Field, range: Range<Int>, value: UInt64)]

    public init(_ bytes: [UInt8]) {
        let typeKey = Array(#"{"type":""#.utf8)
        var kind = ""
        if bytes.starts(with: typeKey), let end = bytes[typeKey.count...].firstIndex(of: UInt8(ascii: "\"")) {
            kind = String(decoding: bytes[typeKey.count..<end], as: UTF8.self)
        }
        var found: [(field: Field, range: Range<Int>, value: UInt64)] = []
        func integer(_ key: String, as field: Field) {
            let pattern = Array("\"\(key)\":".utf8)
            guard let at = LineBytes.find(pattern, in: bytes[...]) else { return }
            var end = at + pattern.count
            var value: UInt64 = 0
            while end < bytes.count, bytes[end] >= 48, bytes[end] <= 57 {
                value = value &* 10 &+ UInt64(bytes[end] - 48)
                end += 1
            }
            if end > at + pattern.count { found.append((field: field, range: (at + pattern.count)..<end, value: value)) }
        }
        integer("seq", as: .seq)
        integer("time_us", as: .time)
        integer("start_time_us", as: .time)
        integer("end_time_us", as: .time)
        integer(kind == "transition" ? "id" : "transition", as: .transition)
        found.sort { $0.range.lowerBound < $1.range.lowerBound }
        self.bytes = bytes
        type = kind
        fields = found
        timeUS = found.first { $0.field == .time }?.value ?? 0
        transition = found.first { $0.field == .transition }?.value
        completes = kind == "transition" && LineBytes.find(Array(#""phase":"completed""#.utf8), in: bytes[...]) != nil
    }

    /// The line with sequence number `seq`, its times moved by `timeShift` and its transition id by `idShift`
    /// microseconds and ids, and its newline.
    public func sent(seq: UInt64, timeShift: Int64 = 0, idShift: Int64 = 0) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var from = 0
        for f in fields {
            out += bytes[from..<f.range.lowerBound]
            let value: UInt64
            switch f.field {
            case .seq: value = seq
            case .time: value = UInt64(clamping: Int64(clamping: f.value) &+ timeShift)
            case .transition: value = UInt64(clamping: Int64(clamping: f.value) &+ idShift)
            }
            out += Array(String(value).utf8)
            from = f.range.upperBound
        }
        out += bytes[from...]
        out.append(UInt8(ascii: "\n"))
        return out
    }
}
