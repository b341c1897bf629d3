import EdgeSwipeVocabulary

/// A TOML syntax error: where it is, and what is wrong, in plain words.
public struct TOMLError: Error, Hashable, Sendable, CustomStringConvertible {
    public var position: TOMLPosition
    public var message: String
    /// The text may be valid TOML, but it passes one of the reader's own bounds (``TOMLReader/maxDepth``): a
    /// refusal by design, where another reader may accept.
    public var isBeyondLimit: Bool
    public init(position: TOMLPosition, message: String, isBeyondLimit: Bool = false) {
        self.position = position
        self.message = message
        self.isBeyondLimit = isBeyondLimit
    }
    public var line: Int { position.line }
    public var column: Int { position.column }
    /// `line 4, column 12: a key can be defined only once: 'edge'`.
    public var description: String { "\(position): \(message)" }
}

/// A reader of TOML 1.0.0 (https://toml.io/en/v1.0.0) in plain Swift: no Foundation, no C, so that the daemon
/// links neither for its configuration. It returns the document's root table, whose tables keep their keys in
/// the order written and where each key and header was written; anything the specification refuses is a
/// ``TOMLError`` naming the line and column. Hostile text is bounded: nesting (arrays, inline tables, keys of
/// many parts) deeper than ``maxDepth`` is refused rather than recursed into.
public struct TOMLReader {
    /// Arrays and inline tables inside each other, plus the parts of the keys that hold them, at most this deep.
    public static let maxDepth = 128

    /// Reads TOML text.
    public static func read(_ text: String) throws(TOMLError) -> TOMLTable {
        try read(Array(text.utf8))
    }

    /// Reads TOML text given as bytes, which must be UTF-8 (a leading byte-order mark is skipped).
    public static func read(_ bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        var reader = TOMLReader(bytes)
        return try reader.document()
    }

    /// `edge`, or `"two words"` for a key that is not bare.
    public static func keyText(_ key: String) -> String {
        !key.isEmpty && key.utf8.allSatisfy(isBareKeyByte) ? key : TOMLValue.quoted(key)
    }

    // MARK: - The document

    private let bytes: [UInt8]
    private var i = 0
    /// The offset at which each line starts, for positions.
    private let lineStarts: [Int]
    /// The last position worked out (line index, offset, column), so that positions along one long line cost
    /// the bytes between them, not the whole line again.
    private var columnCache = (line: -1, offset: 0, column: 1)

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        for (offset, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { starts.append(offset + 1) }
        lineStarts = starts
    }

    private mutating func document() throws(TOMLError) -> TOMLTable {
        if let bad = bytes.withUnsafeBytes({ UTF8Check.firstInvalidOffset($0) }) {
            throw fail("not UTF-8 text: byte 0x\(String(bytes[bad], radix: 16, uppercase: true))", at: bad)
        }
        if let nul = bytes.firstIndex(of: 0) { throw fail("a NUL byte; TOML text has none", at: nul) }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        let root = TableNode(origin: .root, position: TOMLPosition(line: 1, column: 1))
        var current = root
        var currentDepth = 0
        while i < bytes.count {
            skipBlanks()
            guard let c = peek() else { break }
            switch c {
            case UInt8(ascii: "#"): try comment()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try newline()
            case UInt8(ascii: "["):
                (current, currentDepth) = try header(root)
                try endOfLine(after: "a table header")
            default:
                try keyValue(into: current, depth: currentDepth)
                try endOfLine(after: "a value")
            }
        }
        return root.frozen()
    }

    /// Blanks, then a comment or nothing, then a line break or the end of the text.
    private mutating func endOfLine(after what: String) throws(TOMLError) {
        skipBlanks()
        if peek() == UInt8(ascii: "#") { try comment() }
        guard peek() != nil else { return }
        if peek() == UInt8(ascii: "\n") || peek() == UInt8(ascii: "\r") { return try newline() }
        throw fail("expected the end of the line after \(what), found \(describe(i))", at: i)
    }

    private mutating func comment() throws(TOMLError) {
        i += 1
        while let c = peek(), c != UInt8(ascii: "\n") {
            if c == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n") { return }
            if Self.isControl(c) { throw fail("\(describe(i)) is not allowed in a comment", at: i) }
            i += 1
        }
    }

    private mutating func newline() throws(TOMLError) {
        if peek() == UInt8(ascii: "\n") {
            i += 1
        } else if peek() == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n") {
            i += 2
        } else {
            throw fail("a carriage return (CR) must be followed by a line feed (LF)", at: i)
        }
    }

    /// Blanks, comments and line breaks, as arrays allow between their values.
    private mutating func skipBlankLines() throws(TOMLError) {
        while true {
            skipBlanks()
            switch peek() {
            case UInt8(ascii: "#"): try comment()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try newline()
            default: return
            }
        }
    }

    private mutating func skipBlanks() {
        while let c = peek(), c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") { i += 1 }
    }

    // MARK: - Keys and tables

    /// A key of one or more dotted parts, each with the offset where it starts.
    private mutating func key() throws(TOMLError) -> [(name: String, offset: Int)] {
        var parts: [(name: String, offset: Int)] = []
        while true {
            skipBlanks()
            let start = i
            parts.append((try simpleKey(), start))
            if parts.count > Self.maxDepth { throw fail("a key of more than \(Self.maxDepth) dotted parts", at: start, beyondLimit: true) }
            skipBlanks()
            guard peek() == UInt8(ascii: ".") else { return parts }
            i += 1
        }
    }

    private mutating func simpleKey() throws(TOMLError) -> String {
        switch peek() {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"") { throw fail("a key cannot be a multi-line string", at: i) }
            return try basicString()
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'") { throw fail("a key cannot be a multi-line string", at: i) }
            return try literalString()
        default:
            let start = i
            while let c = peek(), Self.isBareKeyByte(c) { i += 1 }
            guard i > start else {
                throw fail("expected a key (letters, digits, '_', '-' or a quoted string), found \(describe(i))", at: i)
            }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }
    }

    private static func path(_ parts: some Collection<(name: String, offset: Int)>) -> String {
        parts.map { keyText($0.name) }.joined(separator: ".")
    }

    /// `[a.b]` or `[[a.b]]`: the table that the following keys go into, and its depth.
    private mutating func header(_ root: TableNode) throws(TOMLError) -> (TableNode, Int) {
        let start = i
        i += 1
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { i += 1 }
        let parts = try key()
        let close = isArray ? "]]" : "]"
        guard peek() == UInt8(ascii: "]"), !isArray || peek(1) == UInt8(ascii: "]") else {
            throw fail("expected '\(close)' to close the table header, found \(describe(i))", at: i)
        }
        i += close.utf8.count
        let here = position(start)
        let shown = isArray ? "[[\(Self.path(parts))]]" : "[\(Self.path(parts))]"
        var table = root
        for (n, part) in parts.dropLast().enumerated() {
            let sofar = Self.path(parts.prefix(n + 1))
            switch table.children[part.name] {
            case nil:
                let created = TableNode(origin: .implicit, position: here)
                table.add(part.name, .table(created), at: here)
                table = created
            case .table(let t):
                table = t
            case .tables(let list):
                guard let last = list.tables.last else { throw fail("an empty array of tables '\(sofar)'", at: part.offset) }
                table = last
            case .value(let v):
                throw fail("\(shown): '\(sofar)' is already \(Self.kind(v)) (\(table.positions[part.name] ?? here)), not a table", at: part.offset)
            }
        }
        guard let last = parts.last else { throw fail("a table header needs a name", at: start) }
        let name = Self.path(parts)
        let defined = table.positions[last.name].map { " (\($0))" } ?? ""
        let created = TableNode(origin: .header, position: here)
        switch (table.children[last.name], isArray) {
        case (nil, false):
            table.add(last.name, .table(created), at: here)
        case (nil, true):
            table.add(last.name, .tables(TableArrayNode(created)), at: here)
        case (.tables(let list), true):
            list.tables.append(created)
        case (.table(let t), false):
            switch t.origin {
            case .implicit:
                // Only named on the way to a deeper header so far: this header defines it.
                t.origin = .header
                t.position = here
                table.positions[last.name] = here
                return (t, parts.count)
            case .header, .root:
                throw fail("the table [\(name)] is defined twice\(table.positions[last.name].map { " (first at \($0))" } ?? "")", at: start)
            case .dotted:
                throw fail("the table '\(name)' was defined by dotted keys\(defined); a [header] cannot define it again", at: start)
            case .inline:
                throw fail("'\(name)' is an inline table\(defined), which cannot be extended", at: start)
            }
        case (.table, true):
            throw fail("'\(name)' is already a table\(defined); [[\(name)]] cannot make it an array of tables", at: start)
        case (.tables, false):
            throw fail("'\(name)' is an array of tables\(defined); [\(name)] cannot define it", at: start)
        case (.value(.array), true):
            throw fail("'\(name)' is a static array\(defined); [[\(name)]] cannot append to it", at: start)
        case (.value(let v), _):
            throw fail("'\(name)' is already \(Self.kind(v))\(defined), not a table", at: start)
        }
        return (created, parts.count)
    }

    /// `key = value` (the key perhaps dotted), into `table`.
    private mutating func keyValue(into table: TableNode, depth: Int) throws(TOMLError) {
        let parts = try key()
        guard peek() == UInt8(ascii: "=") else {
            throw fail("expected '=' after the key '\(Self.path(parts))', found \(describe(i))", at: i)
        }
        i += 1
        skipBlanks()
        let value = try value(depth: depth + parts.count)
        try insert(parts, value, into: table)
    }

    private mutating func insert(_ parts: [(name: String, offset: Int)], _ value: TOMLValue, into root: TableNode) throws(TOMLError) {
        var table = root
        for (n, part) in parts.dropLast().enumerated() {
            let sofar = Self.path(parts.prefix(n + 1))
            let defined = table.positions[part.name].map { " (\($0))" } ?? ""
            switch table.children[part.name] {
            case nil:
                let created = TableNode(origin: .dotted, position: position(part.offset))
                table.add(part.name, .table(created), at: position(part.offset))
                table = created
            case .table(let t):
                guard t.origin == .dotted else {
                    throw fail("the table '\(sofar)' is defined by a header elsewhere\(defined); a dotted key cannot add to it", at: part.offset)
                }
                table = t
            case .tables:
                throw fail("'\(sofar)' is an array of tables\(defined); a dotted key cannot add to it", at: part.offset)
            case .value(.table):
                throw fail("'\(sofar)' is an inline table\(defined), which cannot be extended", at: part.offset)
            case .value(let v):
                throw fail("'\(sofar)' is already \(Self.kind(v))\(defined), not a table", at: part.offset)
            }
        }
        guard let last = parts.last else { return }
        if table.children[last.name] != nil {
            let defined = table.positions[last.name].map { " (first at \($0))" } ?? ""
            throw fail("a key can be defined only once: '\(Self.path(parts))'\(defined)", at: last.offset)
        }
        table.add(last.name, .value(value), at: position(parts[0].offset))
    }

    private static func kind(_ v: TOMLValue) -> String {
        switch v {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .offsetDateTime, .localDateTime, .localDate, .localTime: "a date/time"
        case .array: "a static array"
        case .table: "an inline table"
        }
    }

    // MARK: - Values

    private mutating func value(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth <= Self.maxDepth else { throw fail("values nested more than \(Self.maxDepth) deep", at: i, beyondLimit: true) }
        guard let c = peek() else { throw fail("expected a value, found the end of the text", at: i) }
        switch c {
        case UInt8(ascii: "\""):
            if peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"") { return .string(try multilineString(literal: false)) }
            return .string(try basicString())
        case UInt8(ascii: "'"):
            if peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'") { return .string(try multilineString(literal: true)) }
            return .string(try literalString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            for (word, b) in [("true", true), ("false", false)] where matches(word) {
                i += word.utf8.count
                return .boolean(b)
            }
            throw fail("expected a value, found \(describe(i)) (true and false are lower case)", at: i)
        case UInt8(ascii: "["):
            return try array(depth: depth + 1)
        case UInt8(ascii: "{"):
            return try inlineTable(depth: depth + 1)
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            if (0..<4).allSatisfy({ Self.isDigit(peek($0)) }) && peek(4) == UInt8(ascii: "-") { return try dateTime() }
            if Self.isDigit(peek(1)) && peek(2) == UInt8(ascii: ":") { return .localTime(try time()) }
            return try number()
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "i"), UInt8(ascii: "n"):
            return try number()
        default:
            throw fail("expected a value, found \(describe(i))", at: i)
        }
    }

    private func matches(_ word: String) -> Bool {
        word.utf8.enumerated().allSatisfy { peek($0.offset) == $0.element }
    }

    private mutating func array(depth: Int) throws(TOMLError) -> TOMLValue {
        let start = i
        i += 1
        var items: [TOMLValue] = []
        while true {
            try skipBlankLines()
            guard peek() != nil else { throw fail("an array opened here is never closed with ']'", at: start) }
            if peek() == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            items.append(try value(depth: depth))
            try skipBlankLines()
            switch peek() {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "]"):
                i += 1
                return .array(items)
            case nil: throw fail("an array opened here is never closed with ']'", at: start)
            default: throw fail("expected ',' or ']' after a value in an array, found \(describe(i))", at: i)
            }
        }
    }

    private mutating func inlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        let start = i
        i += 1
        let table = TableNode(origin: .inline, position: position(start))
        skipBlanks()
        if peek() == UInt8(ascii: "}") {
            i += 1
            return .table(table.frozen())
        }
        while true {
            let parts = try key()
            guard peek() == UInt8(ascii: "=") else {
                throw fail("expected '=' after the key '\(Self.path(parts))', found \(describe(i))", at: i)
            }
            i += 1
            skipBlanks()
            let value = try value(depth: depth + parts.count - 1)
            try insert(parts, value, into: table)
            skipBlanks()
            switch peek() {
            case UInt8(ascii: ","):
                i += 1
                skipBlanks()
                if peek() == UInt8(ascii: "}") { throw fail("an inline table has no comma after its last value", at: i) }
            case UInt8(ascii: "}"):
                i += 1
                return .table(table.frozen())
            case nil:
                throw fail("an inline table opened here is never closed with '}'", at: start)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw fail("an inline table must be on one line (found a line break before its '}')", at: i)
            default:
                throw fail("expected ',' or '}' after a value in an inline table, found \(describe(i))", at: i)
            }
        }
    }

    // MARK: - Strings

    private mutating func basicString() throws(TOMLError) -> String {
        let start = i
        i += 1
        var out: [UInt8] = []
        while true {
            guard let c = peek() else { throw fail("a string opened here is never closed with '\"'", at: start) }
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw fail("a string opened here is not closed on its line (a multi-line string is written \"\"\"...\"\"\")", at: start)
            default:
                if Self.isControl(c) { throw fail("\(describe(i)) is not allowed in a string; write it as an escape", at: i) }
                out.append(c)
                i += 1
            }
        }
    }

    private mutating func literalString() throws(TOMLError) -> String {
        let start = i
        i += 1
        while true {
            guard let c = peek() else { throw fail("a string opened here is never closed with \"'\"", at: start) }
            switch c {
            case UInt8(ascii: "'"):
                i += 1
                return String(decoding: bytes[(start + 1)..<(i - 1)], as: UTF8.self)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw fail("a literal string opened here is not closed on its line (a multi-line one is written '''...''')", at: start)
            default:
                if Self.isControl(c) { throw fail("\(describe(i)) is not allowed in a literal string", at: i) }
                i += 1
            }
        }
    }

    /// `"""..."""` or `'''...'''`: a line break right after the opening quotes is dropped; up to two quotes may
    /// stand right before the closing three; in the basic form a backslash at the end of a line removes the line
    /// break and the blanks after it. A CRLF inside reads as LF.
    private mutating func multilineString(literal: Bool) throws(TOMLError) -> String {
        let start = i
        let quote = literal ? UInt8(ascii: "'") : UInt8(ascii: "\"")
        i += 3
        if peek() == UInt8(ascii: "\n") {
            i += 1
        } else if peek() == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n") {
            i += 2
        }
        var out: [UInt8] = []
        while true {
            guard let c = peek() else {
                throw fail("a multi-line string opened here is never closed with \(literal ? "'''" : "\"\"\"")", at: start)
            }
            switch c {
            case quote:
                var run = 0
                while peek(run) == quote { run += 1 }
                if run >= 3 {
                    guard run <= 5 else { throw fail("too many quotes: at most two may stand before the closing three", at: i + 5) }
                    out.append(contentsOf: repeatElement(quote, count: run - 3))
                    i += run
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(contentsOf: repeatElement(quote, count: run))
                i += run
            case UInt8(ascii: "\\") where !literal:
                var j = i + 1
                while j < bytes.count, bytes[j] == UInt8(ascii: " ") || bytes[j] == UInt8(ascii: "\t") { j += 1 }
                if j < bytes.count, bytes[j] == UInt8(ascii: "\n") || bytes[j] == UInt8(ascii: "\r") {
                    // A line-ending backslash: the break and every blank or break after it go.
                    i = j
                    while let d = peek(), d == UInt8(ascii: " ") || d == UInt8(ascii: "\t") || d == UInt8(ascii: "\n") || d == UInt8(ascii: "\r") {
                        if d == UInt8(ascii: "\r") { try newline() } else { i += 1 }
                    }
                } else {
                    try escape(into: &out)
                }
            case UInt8(ascii: "\n"):
                out.append(c)
                i += 1
            case UInt8(ascii: "\r"):
                try newline()
                out.append(UInt8(ascii: "\n"))
            default:
                if Self.isControl(c) { throw fail("\(describe(i)) is not allowed in a string\(literal ? "" : "; write it as an escape")", at: i) }
                out.append(c)
                i += 1
            }
        }
    }

    private mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        let start = i
        i += 1
        guard let c = peek() else { throw fail("a backslash at the end of the text", at: start) }
        i += 1
        let simple: UInt8? =
            switch c {
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "t"): 0x09
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "\""): c
            case UInt8(ascii: "\\"): c
            default: nil
            }
        if let simple { return out.append(simple) }
        guard c == UInt8(ascii: "u") || c == UInt8(ascii: "U") else {
            throw fail("\\\(describeScalar(start + 1)) is not a TOML escape (\\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)", at: start)
        }
        let count = c == UInt8(ascii: "u") ? 4 : 8
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let d = peek(), let h = Self.hexValue(d) else {
                throw fail("\\\(c == UInt8(ascii: "u") ? "u" : "U") needs \(count) hexadecimal digits", at: start)
            }
            value = value << 4 | UInt32(h)
            i += 1
        }
        guard let scalar = Unicode.Scalar(value) else {
            let hex = String(value, radix: 16, uppercase: true)
            throw fail("U+\(hex) is not a Unicode scalar value (a surrogate or past U+10FFFF)", at: start)
        }
        UTF8.encode(scalar) { out.append($0) }
    }

    // MARK: - Numbers

    private mutating func number() throws(TOMLError) -> TOMLValue {
        let start = i
        while let c = peek(), Self.isNumberByte(c) { i += 1 }
        let token = Array(bytes[start..<i])
        func bad(_ why: String) -> TOMLError {
            fail("'\(String(decoding: token, as: UTF8.self))' is not a number: \(why)", at: start)
        }
        guard !token.isEmpty else { throw fail("expected a value, found \(describe(start))", at: start) }
        var body = token[...]
        var negative = false
        if let s = body.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") {
            negative = s == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        if body.elementsEqual("inf".utf8) { return .float(negative ? -.infinity : .infinity) }
        if body.elementsEqual("nan".utf8) { return .float(negative ? -.nan : .nan) }
        if body.count > 1, body.first == UInt8(ascii: "0"), let r = body.dropFirst().first,
           let radix = [UInt8(ascii: "x"): 16, UInt8(ascii: "o"): 8, UInt8(ascii: "b"): 2][r] {
            guard token.count == body.count else { throw bad("a hexadecimal, octal or binary integer has no sign") }
            let digits = body.dropFirst(2)
            guard let magnitude = Self.digits(digits, radix: radix) else {
                throw bad("digits of base \(radix), with '_' only between two of them")
            }
            guard magnitude <= UInt64(Int64.max) else { throw bad("out of the 64-bit range") }
            return .integer(Int64(magnitude))
        }
        let isFloat = body.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        // The whole part: decimal digits, no leading zero.
        let intEnd = body.firstIndex { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } ?? body.endIndex
        let intPart = body[..<intEnd]
        guard Self.digits(intPart, radix: 10, wide: true) else {
            throw bad(intPart.isEmpty ? "digits needed before '.' or the exponent" : "decimal digits, with '_' only between two of them")
        }
        if intPart.count > 1 && intPart.first == UInt8(ascii: "0") { throw bad("a leading zero is allowed only in 0 itself") }
        if !isFloat {
            guard let magnitude = Self.digits(intPart, radix: 10) else { throw bad("out of the 64-bit range") }
            let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
            guard magnitude <= limit else { throw bad("out of the 64-bit range") }
            return .integer(negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude))
        }
        var rest = body[intEnd...]
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let fracEnd = rest.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } ?? rest.endIndex
            guard Self.digits(rest[..<fracEnd], radix: 10, wide: true) else { throw bad("digits needed after '.'") }
            rest = rest[fracEnd...]
        }
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if let s = rest.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { rest = rest.dropFirst() }
            guard Self.digits(rest, radix: 10, wide: true) else { throw bad("digits needed in the exponent") }
        }
        let plain = String(decoding: token.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        guard let x = Double(plain) else { throw bad("out of range") }
        // A literal past binary64's range would read as infinity, silently: `inf` is how TOML spells that, so a
        // number that overflows is refused like an integer past 64 bits (found by `scripts/fuzz.sh config`: toml++
        // refuses it too). One that underflows reads as 0, as in toml++.
        guard x.isFinite else { throw bad("out of the 64-bit float range (write inf for infinity)") }
        return .float(x)
    }

    /// The value of digits of `radix` with `_` only between two digits; `nil` when they are not that, or do not
    /// fit 64 bits.
    private static func digits(_ s: ArraySlice<UInt8>, radix: Int) -> UInt64? {
        guard digits(s, radix: radix, wide: true) else { return nil }
        var value: UInt64 = 0
        for c in s where c != UInt8(ascii: "_") {
            guard let d = hexValue(c) else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: UInt64(radix))
            let (a, o2) = m.addingReportingOverflow(UInt64(d))
            if o1 || o2 { return nil }
            value = a
        }
        return value
    }

    /// Whether `s` is digits of `radix` with `_` only between two digits (of any length).
    private static func digits(_ s: ArraySlice<UInt8>, radix: Int, wide: Bool) -> Bool {
        guard let first = s.first, let last = s.last, first != UInt8(ascii: "_"), last != UInt8(ascii: "_") else { return false }
        var previous: UInt8 = 0
        for c in s {
            if c == UInt8(ascii: "_") {
                if previous == UInt8(ascii: "_") { return false }
            } else {
                guard let d = hexValue(c), d < radix else { return false }
            }
            previous = c
        }
        return true
    }

    // MARK: - Dates and times

    private mutating func dateTime() throws(TOMLError) -> TOMLValue {
        let start = i
        let year = try fixedDigits(4, "the year")
        try expect(UInt8(ascii: "-"), "in a date (YYYY-MM-DD)")
        let month = try fixedDigits(2, "the month")
        try expect(UInt8(ascii: "-"), "in a date (YYYY-MM-DD)")
        let day = try fixedDigits(2, "the day")
        guard (1...12).contains(month) else { throw fail("month \(month) is not 1 to 12", at: start) }
        let days = [31, Self.isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else {
            throw fail("day \(day) is not 1 to \(days) (month \(month) of \(year))", at: start)
        }
        let date = TOMLLocalDate(year: year, month: month, day: day)
        if peek() == UInt8(ascii: "T") || peek() == UInt8(ascii: "t") {
            i += 1
        } else if peek() == UInt8(ascii: " ") && Self.isDigit(peek(1)) && Self.isDigit(peek(2)) && peek(3) == UInt8(ascii: ":") {
            i += 1
        } else {
            return .localDate(date)
        }
        let time = try time()
        switch peek() {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
            return .offsetDateTime(TOMLOffsetDateTime(date: date, time: time, offsetMinutes: 0))
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = peek() == UInt8(ascii: "-") ? -1 : 1
            let at = i
            i += 1
            let hours = try fixedDigits(2, "the offset's hours")
            try expect(UInt8(ascii: ":"), "in an offset (+HH:MM)")
            let minutes = try fixedDigits(2, "the offset's minutes")
            guard hours <= 23, minutes <= 59 else { throw fail("the offset \(hours):\(minutes) is not 00:00 to 23:59", at: at) }
            return .offsetDateTime(TOMLOffsetDateTime(date: date, time: time, offsetMinutes: sign * (hours * 60 + minutes)))
        default:
            return .localDateTime(TOMLLocalDateTime(date: date, time: time))
        }
    }

    private mutating func time() throws(TOMLError) -> TOMLLocalTime {
        let start = i
        let hour = try fixedDigits(2, "the hour")
        try expect(UInt8(ascii: ":"), "in a time (HH:MM:SS)")
        let minute = try fixedDigits(2, "the minutes")
        try expect(UInt8(ascii: ":"), "in a time (HH:MM:SS; TOML 1.0 needs the seconds)")
        let second = try fixedDigits(2, "the seconds")
        var nanosecond = 0
        if peek() == UInt8(ascii: ".") {
            i += 1
            guard Self.isDigit(peek()) else { throw fail("digits needed after the '.' of the seconds", at: i) }
            var n = 0
            while let c = peek(), Self.isDigit(c) {
                if n < 9 { nanosecond = nanosecond * 10 + Int(c - UInt8(ascii: "0")) }
                n += 1
                i += 1
            }
            for _ in n..<max(n, 9) { nanosecond *= 10 }
        }
        guard hour <= 23 else { throw fail("hour \(hour) is not 0 to 23", at: start) }
        guard minute <= 59 else { throw fail("minute \(minute) is not 0 to 59", at: start) }
        guard second <= 60 else { throw fail("second \(second) is not 0 to 60", at: start) }
        return TOMLLocalTime(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
    }

    private mutating func fixedDigits(_ count: Int, _ what: String) throws(TOMLError) -> Int {
        var value = 0
        for _ in 0..<count {
            guard let c = peek(), Self.isDigit(c) else { throw fail("expected \(count) digits for \(what), found \(describe(i))", at: i) }
            value = value * 10 + Int(c - UInt8(ascii: "0"))
            i += 1
        }
        return value
    }

    private mutating func expect(_ c: UInt8, _ context: String) throws(TOMLError) {
        guard peek() == c else { throw fail("expected '\(Character(Unicode.Scalar(c)))' \(context), found \(describe(i))", at: i) }
        i += 1
    }

    private static func isLeap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    // MARK: - Bytes and places

    private func peek(_ ahead: Int = 0) -> UInt8? {
        i + ahead < bytes.count ? bytes[i + ahead] : nil
    }

    private static func isDigit(_ c: UInt8?) -> Bool {
        guard let c else { return false }
        return c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")
    }

    static func isBareKeyByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// What a number or a special float is written with; its grammar is checked afterwards.
    private static func isNumberByte(_ c: UInt8) -> Bool {
        isBareKeyByte(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: ".")
    }

    /// The control characters TOML refuses in comments and strings: U+0000 to U+001F but tab, and DEL. (Line
    /// breaks are handled before this is asked.)
    private static func isControl(_ c: UInt8) -> Bool { (c < 0x20 && c != 0x09) || c == 0x7F }

    private static func hexValue(_ c: UInt8) -> Int? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(c - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(c - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    /// The character at `offset`, said for an error: `'='`, `a line break`, `U+0003`, `the end of the text`.
    private func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the text" }
        switch bytes[offset] {
        case UInt8(ascii: "\n"): return "a line break"
        case UInt8(ascii: "\r"): return "a carriage return"
        case UInt8(ascii: "\t"): return "a tab"
        default:
            let scalar = describeScalar(offset)
            if let u = scalar.unicodeScalars.first, u.value < 0x20 || u.value == 0x7F {
                return "the control character U+" + String(u.value, radix: 16, uppercase: true).leftPadded(to: 4)
            }
            return "'\(scalar)'"
        }
    }

    /// The Unicode scalar that starts at `offset`, as a string.
    private func describeScalar(_ offset: Int) -> String {
        guard offset < bytes.count else { return "" }
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    private mutating func position(_ offset: Int) -> TOMLPosition {
        // The last line starting at or before `offset`.
        var lo = 0
        var hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        var from = lineStarts[lo]
        var column = 1
        if columnCache.line == lo && columnCache.offset <= offset {
            from = columnCache.offset
            column = columnCache.column
        }
        var k = from
        while k < offset && k < bytes.count {
            if bytes[k] & 0xC0 != 0x80 { column += 1 }
            k += 1
        }
        columnCache = (lo, offset, column)
        return TOMLPosition(line: lo + 1, column: column)
    }

    private mutating func fail(_ message: String, at offset: Int, beyondLimit: Bool = false) -> TOMLError {
        TOMLError(position: position(offset), message: message, isBeyondLimit: beyondLimit)
    }
}

/// A table while the text is read: mutable, shared between the place that made it and the header that fills
/// it, and marked with how it came to be, which decides what may still add to it.
private final class TableNode {
    enum Origin {
        case root
        /// Named on the way to a deeper header (`a` of `[a.b]`); a later `[a]` may still define it.
        case implicit
        /// Defined by its own header.
        case header
        /// Made by a dotted key (`a.b = 1` makes `a`); only more dotted keys of the same table add to it.
        case dotted
        /// An inline table being read; once read it is a value, which nothing extends.
        case inline
    }
    enum Child {
        case table(TableNode)
        case tables(TableArrayNode)
        case value(TOMLValue)
    }

    var origin: Origin
    var position: TOMLPosition
    var keys: [String] = []
    var children: [String: Child] = [:]
    var positions: [String: TOMLPosition] = [:]

    init(origin: Origin, position: TOMLPosition) {
        self.origin = origin
        self.position = position
    }

    func add(_ key: String, _ child: Child, at position: TOMLPosition) {
        keys.append(key)
        children[key] = child
        positions[key] = position
    }

    func frozen() -> TOMLTable {
        var table = TOMLTable(position: position)
        for key in keys {
            guard let child = children[key], let at = positions[key] else { continue }
            switch child {
            case .table(let t): table.set(key, .table(t.frozen()), at: at)
            case .tables(let list): table.set(key, .array(list.tables.map { .table($0.frozen()) }), at: at)
            case .value(let v): table.set(key, v, at: at)
            }
        }
        return table
    }
}

private final class TableArrayNode {
    var tables: [TableNode]
    init(_ first: TableNode) { tables = [first] }
}
