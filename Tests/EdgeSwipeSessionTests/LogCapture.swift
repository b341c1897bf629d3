import Logging
import NIOConcurrencyHelpers

/// A logger whose lines a test reads back.
final class LogCapture: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = .debug
        return logger
    }

    var all: [String] { lines.withLockedValue { $0 } }

    func contains(_ fragment: String) -> Bool { all.contains { $0.contains(fragment) } }

    fileprivate func append(_ line: String) { lines.withLockedValue { $0.append(line) } }

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
