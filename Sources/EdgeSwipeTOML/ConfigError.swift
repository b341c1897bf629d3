/// A configuration problem, with the file and line it was found at.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// The column, for TOML syntax errors (the reader knows it); the meaning's errors name the key's line.
    public var column: Int?
    public var message: String
    /// The file could not be read as a configuration at all (missing, unreadable, not a regular file, too large),
    /// as opposed to read and found wrong: the daemon exits 66 for the one and 78 (1 for `--check-config`) for
    /// the other.
    public var isUnreadable: Bool
    public init(file: String, line: Int?, column: Int? = nil, message: String, isUnreadable: Bool = false) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.isUnreadable = isUnreadable
    }
    /// `config.toml:12: edge zone must be between 0.5 and 30 mm (got 45)`, or with the column,
    /// `config.toml:4:12: TOML syntax: a key can be defined only once: 'edge'`.
    public var description: String {
        switch (line, column) {
        case (let line?, let column?): "\(file):\(line):\(column): \(message)"
        case (let line?, nil): "\(file):\(line): \(message)"
        case (nil, _): "\(file): \(message)"
        }
    }
}

/// Something in a configuration file that loads but should change (a deprecated key): a problem said where and
/// what, as a ``ConfigError`` would say it, that stops nothing.
public struct ConfigWarning: Hashable, Sendable, CustomStringConvertible {
    public var problem: ConfigError
    public init(file: String, line: Int?, message: String) {
        problem = ConfigError(file: file, line: line, message: message)
    }
    public var line: Int? { problem.line }
    /// `config.toml:44: warning: 'corner_along_deg' is deprecated …`.
    public var description: String {
        let place = problem.line.map { "\(problem.file):\($0)" } ?? problem.file
        return "\(place): warning: \(problem.message)"
    }
}
