import Foundation

/// `scripts/seat-bus-mock.py`: a real dbus-daemon with python3-dbusmock's logind and iio-sensors-proxy on it, driven
/// line by line.
public final class MockSeatBus {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = Data()
    public let address: String
    /// `scripts/seat-bus-mock.py` in this package.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/seat-bus-mock.py").path
    /// Whether the mock can run here (Debian's python3-dbusmock and dbus-daemon).
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock")
    }

    public init(_ services: [String] = ["logind", "sensors"]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script] + services
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let first = try Self.readLine(from: output, buffer: &buffered)
        guard first.hasPrefix("address=") else { throw MockBusError("seat-bus-mock did not start: \(first)") }
        address = String(first.dropFirst("address=".count))
    }

    deinit {
        try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Sends a command and returns its answer (`ok …`); an `error …` answer throws.
    @discardableResult
    public func send(_ command: String) throws -> String {
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
        let answer = try Self.readLine(from: output, buffer: &buffered)
        guard answer.hasPrefix("ok") else { throw MockBusError("\(command): \(answer)") }
        return answer
    }

    private static func readLine(from output: Pipe, buffer: inout Data) throws -> String {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...nl)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw MockBusError("seat-bus-mock ended") }
            buffer.append(chunk)
        }
    }
}

public struct MockBusError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

