/// A parsed JSON value, for reading requests (and received lines, the state file and the benchmark's report; a
/// tree built in code is written by ``JSONWriter/value(_:pretty:)``).
///
/// Requests are few and small, so they are parsed into a tree; a hand-written parser (rather than
/// `JSONSerialization`) gives errors that say at which byte and why, and caps the nesting depth so a hostile
/// line cannot exhaust the stack.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A name for the kind of value, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// An array or an object (what a pretty document puts on lines of its own).
    var isContainer: Bool {
        switch self {
        case .array, .object: true
        case .null, .bool, .integer, .number, .string: false
        }
    }

    /// The value as a double, for integers and numbers.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        case .null, .bool, .string, .array, .object: nil
        }
    }
}

/// Why a line is not JSON, and at which byte (0-based) the parser gave up.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses exactly one JSON value (surrounded by optional whitespace).
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 32) throws(JSONSyntaxError) -> JSONValue {
        // JSON text is UTF-8 (RFC 8259): a bad byte is an error at its place, never silently replaced.
        if let bad = UTF8Check.firstInvalidOffset(bytes) {
            throw JSONSyntaxError(offset: bad, reason: "invalid UTF-8 (0x\(String(bytes[bad], radix: 16, uppercase: true)))")
        }
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: index, reason: reason) }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { index += 1 }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard let c = current else { throw error("unexpected end of input, expected a value") }
        switch c {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character '\(Self.printable(c))', expected a value")
        }
    }

    static func printable(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let matched = word.withUTF8Buffer { w -> Bool in
            guard index + w.count <= bytes.count else { return false }
            for i in 0..<w.count where bytes[index + i] != w[i] { return false }
            return true
        }
        guard matched else { throw error("invalid literal, expected '\(word)'") }
        index += word.utf8CodeUnitCount
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= maxDepth else { throw error("nested deeper than \(maxDepth) levels") }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key in the object") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after the key \"\(key)\"") }
            index += 1
            skipWhitespace()
            members[key] = try value(depth: depth)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw error("expected ',' or '}' in the object")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= maxDepth else { throw error("nested deeper than \(maxDepth) levels") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw error("expected ',' or ']' in the array")
            }
        }
    }

    mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        var isInteger = true
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            throw error("expected a digit")
        }
        if first == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard try skipRequiredDigits() else { throw error("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try skipRequiredDigits() else { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int64(text) { return .integer(i) }
        guard let d = Double(text), d.isFinite else {
            throw JSONSyntaxError(offset: start, reason: "number '\(text)' is out of range")
        }
        return .number(d)
    }

    mutating func skipDigits() {
        while let c = current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { index += 1 }
    }

    mutating func skipRequiredDigits() throws(JSONSyntaxError) -> Bool {
        let start = index
        skipDigits()
        return index > start
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard let c = current else { throw error("unterminated string") }
            index += 1
            switch c {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            case 0..<0x20:
                index -= 1
                throw error("control character in a string (escape it)")
            default:
                out.append(c)
            }
        }
    }

    mutating func escape(into out: inout [UInt8]) throws(JSONSyntaxError) {
        guard let c = current else { throw error("unterminated escape") }
        index += 1
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(c)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate in \\u escape")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired surrogate in \\u escape")
            }
            guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            out.append(contentsOf: Array(String(Character(u)).utf8))
        default:
            index -= 1
            throw error("invalid escape '\\\(Self.printable(c))'")
        }
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | digit
            index += 1
        }
        return v
    }
}
