import EdgeSwipeInput
/// A recording (or device description) that cannot be read, with the place and the reason:
/// `n4.events:88: event before any device description`, `pad.yaml:39:7: truncated line: ...`.
public struct RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file as the caller named it.
    public var file: String
    /// 1-based; `nil` when the problem is the file as a whole.
    public var line: Int?
    /// 1-based, in characters; given for YAML, where a line holds many values.
    public var column: Int?
    public var reason: Reason

    public init(file: String, line: Int?, column: Int? = nil, reason: Reason) {
        self.file = file
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// What is wrong, in words that name the field and the offending text.
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        /// The file could not be read (the text is `strerror`'s).
        case unreadable(String)
        case empty
        /// A format version this parser does not know (`# EVEMU 2.0`, `version: 2`).
        case unsupportedVersion(String)
        /// A line that ends before all its fields: `expected` names what is missing.
        case truncated(expected: String)
        case badHex(field: String, token: String)
        case badNumber(field: String, token: String)
        case unknownLine(prefix: String)
        /// An `E:` line before any `N:` description, and no `.desc` to describe the device.
        case eventBeforeDescription(hint: String?)
        /// A description line (`I:`, `P:`, `B:`, `A:`) before the device's `N:` name.
        case descriptionBeforeName(prefix: String)
        case eventsInDescriptionFile
        case noDevice
        /// YAML that does not parse, with the parser's own words.
        case yaml(String)
        case missingKey(String)
        case wrongType(key: String, expected: String)

        public var description: String {
            switch self {
            case .unreadable(let why): "cannot read: \(why)"
            case .empty: "empty file"
            case .unsupportedVersion(let version): "unsupported format version \(version)"
            case .truncated(let expected): "truncated line: expected \(expected)"
            case .badHex(let field, let token): "bad hex '\(token)' for \(field)"
            case .badNumber(let field, let token): "bad number '\(token)' for \(field)"
            case .unknownLine(let prefix): "unknown line '\(prefix)'"
            case .eventBeforeDescription(let hint):
                "event before any device description" + (hint.map { " (\($0))" } ?? "")
            case .descriptionBeforeName(let prefix): "'\(prefix)' line before the device name ('N:')"
            case .eventsInDescriptionFile: "a device description file holds no events, found 'E:'"
            case .noDevice: "no device description"
            case .yaml(let problem): "invalid YAML: \(problem)"
            case .missingKey(let key): "missing '\(key)'"
            case .wrongType(let key, let expected): "'\(key)' must be \(expected)"
            }
        }
    }

    /// `file:line: reason` (or `file:line:column: reason`), with the file's last path component as evemu and
    /// compilers print it.
    public var description: String {
        let name = file.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? file
        switch (line, column) {
        case (let line?, let column?): return "\(name):\(line):\(column): \(reason)"
        case (let line?, nil): return "\(name):\(line): \(reason)"
        case (nil, _): return "\(name): \(reason)"
        }
    }
}
