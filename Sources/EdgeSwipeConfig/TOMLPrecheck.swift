// Found by `scripts/fuzz config`: checks a configuration text for the two things TOMLKit's
// parser (toml++ 3) cannot be handed safely, before it sees the text.
//
// - A table header whose name starts with anything but a bare-key character or a quote (`[#]`, `[.]`, `[=]`,
//   `[é]`, `[[ +x]]`, a control character): toml++'s `parse_key()` asserts on it, which aborts the process (and in a
//   build with NDEBUG is undefined behaviour). `edgeswiped --check-config`, start-up and SIGHUP crashed on it.
//   (Upstream fixed part of this after 3.4.0: marzer/tomlplusplus#301.)
// - A `}` where an array expects a value (`x = [}`, `x = [1, }`): `parse_value()` asserts the same way.
// - A NUL byte: TOMLKit hands the text to C++ as a C string, so everything after the NUL was silently ignored and a
//   truncated file was accepted.
//
// The scan follows TOML's lexical structure (comments, the four string forms, the brackets of arrays and inline
// tables) only as far as is needed to tell a table header from a nested array and from text inside strings, and
// to know what the innermost open bracket is; everything else is left to toml++.
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
        var i = 0
        func at(_ offset: Int) -> Unicode.Scalar? { i + offset < scalars.count ? scalars[i + offset] : nil }
        func isBareKey(_ c: Unicode.Scalar) -> Bool {
            switch c {
            case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
            default: false
            }
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
