import EdgeSwipeVocabulary

/// A place in a TOML text: 1-based line, and 1-based column counted in Unicode scalars.
public struct TOMLPosition: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
    public var description: String { "line \(line), column \(column)" }
}

/// A TOML local date (`1979-05-27`).
public struct TOMLLocalDate: Hashable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
    public var description: String { "\(String(year).leftPadded(to: 4))-\(String(month).leftPadded(to: 2))-\(String(day).leftPadded(to: 2))" }
}

/// A TOML local time (`07:32:00.999`); `nanosecond` keeps up to nine fractional digits (more are cut off).
public struct TOMLLocalTime: Hashable, Sendable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var nanosecond: Int
    public init(hour: Int, minute: Int, second: Int, nanosecond: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }
    public var description: String {
        var s = "\(String(hour).leftPadded(to: 2)):\(String(minute).leftPadded(to: 2)):\(String(second).leftPadded(to: 2))"
        if nanosecond != 0 {
            var fraction = String(nanosecond).leftPadded(to: 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            s += "." + fraction
        }
        return s
    }
}

/// A TOML local date-time (`1979-05-27T07:32:00`).
public struct TOMLLocalDateTime: Hashable, Sendable, CustomStringConvertible {
    public var date: TOMLLocalDate
    public var time: TOMLLocalTime
    public init(date: TOMLLocalDate, time: TOMLLocalTime) {
        self.date = date
        self.time = time
    }
    public var description: String { "\(date)T\(time)" }
}

/// A TOML offset date-time (`1979-05-27T07:32:00-07:00`); `offsetMinutes` is east of UTC (`Z` is 0).
public struct TOMLOffsetDateTime: Hashable, Sendable, CustomStringConvertible {
    public var date: TOMLLocalDate
    public var time: TOMLLocalTime
    public var offsetMinutes: Int
    public init(date: TOMLLocalDate, time: TOMLLocalTime, offsetMinutes: Int) {
        self.date = date
        self.time = time
        self.offsetMinutes = offsetMinutes
    }
    public var description: String {
        if offsetMinutes == 0 { return "\(date)T\(time)Z" }
        let m = abs(offsetMinutes)
        return "\(date)T\(time)\(offsetMinutes < 0 ? "-" : "+")\(String(m / 60).leftPadded(to: 2)):\(String(m % 60).leftPadded(to: 2))"
    }
}

/// A value read from TOML text (``TOMLReader``).
public enum TOMLValue: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case offsetDateTime(TOMLOffsetDateTime)
    case localDateTime(TOMLLocalDateTime)
    case localDate(TOMLLocalDate)
    case localTime(TOMLLocalTime)
    case array([TOMLValue])
    case table(TOMLTable)

    public var string: String? { if case .string(let s) = self { s } else { nil } }
    /// An integer that fits `Int` (on 64-bit Linux every TOML integer does).
    public var int: Int? { if case .integer(let i) = self { Int(exactly: i) } else { nil } }
    /// A float; an integer is not one (``number`` takes either).
    public var double: Double? { if case .float(let x) = self { x } else { nil } }
    /// A float, or an integer as a `Double`.
    public var number: Double? {
        switch self {
        case .float(let x): x
        case .integer(let i): Double(i)
        default: nil
        }
    }
    public var bool: Bool? { if case .boolean(let b) = self { b } else { nil } }
    public var array: [TOMLValue]? { if case .array(let a) = self { a } else { nil } }
    public var table: TOMLTable? { if case .table(let t) = self { t } else { nil } }

    /// The value as TOML writes it (strings quoted), for error messages: `"fast"`, `45`, `1979-05-27`.
    public var description: String {
        switch self {
        case .string(let s): TOMLValue.quoted(s)
        case .integer(let i): String(i)
        case .float(let x): x.isNaN ? "nan" : x == .infinity ? "inf" : x == -.infinity ? "-inf" : String(x)
        case .boolean(let b): b ? "true" : "false"
        case .offsetDateTime(let d): d.description
        case .localDateTime(let d): d.description
        case .localDate(let d): d.description
        case .localTime(let t): t.description
        case .array(let a): "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .table(let t): t.description
        }
    }

    /// A TOML basic string: `"` and `\` escaped, and the control characters (TOML forbids all but tab raw in a
    /// basic string, DEL included) as their short escapes or `\uXXXX`. The configuration's renderer writes its
    /// strings with it.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\u{8}": out += "\\b"
            case "\u{c}": out += "\\f"
            default:
                if u.value < 0x20 || u.value == 0x7f {
                    out += "\\u" + String(u.value, radix: 16, uppercase: true).leftPadded(to: 4)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}

/// A TOML table: its keys in the order the text defined them, each with the place it was defined.
public struct TOMLTable: Hashable, Sendable, CustomStringConvertible {
    public struct Entry: Hashable, Sendable {
        public var key: String
        public var value: TOMLValue
        /// Where the key was written: the key of `key = value`, the first key of a dotted key that created a
        /// table, or the header (`[a.b]`, `[[a]]`) that defined it.
        public var position: TOMLPosition
    }

    public private(set) var entries: [Entry] = []
    private var index: [String: Int] = [:]
    /// Where the table was defined: its header, the dotted key that created it, its `{`, or 1:1 for the root.
    public var position: TOMLPosition

    public init(position: TOMLPosition = TOMLPosition(line: 1, column: 1)) {
        self.position = position
    }

    public var keys: [String] { entries.map(\.key) }
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public subscript(key: String) -> TOMLValue? { index[key].map { entries[$0].value } }

    /// Where `key` was defined, or `nil` when the table has no such key.
    public func position(of key: String) -> TOMLPosition? { index[key].map { entries[$0].position } }

    /// Appends `key` (last in order), or replaces its value where it is.
    public mutating func set(_ key: String, _ value: TOMLValue, at position: TOMLPosition) {
        if let i = index[key] {
            entries[i].value = value
        } else {
            index[key] = entries.count
            entries.append(Entry(key: key, value: value, position: position))
        }
    }

    /// Equal keys in the same order with equal values; where they were written does not count.
    public static func == (a: TOMLTable, b: TOMLTable) -> Bool {
        a.entries.count == b.entries.count && zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
    public func hash(into h: inout Hasher) {
        for e in entries {
            h.combine(e.key)
            h.combine(e.value)
        }
    }

    public var description: String {
        "{" + entries.map { " \(TOMLReader.keyText($0.key)) = \($0.value)" }.joined(separator: ",") + (entries.isEmpty ? "}" : " }")
    }
}
