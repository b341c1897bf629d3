import EdgeSwipeSystem
import Foundation
import Glibc
import SystemPackage
import Testing

/// A real `edgeswiped` subprocess; its log goes to a file so a full pipe can never stall it.
final class DaemonProcess {
    let process = Process()
    let directory: URL
    let socketPath: String
    let logURL: URL
    /// The datagram socket standing in for systemd's, when the daemon was started with one: kept as long as the
    /// daemon, which may notify until it exits.
    private(set) var notify: NotifyListener?

    init(_ arguments: [String], directory: URL, socketName: String = "d.sock", environment: [String: String] = [:], launcher: [String] = []) throws {
        self.directory = directory
        socketPath = directory.appendingPathComponent(socketName).path
        logURL = directory.appendingPathComponent("daemon.log")
        try Paths.emptyFile(logURL)
        let log = try FileHandle(forWritingTo: logURL)
        if launcher.isEmpty {
            process.executableURL = Paths.edgeswiped
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: launcher[0])
            process.arguments = Array(launcher.dropFirst()) + [Paths.edgeswiped.path] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NOTIFY_SOCKET")
        env.removeValue(forKey: "LISTEN_FDS")
        env.removeValue(forKey: "LISTEN_PID")
        env.removeValue(forKey: "JOURNAL_STREAM")
        // The daemon's own AddressSanitizer options, when they differ from the test runner's: scripts/sanitizers.sh
        // turns LeakSanitizer on for the daemon alone (the runner's own allocations would be reported too).
        if let daemonOptions = env["EDGESWIPE_DAEMON_ASAN_OPTIONS"] { env["ASAN_OPTIONS"] = daemonOptions }
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    /// The bundled demo held back at its gate (`--wait-for-clients 99`), on `dir/d.sock`: a daemon that serves and
    /// answers requests but plays no swipe of its own, for tests that drive it through the socket.
    static func holdingDemo(
        in dir: URL, _ arguments: [String] = [], environment: [String: String] = [:], waitUntilListening: Bool = true
    ) throws -> DaemonProcess {
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path] + arguments + ["--replay", Paths.demo.path, "--wait-for-clients", "99"],
            directory: dir, environment: environment)
        if waitUntilListening { try daemon.waitUntilListening() }
        return daemon
    }

    /// `recording` replayed at `speed` on `dir/d.sock`, held at its gate until `clients` have connected; returns once
    /// the daemon has said READY=1. Readiness comes through `NOTIFY_SOCKET`, not a probe connection: a probe would
    /// count towards `--wait-for-clients` and could open the gate before the test's clients are in.
    static func replaying(_ recording: URL, in dir: URL, speed: Double = 2, clients: Int = 1, _ arguments: [String] = []) throws -> DaemonProcess {
        let notify = try NotifyListener(path: dir.appendingPathComponent("notify").path)
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--replay", recording.path, "--speed", "\(speed)",
             "--wait-for-clients", "\(clients)"] + arguments, directory: dir, environment: ["NOTIFY_SOCKET": notify.path])
        daemon.notify = notify
        guard notify.wait(for: "READY=1", timeoutSeconds: 30) else {
            throw DaemonTestError("the daemon never said READY=1: \(daemon.log)")
        }
        return daemon
    }

    /// The same with the configuration `config`, written to `dir/c.toml` (returned, for tests that change it).
    static func holdingDemo(in dir: URL, config: String, _ arguments: [String] = []) throws -> (DaemonProcess, URL) {
        let file = try writeConfig(config, in: dir)
        return (try holdingDemo(in: dir, ["--config", file.path] + arguments), file)
    }

    /// Writes `text` to `dir/c.toml`.
    static func writeConfig(_ text: String, in dir: URL) throws -> URL {
        let file = dir.appendingPathComponent("c.toml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Waits until the socket accepts connections.
    func waitUntilListening(timeoutSeconds: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let c = try? LineClient(path: socketPath) { c.close(); return }
            guard process.isRunning else { throw DaemonTestError("the daemon exited: \(log)") }
            usleep(20_000)
        }
        throw DaemonTestError("the daemon never listened on \(socketPath): \(log)")
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// Waits for the exit status, killing the daemon if it does not exit in time.
    @discardableResult
    func waitForExit(timeoutSeconds: Double = 20) -> Int32 {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }
}

struct DaemonTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A blocking Unix-socket client that reads newline-delimited JSON, with timeouts.
final class LineClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var closedByPeer = false

    init(path: String) throws {
        // A daemon that closes on us must fail a write, not kill the test runner.
        signal(SIGPIPE, SIG_IGN)
        do { fd = try FileDescriptor.connectedUnixSocket(to: UnixSocketAddress(path)).rawValue } catch {
            throw DaemonTestError("connect \(path): \(error)")
        }
    }

    func close() { Glibc.close(fd) }
    deinit { Glibc.close(fd) }

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The next line, or nil at end of stream or after `timeoutSeconds` without one.
    func readLine(timeoutSeconds: Double = 20) -> String? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            if closedByPeer { return nil }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(min(remaining, 1) * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { closedByPeer = true; continue }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Every message until one matches `stop` (included), the peer closes, or time runs out.
    func messages(until stop: ([String: Any]) -> Bool, timeoutSeconds: Double = 30) -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var out: [[String: Any]] = []
        while deadline.timeIntervalSinceNow > 0, let line = readLine(timeoutSeconds: deadline.timeIntervalSinceNow) {
            guard let m = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                Issue.record("not JSON: \(line.prefix(200))")
                continue
            }
            out.append(m)
            if stop(m) { break }
        }
        return out
    }
}

extension Dictionary where Key == String, Value == Any {
    var type: String { self["type"] as? String ?? "" }
    /// "transition 3 completed", "lifecycle 3 home did-appear", "gesture left began": what every client must
    /// see alike, without progress updates and times.
    var phaseLine: String? {
        switch type {
        case "transition":
            guard self["progress"] as? Bool != true else { return nil }
            return "transition \(self["id"] ?? "") \(self["phase"] ?? "") \(self["from"] ?? "")->\(self["to"] ?? "")"
        case "lifecycle": return "lifecycle \(self["transition"] ?? "") \(self["scene"] ?? "") \(self["event"] ?? "")"
        case "gesture":
            guard self["state"] as? String != "changed" else { return nil }
            return "gesture \(self["edge"] ?? "") \(self["state"] ?? "")"
        case "state", "device": return type
        default: return nil
        }
    }
}
