/// One table of the configuration, with the helpers that read typed, range-checked values from it. Public for the
/// other files read the same way (edgeswipe-session's `session.toml`), so that every error reads alike.
public struct Section {
    public let table: TOMLTable?
    public let path: String
    public let file: String
    /// The line of the table's header (or of the key that made it), or, for a table the file does not have, of
    /// the nearest enclosing one that it does; the root has none.
    public let line: Int?

    public init(table: TOMLTable?, path: String, file: String, line: Int?) {
        self.table = table
        self.path = path
        self.file = file
        self.line = line
    }

    public func key(_ k: String) -> String { path.isEmpty ? k : "\(path).\(k)" }

    /// The line where the file wrote `k`, or the table's own when it did not.
    public func line(of k: String) -> Int? { table?.position(of: k)?.line ?? line }

    public func error(_ k: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: line(of: k), message: message)
    }

    /// A child table's section.
    public func child(_ k: String, _ t: TOMLTable?, path: String) -> Section {
        Section(table: t, path: path, file: file, line: t?.position.line ?? line(of: k))
    }

    /// `[touchscreen]`, or `[[bindings]] #3` for the third table of an array.
    public var displayName: String {
        guard path.hasSuffix("]"), let open = path.lastIndex(of: "["), let n = Int(path[path.index(after: open)..<path.index(before: path.endIndex)]) else {
            return "[\(path)]"
        }
        return "[[\(path[..<open])]] #\(n + 1)"
    }

    public func value(_ k: String) -> TOMLValue? { table?[k] }

    /// Rejects keys this table does not know, so a typo is an error rather than a silently ignored setting.
    public func only(_ known: [String]) throws(ConfigError) {
        guard let table else { return }
        for k in table.keys.sorted() where !known.contains(k) {
            let place = path.isEmpty ? "at the top level" : "in [\(Self.withoutIndices(path))]"
            throw error(k, "unknown key '\(k)' \(place); expected one of: \(known.joined(separator: ", "))")
        }
    }

    /// `bindings[2].animator` as a header names it: `bindings.animator`.
    static func withoutIndices(_ path: String) -> String {
        var out = ""
        var inIndex = false
        for c in path {
            if c == "[" { inIndex = true } else if c == "]" { inIndex = false } else if !inIndex { out.append(c) }
        }
        return out
    }

    public func section(_ k: String) throws(ConfigError) -> Section {
        guard let v = value(k) else { return child(k, nil, path: key(k)) }
        guard let t = v.table else { throw error(k, "'\(k)' must be a table (got \(v))") }
        return child(k, t, path: key(k))
    }

    public func double(_ k: String, default d: Double, in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        try optionalDouble(k, in: range) ?? d
    }

    public func optionalDouble(_ k: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        guard let v = value(k) else { return nil }
        guard let x = v.number else { throw error(k, "'\(k)' must be a number (got \(v))") }
        guard x.isFinite, range.contains(x) else {
            throw error(k, "'\(k)' must be between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound)) (got \(Self.format(x)))")
        }
        return x
    }

    public func int(_ k: String, default d: Int?, in range: ClosedRange<Int> = Int.min...Int.max) throws(ConfigError) -> Int? {
        guard let v = value(k) else { return d }
        guard let x = v.int else { throw error(k, "'\(k)' must be a whole number (got \(v))") }
        guard range.contains(x) else { throw error(k, "'\(k)' must be between \(range.lowerBound) and \(range.upperBound) (got \(x))") }
        return x
    }

    public func bool(_ k: String, default d: Bool?) throws(ConfigError) -> Bool? {
        guard let v = value(k) else { return d }
        guard let b = v.bool else { throw error(k, "'\(k)' must be true or false (got \(v))") }
        return b
    }

    public func string(_ k: String, default d: String?, nonEmpty: Bool = false) throws(ConfigError) -> String? {
        guard let v = value(k) else { return d }
        guard let s = v.string else { throw error(k, "'\(k)' must be a string (got \(v))") }
        if nonEmpty && s.isEmpty { throw error(k, "'\(k)' must not be empty") }
        return s
    }

    public func required(_ k: String) throws(ConfigError) -> String {
        guard let s = try string(k, default: nil, nonEmpty: true) else {
            throw ConfigError(file: file, line: line, message: "\(displayName) needs '\(k)'")
        }
        return s
    }

    public func choice<T>(_ k: String, default d: T?, _ options: [(String, T)]) throws(ConfigError) -> T? {
        guard let s = try string(k, default: nil) else { return d }
        guard let found = options.first(where: { $0.0 == s }) else {
            throw error(k, "'\(k)' must be one of \(options.map { "\"\($0.0)\"" }.joined(separator: ", ")) (got \"\(s)\")")
        }
        return found.1
    }

    public func array(_ k: String) throws(ConfigError) -> [TOMLValue]? {
        guard let v = value(k) else { return nil }
        guard let a = v.array else { throw error(k, "'\(k)' must be an array (got \(v))") }
        return a
    }

    public func strings(_ k: String) throws(ConfigError) -> [String]? {
        guard let a = try array(k) else { return nil }
        var out: [String] = []
        for item in a {
            guard let s = item.string else { throw error(k, "'\(k)' must hold strings (got \(item))") }
            out.append(s)
        }
        return out
    }

    public func numbers(_ k: String) throws(ConfigError) -> [Double]? {
        guard let a = try array(k) else { return nil }
        var out: [Double] = []
        for item in a {
            guard let x = item.number, x.isFinite else {
                throw error(k, "'\(k)' must hold numbers (got \(item))")
            }
            out.append(x)
        }
        return out
    }

    /// A problem that does not stop the file from loading, at the line of `k`.
    public func warning(_ k: String, _ message: String) -> ConfigWarning {
        ConfigWarning(file: file, line: line(of: k), message: message)
    }

    /// Every table of an array of tables, each with its own path (`bindings[2]`).
    public func tables(_ k: String) throws(ConfigError) -> [Section] {
        guard let a = try array(k) else { return [] }
        var out: [Section] = []
        for (i, item) in a.enumerated() {
            guard let t = item.table else { throw error(k, "'\(k)' must be an array of tables ([[\(key(k))]])") }
            out.append(child(k, t, path: "\(key(k))[\(i)]"))
        }
        return out
    }

    /// ``tables(_:)``, refused (at the first table past it) when there are more than `limit`.
    public func tables(_ k: String, limit: Int) throws(ConfigError) -> [Section] {
        let all = try tables(k)
        guard all.count <= limit else {
            throw ConfigError(
                file: file, line: all[limit].line,
                message: "\(all.count) [[\(key(k))]]; at most \(limit) are allowed")
        }
        return all
    }

    static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }
}
