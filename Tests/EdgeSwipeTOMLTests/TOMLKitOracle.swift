// TOMLKit (toml++ 3.4) as the oracle our TOML reader is checked against: by the tests (TOMLOracleTests.swift)
// and by the `config` fuzz target (scripts/fuzz.sh compiles this file into it). It holds no test framework code.
import EdgeSwipeTOML
import TOMLKit

enum TOMLKitOracle {
    /// What toml++ reads `text` to, as our ``EdgeSwipeTOML/TOMLValue`` with its keys sorted; `nil` when
    /// toml++ cannot be handed the text safely (``TOMLPrecheck``: it would abort the process, or stop at a NUL).
    static func read(_ text: String) -> Result<EdgeSwipeTOML.TOMLValue, any Error>? {
        guard (try? TOMLPrecheck.check(text)) != nil else { return nil }
        do {
            return .success(normalized(value(try TOMLKit.TOMLTable(string: text))))
        } catch {
            return .failure(error)
        }
    }

    /// Whether a key or a string in `v` holds U+0000 (an escape, `\u0000`): TOMLKit passes strings through C
    /// strings, which end there, so its tree cannot be compared (TOMLOracleTests' departures).
    static func holdsNUL(_ v: EdgeSwipeTOML.TOMLValue) -> Bool {
        switch v {
        case .string(let s): s.utf8.contains(0)
        case .array(let a): a.contains(where: holdsNUL)
        case .table(let t): t.entries.contains { $0.key.utf8.contains(0) || holdsNUL($0.value) }
        default: false
        }
    }

    /// Whether a time in `v` is a leap second (`23:59:60`): TOML's grammar allows second 60 (RFC 3339's leap
    /// second, `time-second ; 00-58, 00-59, 00-60` in toml.abnf) and our reader reads it; toml++ refuses it
    /// ("expected second between 0 and 59"), so the two cannot be compared there (TOMLOracleTests' departures;
    /// found by `scripts/fuzz.sh config`).
    static func holdsLeapSecond(_ v: EdgeSwipeTOML.TOMLValue) -> Bool {
        switch v {
        case .localTime(let t): t.second == 60
        case .localDateTime(let d): d.time.second == 60
        case .offsetDateTime(let d): d.time.second == 60
        case .array(let a): a.contains(where: holdsLeapSecond)
        case .table(let t): t.entries.contains { holdsLeapSecond($0.value) }
        default: false
        }
    }

    /// Whether our tree and toml++'s verdict cannot be compared because toml++ departs from TOML 1.0.0 there: a
    /// NUL in a string, a leap second, a time's fraction past 64 digits, a number past 128 characters. The one list
    /// of departures, for the fuzz harness and TOMLOracleTests.
    static func departs(ours: EdgeSwipeTOML.TOMLValue, theirs: Result<EdgeSwipeTOML.TOMLValue, any Error>) -> Bool {
        if holdsNUL(ours) || holdsLeapSecond(ours) { return true }
        if case .failure(let error) = theirs { return refusedLongFraction(error) || refusedLongNumber(error) }
        return false
    }

    /// Whether toml++ refused a time for a fraction of more than 64 digits ("fractional component exceeds maximum
    /// precision of 64", `parse_time()`'s buffer): TOML 1.0.0 says extra precision "must be truncated, not rounded",
    /// and our reader keeps nine digits of any number, so a document with such a time cannot be compared
    /// (TOMLOracleTests' departures; found by `scripts/fuzz.sh config`, `zv= 05:40:20.1009444…`).
    static func refusedLongFraction(_ error: any Error) -> Bool {
        (error as? TOMLParseError)?.description.contains("fractional component exceeds maximum precision") ?? false
    }

    /// Whether toml++ refused a number for its length: a float, or a hexadecimal, octal or binary integer, of more
    /// than 128 characters besides `_` and its sign ("exceeds length limit of 128 digits": `parse_float()`'s and
    /// `parse_integer()`'s buffers), or one whose first 127 characters are digits and `_` ("numeric value too long
    /// to identify type": `parse_value()` reads that far to tell an integer from a float). TOML 1.0.0 sets no
    /// length: our reader reads `1_999…993.00` as the nearest binary64, as it reads a shorter one (found by
    /// `scripts/fuzz.sh config`, TOMLOracleTests' departures).
    static func refusedLongNumber(_ error: any Error) -> Bool {
        guard let message = (error as? TOMLParseError)?.description else { return false }
        return message.contains("exceeds length limit of") || message.contains("numeric value too long to identify type")
    }

    /// TOMLKit's value as ours.
    static func value(_ v: any TOMLValueConvertible) -> EdgeSwipeTOML.TOMLValue {
        switch v.type {
        case .table:
            var t = EdgeSwipeTOML.TOMLTable()
            if let table = v.table {
                for key in table.keys { if let child = table[key] { t.set(key, value(child), at: t.position) } }
            }
            return .table(t)
        case .array: return .array(v.array.map { $0.map { value($0) } } ?? [])
        case .string: return .string(v.string ?? "")
        case .int: return .integer(Int64(v.int ?? 0))
        case .double: return .float(v.double ?? 0)
        case .bool: return .boolean(v.bool ?? false)
        case .date:
            let d = v.date ?? TOMLDate(year: 0, month: 0, day: 0)
            return .localDate(TOMLLocalDate(year: d.year, month: d.month, day: d.day))
        case .time:
            let t = v.time ?? TOMLTime(hour: 0, minute: 0, second: 0, nanoSecond: 0)
            return .localTime(TOMLLocalTime(hour: t.hour, minute: t.minute, second: t.second, nanosecond: t.nanoSecond))
        case .dateTime:
            guard let dt = v.dateTime else { return .string("?") }
            let date = TOMLLocalDate(year: dt.date.year, month: dt.date.month, day: dt.date.day)
            let time = TOMLLocalTime(hour: dt.time.hour, minute: dt.time.minute, second: dt.time.second, nanosecond: dt.time.nanoSecond)
            if let offset = dt.offset { return .offsetDateTime(TOMLOffsetDateTime(date: date, time: time, offsetMinutes: offset.offset)) }
            return .localDateTime(TOMLLocalDateTime(date: date, time: time))
        }
    }

    /// Keys sorted (toml++ keeps a table's keys sorted, so the order is not compared), NaN made comparable.
    static func normalized(_ v: EdgeSwipeTOML.TOMLValue) -> EdgeSwipeTOML.TOMLValue {
        switch v {
        case .table(let t):
            var out = EdgeSwipeTOML.TOMLTable(position: t.position)
            for e in t.entries.sorted(by: { $0.key < $1.key }) { out.set(e.key, normalized(e.value), at: e.position) }
            return .table(out)
        case .array(let a): return .array(a.map(normalized))
        case .float(let x) where x.isNaN: return .string("(nan)")
        default: return v
        }
    }
}

// What toml++ cannot be handed safely, found by `scripts/fuzz.sh config` when TOMLKit read the configuration (our
// reader refuses all of it with its place; Fuzz/Regressions/config):
//
// - A table header whose name starts with anything but a bare-key character or a quote (`[#]`, `[.]`, `[=]`,
//   `[é]`, `[[ +x]]`, a control character): toml++'s `parse_key()` asserts on it, which aborts the process.
//   (Upstream fixed part of this after 3.4.0: marzer/tomlplusplus#301.)
// - A `}` where an array expects a value (`x = [}`, `x = [1, }`): `parse_value()` asserts the same way.
// - A NUL byte: TOMLKit hands the text to C++ as a C string, so everything after the NUL is silently ignored.
// - A date whose `T` is followed by no digit (`0524-05-05ti5`), or ten date-shaped characters, a space, a digit and
//   the value's end (`0263-05-05 0,`, `0524-05-0= 5 `, `0524-05-05 0\v`, `0524-05-0X 0\v`): `parse_time()` or
//   `parse_value()` asserts (abortingDate()).
// - Any of these after a byte order mark, which toml++ skips.
//
// The scan follows TOML's lexical structure (comments, the four string forms, the brackets of arrays and inline
// tables) only as far as is needed to tell a table header from a nested array and from text inside strings.
enum TOMLPrecheck {
    struct Problem: Error, Equatable {
        var line: Int
        var message: String
    }

    static func check(_ text: String) throws(Problem) {
        enum State { case normal, comment, basic, literal, multilineBasic, multilineLiteral }
        let scalars = Array(text.unicodeScalars)
        var state = State.normal
        var line = 1
        var atLineStart = true
        /// The open `[` (arrays) and `{` (inline tables) of the value being read, innermost last.
        var open: [Unicode.Scalar] = []
        // toml++ skips a byte order mark at the start, so a header right after it is at the start of a line too
        // (`\u{FEFF}[?` aborted it: found by `scripts/fuzz.sh config`).
        var i = scalars.first == "\u{FEFF}" ? 1 : 0
        func at(_ offset: Int) -> Unicode.Scalar? { i + offset < scalars.count ? scalars[i + offset] : nil }
        func isBareKey(_ c: Unicode.Scalar) -> Bool {
            switch c {
            case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
            default: false
            }
        }
        func isDigit(_ c: Unicode.Scalar?) -> Bool { c.map { ("0"..."9").contains($0) } ?? false }
        /// Whether the value starting at `i` is one toml++ aborts on while reading it as a date or a date-time
        /// (`toml.hpp` 3.4's `parse_value()` and `parse_time()`, found by `scripts/fuzz.sh config`):
        /// - a date (`1979-05-27`) and its `T` or `t` before anything but a digit or the line's end (`0524-05-05ti5`):
        ///   `parse_time()` asserts that the time starts with a digit;
        /// - a value of ten characters besides `_` shaped like a date (a digit first, '-' fifth and eighth, nothing
        ///   else but what gives toml++ no trait: `0524-05-0=`, `0524-05-0X`), a space, a digit and the value's end
        ///   (`0263-05-05 0,`): the scan for a date-time with a space in place of the `T` asserts that it does not
        ///   start at the value's end.
        func abortingDate() -> Bool {
            guard isDigit(at(0)), i == 0 || !(isBareKey(scalars[i - 1]) || scalars[i - 1] == ".") else { return false }
            /// toml++'s `is_value_terminator()`: its whitespace (Unicode's horizontal and vertical spaces, `\v` and
            /// `\f` among them: `0524-05-05 0\u{B}[` aborted it, found by `scripts/fuzz.sh config`) or `]`, `}`,
            /// `,`, `#`.
            func isEnd(_ c: Unicode.Scalar?) -> Bool {
                guard let c else { return false }
                switch c.value {
                case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x180E, 0x2000...0x200B, 0x2028, 0x2029, 0x202F,
                     0x205F, 0x2060, 0x3000, 0xFEFF:
                    return true
                default:
                    return ",]}#".unicodeScalars.contains(c)
                }
            }
            let date = (0..<10).allSatisfy { n in n == 4 || n == 7 || isDigit(at(n)) }
            if date, at(10) == "T" || at(10) == "t" {
                return !(isDigit(at(11)) || at(11) == nil || at(11) == "\n" || at(11) == "\r")
            }
            // toml++'s scan of the value up to its end: the characters other than `_`, and the traits they give.
            // It reads on past a space as a date-time only for ten characters that give no trait but a digit's and
            // a '-', with '-' fifth and eighth. A letter gives one only where it could make a prefix or an exponent,
            // and `_` is skipped: `0524-05-0X` (found by `scripts/fuzz.sh config`), `1o24-05-05`, `0_524-05-05`
            // and `1524-05-0e` abort it, `0x24-05-05` and `1e24-05-05` do not (TOMLOracleTests).
            var chars: [Unicode.Scalar] = []
            var minus = false
            var other = false
            var j = i
            // (It reads 127 characters at the most: `max_history_length - 1`.)
            while j - i < 127, let c = j < scalars.count ? scalars[j] : nil, !isEnd(c) {
                j += 1
                if c == "_" { continue }
                chars.append(c)
                if chars.count > 10 { return false }
                switch c {
                case "0"..."9": break
                case "-": minus = true
                case "+", ".", ":", "t", "T", "z", "Z": other = true
                case "b", "B", "o", "O", "x", "X": other = other || (chars.count == 2 && scalars[i] == "0")
                case "e", "E": other = other || !minus  // an exponent only before a '-'; a digit comes first
                default: break  // 'p' needs an 'x' before it, which is a trait already
                }
            }
            guard chars.count == 10, minus, !other, chars[4] == "-", chars[7] == "-" else { return false }
            let after = { (n: Int) in j + n < scalars.count ? scalars[j + n] : nil }
            return after(0) == " " && isDigit(after(1)) && isEnd(after(2))
        }
        while i < scalars.count {
            let c = scalars[i]
            if c == "\0" {
                throw Problem(line: line, message: "TOML syntax: a NUL byte; a configuration file is text")
            }
            if c == "\n" {
                line += 1
                atLineStart = true
                // Single-line strings and comments end at the newline (an unterminated string is toml++'s to report).
                if state == .comment || state == .basic || state == .literal { state = .normal }
                i += 1
                continue
            }
            switch state {
            case .normal:
                switch c {
                case "0"..."9" where abortingDate():
                    // Text toml++ takes for a date and is none: its `parse_time()` or `parse_value()` asserts, which
                    // aborts the process.
                    throw Problem(line: line, message: "TOML syntax: a date must be YYYY-MM-DD, with a time HH:MM[:SS] after it")
                case " ", "\t", "\r":
                    break
                case "#":
                    state = .comment
                case "\"":
                    if at(1) == "\"" && at(2) == "\"" { state = .multilineBasic; i += 2 } else { state = .basic }
                case "'":
                    if at(1) == "'" && at(2) == "'" { state = .multilineLiteral; i += 2 } else { state = .literal }
                case "[" where atLineStart && open.isEmpty:
                    // A table header, `[name]` or `[[name]]`: its name must start like a key.
                    var j = i + 1
                    if j < scalars.count && scalars[j] == "[" { j += 1 }
                    while j < scalars.count && (scalars[j] == " " || scalars[j] == "\t") { j += 1 }
                    if j < scalars.count {
                        let first = scalars[j]
                        if !(isBareKey(first) || first == "\"" || first == "'" || first == "]") {
                            let hex = String(first.value, radix: 16, uppercase: true)
                            let shown = first == "\n" || first == "\r" ? "a line break"
                                : first.value < 0x20 || first.value == 0x7f
                                ? "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex : "'\(first)'"
                            throw Problem(
                                line: line,
                                message: "TOML syntax: a table header must start with a name (letters, digits, '_', '-' or a quoted string), not \(shown)")
                        }
                    }
                    i = j - 1
                case "[", "{":
                    open.append(c)
                case "]":
                    if open.last == "[" { open.removeLast() }
                case "}":
                    if open.last == "[" {
                        throw Problem(line: line, message: "TOML syntax: an array needs a value or ']' here, not '}'")
                    }
                    if open.last == "{" { open.removeLast() }
                default:
                    break
                }
                if c != " " && c != "\t" && c != "\r" { atLineStart = false }
            case .comment:
                break
            case .basic:
                if c == "\\" { i += 1 } else if c == "\"" { state = .normal }
            case .literal:
                if c == "'" { state = .normal }
            case .multilineBasic:
                if c == "\\" {
                    i += 1
                    if at(0) == "\n" { line += 1 }
                } else if c == "\"" && at(1) == "\"" && at(2) == "\"" {
                    state = .normal
                    i += 2
                }
            case .multilineLiteral:
                if c == "'" && at(1) == "'" && at(2) == "'" {
                    state = .normal
                    i += 2
                }
            }
            i += 1
        }
    }
}
