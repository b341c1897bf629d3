public import Logging

/// libinput's log messages in swift-log's terms.
public enum LibinputLog {
    /// libinput's log priorities (`LIBINPUT_LOG_PRIORITY_DEBUG` 10, `INFO` 20, `ERROR` 30) as log levels.
    public static func level(forPriority priority: UInt32) -> Logger.Level {
        switch priority {
        case ..<20: .debug
        case 20..<30: .info
        default: .error
        }
    }

    /// The priority to ask libinput for, so that it does not format messages nobody will see.
    public static func priority(for level: Logger.Level) -> UInt32 {
        switch level {
        case .trace, .debug: 10
        case .info, .notice: 20
        case .warning, .error, .critical: 30
        }
    }

    /// A libinput message as one log line: its trailing newline removed.
    public static func line(_ message: String) -> String {
        var line = Substring(message)
        while let last = line.last, last == "\n" || last == "\r" { line = line.dropLast() }
        return String(line)
    }
}
