import EdgeSwipeSession
import EdgeSwipeSystem
import EdgeSwipeTestSupport
import Foundation
import Glibc
import SystemPackage

/// A real sway, headless (`WLR_BACKENDS=headless`, pixman), for the session's tests, in a ``HeadlessSession``: sway
/// refuses to run as root, so as root (CI) it runs as `nobody`, with its own 0700 `XDG_RUNTIME_DIR`, and so do the
/// processes that talk to it (the daemon replaying a recording and `edgeswipe-session`, through
/// ``launch(_:_:environment:log:)``). Everything started in the session is killed with its process group when sway is
/// released.
final class HeadlessSway: HeadlessCompositor {
    let session: HeadlessSession
    let process = Process()
    let logURL: URL
    private(set) var swaySocket = ""
    let waylandDisplay = "wayland-1"
    private(set) var startSeconds = 0.0

    var directory: URL { session.directory }
    var runtimeDirectory: URL { session.runtimeDirectory }

    /// Why sway cannot run here (not installed), or `nil`: tests skip with it.
    static var unavailable: String? {
        for dir in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/sway") { return nil }
        return "sway is not installed (apt install sway): the session's compositor tests need a real one"
    }

    /// Starts sway with `config` (the output and xwayland lines are added) in a fresh session, or in `session`: a
    /// second sway where a first one died, on the same `$WAYLAND_DISPLAY` (what a user's restarted compositor is).
    init(config: String, in existing: HeadlessSession? = nil) throws {
        session = try existing ?? HeadlessSession(name: "sway")
        let configURL = try session.write("output HEADLESS-1 resolution 800x600\nxwayland disable\n" + config, to: "sway.conf")
        logURL = try session.writableFile(existing == nil ? "sway.log" : "sway-again.log")
        let (session, process) = (session, process)
        var socket = ""
        // A dead sway's IPC socket stays behind: the new one is the one that was not there.
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: session.runtimeDirectory.path)) ?? [])
        startSeconds = try secondsTaken {
            try session.launch(process, ["/usr/bin/sway", "-c", configURL.path], environment: [
                "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
            ], log: logURL)
            _ = waitUntil(timeout: 20) {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: session.runtimeDirectory.path)) ?? []
                guard let sock = names.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") && !before.contains($0) }),
                    names.contains(self.waylandDisplay)
                else {
                    return !process.isRunning
                }
                socket = session.runtimeDirectory.appendingPathComponent(sock).path
                return true
            }
        }
        swaySocket = socket
        guard process.isRunning, !swaySocket.isEmpty else {
            throw DaemonTestError("sway did not start: \(log)")
        }
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// The session's environment for a client of this sway.
    var environment: [String: String] {
        session.baseEnvironment.merging(["WAYLAND_DISPLAY": waylandDisplay, "SWAYSOCK": swaySocket]) { $1 }
    }

    /// Starts `arguments` as sway's user, with a clean environment plus `environment`, its output to `log`.
    func launch(_ process: Process, _ arguments: [String], environment: [String: String], log: URL) throws {
        try session.launch(process, arguments, environment: environment, log: log)
    }

    /// A file in the directory that sway's user may write.
    func writableFile(_ name: String) throws -> URL { try session.writableFile(name) }
}

/// A test's own connection to sway's IPC: commands, and the events it subscribed to, read on a thread.
final class SwayIPCClient: @unchecked Sendable {
    private let fd: FileDescriptor
    private let lock = NSLock()
    private var frames: [I3IPCFrame.Frame] = []
    private var buffer: [UInt8] = []

    init(path: String) throws {
        signal(SIGPIPE, SIG_IGN)
        fd = try FileDescriptor.connectedUnixSocket(to: UnixSocketAddress(path))
        try SystemThread.start(name: "sway-ipc-test", detached: true) { [self] in readLoop() }
    }

    deinit { try? fd.close() }

    func send(_ type: I3IPCFrame.MessageType, _ payload: String) {
        let frame = I3IPCFrame.encode(type, payload)
        _ = try? frame.withUnsafeBytes { try fd.send($0) }
    }

    /// Sends `type` and waits for its reply (replies come in order; events are kept aside).
    func request(_ type: I3IPCFrame.MessageType, _ payload: String, timeout: Double = 10) -> String? {
        let before = replies(of: type).count
        send(type, payload)
        guard waitUntil(timeout: timeout, { self.replies(of: type).count > before }) else { return nil }
        return replies(of: type).last.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    func replies(of type: I3IPCFrame.MessageType) -> [I3IPCFrame.Frame] {
        lock.lock()
        defer { lock.unlock() }
        return frames.filter { $0.type == type.rawValue }
    }

    /// Events of `type` (with the high bit), as JSON objects.
    func events(_ type: UInt32) -> [[String: Any]] {
        lock.lock()
        let matching = frames.filter { $0.type == type }
        lock.unlock()
        return matching.compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
    }

    private func readLoop() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = (try? chunk.withUnsafeMutableBytes { try fd.receive(into: $0) }) ?? 0
            guard n > 0 else { return }
            lock.lock()
            buffer += chunk.prefix(n)
            if let decoded = try? I3IPCFrame.decode(&buffer) { frames += decoded }
            lock.unlock()
        }
    }
}

extension I3IPCFrame {
    static let bindingEvent: UInt32 = eventBit | 5
}
