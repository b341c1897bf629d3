import EdgeSwipeSystem
import Logging
import SystemPackage

/// A swift-log handler for a daemon: one line per message on stderr. Under systemd (when `JOURNAL_STREAM` is
/// set) each line starts with a `<N>` syslog priority prefix, which journald turns into the entry's priority;
/// on a terminal it reads `LEVEL label: message`.
struct DaemonLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let label: String
    let journal: Bool

    init(label: String, level: Logger.Level, journal: Bool) {
        self.label = label
        self.logLevel = level
        self.journal = journal
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let suffix = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line: String
        if journal {
            line = "<\(Self.syslogPriority(event.level))>\(label): \(event.message)\(suffix)\n"
        } else {
            line = "\(event.level.rawValue.uppercased()) \(label): \(event.message)\(suffix)\n"
        }
        // A message that cannot be written (stderr closed, or full and non-blocking) is dropped: logging must
        // never stop the daemon.
        try? FileDescriptor.standardError.writeAll(Array(line.utf8))
    }

    /// RFC 5424 severities, as sd-daemon(3) expects them.
    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Sets up swift-log once for the whole process.
    static func bootstrap(level: Logger.Level) {
        let journal = ProcessEnvironment.current()["JOURNAL_STREAM"] != nil
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, level: level, journal: journal) }
    }
}
