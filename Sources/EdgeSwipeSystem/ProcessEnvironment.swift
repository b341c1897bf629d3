import CSystemCalls

/// The process's environment (`environ`), read without Foundation's `ProcessInfo`.
public enum ProcessEnvironment {
    /// Every `NAME=value` pair; where a name appears twice, the first wins (as `getenv` finds it).
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        guard var entry = edgeswipe_environ() else { return result }
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return result
    }
}
