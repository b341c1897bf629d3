import SystemPackage

/// The process's standard error, for the one-line messages the command-line tools print before (or instead of)
/// logging.
public enum StandardError {
    /// Writes `line` and a newline; a message that cannot be written is dropped.
    public static func print(_ line: String) {
        try? FileDescriptor.standardError.writeAll(Array((line + "\n").utf8))
    }
}
