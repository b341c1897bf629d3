public import Logging
import Synchronization

/// A logger whose lines a test reads back ("LEVEL message", metadata left out), for the tests that judge what a part
/// logs: the seat's throttled complaints, the session's effects.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    /// A logger at trace level that keeps every line here.
    public var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Every line so far.
    public var all: [String] { lines.withLock { $0 } }

    /// Whether a line so far contains `fragment`.
    public func contains(_ fragment: String) -> Bool { all.contains { $0.contains(fragment) } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            capture.append("\(event.level) \(event.message)")
        }
    }
}
