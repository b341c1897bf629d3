import EdgeSwipeSystem
import Foundation
import Glibc
import SystemPackage
import Testing

// Helpers for HardeningTests and the soak (issue 7): recordings made for faults, /proc readings, other users,
// a stand-in for systemd's notify socket.

enum Hardening {
    static var isRoot: Bool { getuid() == 0 }
    static let setpriv = "/usr/bin/setpriv"
    static var canSwitchUser: Bool { isRoot && FileManager.default.isExecutableFile(atPath: setpriv) && python3 != nil }
    static let python3: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let nobody: UInt32 = 65534

    /// Waits until the daemon's log contains `text`.
    static func waitForLog(_ daemon: DaemonProcess, _ text: String, timeoutSeconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if daemon.log.contains(text) { return true }
            if !daemon.process.isRunning { return daemon.log.contains(text) }
            usleep(20_000)
        }
        return false
    }

    /// The resident set size in kB and the open descriptors of a process, from /proc.
    static func resources(of pid: Int32) -> (rssKB: Int, fds: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        let rss = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count ?? -1
        return (rss, fds)
    }

    /// The demo recording cut down for the device-removal fault: the first swipe (left edge) whole, then the same
    /// swipe again one second later, cut off in its middle. The recording ends there, so the replay removes its
    /// device while the second swipe drives a transition; with `--loop` the device comes back (a replug) and the
    /// first swipe runs again.
    static func recordingEndingMidSwipe(in dir: URL) throws -> URL {
        let text = try String(contentsOf: Paths.demo, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = lines.prefix { !$0.hasPrefix("E:") }
        // Events without their comments: "E: sec.usec type code value".
        let events = lines.filter { $0.hasPrefix("E:") }.map {
            String($0.split(separator: "#", maxSplits: 1)[0]).trimmingCharacters(in: .whitespaces)
        }
        // The first swipe: up to the SYN_REPORT after the first BTN_TOUCH 0.
        let lift = try #require(events.firstIndex { $0.hasSuffix(" 0001 014a 0000") })
        let end = try #require(events[lift...].firstIndex { $0.hasSuffix(" 0000 0000 0000") })
        let swipe = Array(events[...end])
        // The second one: the same events one second later, with tracking id 2, cut at the SYN_REPORT nearest its
        // middle (well past the recognizer's hysteresis: a transition is running).
        let reports = swipe.indices.filter { swipe[$0].hasSuffix(" 0000 0000 0000") }
        let cut = try #require(reports.first { $0 >= swipe.count / 2 })
        func time(_ line: String) -> Double { Double(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0 }
        let shift = time(swipe.last!) - time(swipe.first!) + 1.0
        let shifted = swipe[...cut].map { line -> String in
            var fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            fields[1] = String(format: "%.6f", time(line) + shift)
            if fields[2] == "0003" && fields[3] == "0039" && !fields[4].hasPrefix("-") { fields[4] = "0002" }
            return fields.joined(separator: " ")
        }
        // A frame-less SYN_REPORT 1.5 s before the first touch (everything else moves 1.5 s later): a loop starts there, so the replugged device's first
        // touch lands after the cancelled transition has run back, instead of catching it.
        func delayed(_ line: String) -> String {
            var fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            fields[1] = String(format: "%.6f", time(line) + 1.5)
            return fields.joined(separator: " ")
        }
        let lead = String(format: "E: %.6f 0000 0000 0000", time(swipe.first!))
        let url = dir.appendingPathComponent("ends-mid-swipe.evemu")
        try (header + [lead] + (swipe + shifted).map(delayed)).joined(separator: "\n").appending("\n")
            .write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Runs `script` with python3 as uid/gid 65534 (nobody), without supplementary groups.
    static func runAsNobody(_ script: String, arguments: [String] = [], timeoutSeconds: Double = 30) throws -> Finished {
        let python = try #require(python3)
        return try run(
            URL(fileURLWithPath: setpriv),
            ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", python, "-c", script] + arguments,
            timeoutSeconds: timeoutSeconds)
    }
}

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`.
final class NotifyListener {
    let path: String
    private let fd: Int32
    private(set) var received = ""

    init(path: String) throws {
        self.path = path
        do { fd = try FileDescriptor.boundUnixSocket(.datagram, at: UnixSocketAddress(path)).rawValue } catch {
            throw DaemonTestError("bind \(path): \(error)")
        }
    }

    deinit { close(fd) }

    /// Reads datagrams until one contains `marker`, or time runs out; returns everything received so far.
    @discardableResult
    func wait(for marker: String, timeoutSeconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while !received.contains(marker) && Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { received += String(decoding: buffer[..<n], as: UTF8.self) + "\n" }
        }
        return received.contains(marker)
    }
}

extension LineClient {
    /// Writes all of `bytes`, or gives up after `timeoutSeconds` (the peer may stop reading).
    @discardableResult
    func sendRaw(_ bytes: [UInt8], timeoutSeconds: Double = 10) -> Bool {
        var offset = 0
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while offset < bytes.count && Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&p, 1, 200) > 0 else { continue }
            let sent = bytes[offset...].withUnsafeBytes { rest in
                Result { () throws(Errno) in try FileDescriptor(rawValue: fd).send(rest, flags: [.noSignal, .dontWait]) }
            }
            switch sent {
            case .success(let n): offset += n
            case .failure(.resourceTemporarilyUnavailable): continue
            case .failure: return false
            }
        }
        return offset == bytes.count
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The visible scene of each container in a `hello`'s or `state`'s state.
    var visibleScenes: [String: String] {
        let state = (self["state"] as? [String: Any]) ?? self
        var out: [String: String] = [:]
        for c in state["containers"] as? [[String: Any]] ?? [] {
            if let name = c["name"] as? String, let visible = c["visible"] as? String { out[name] = visible }
        }
        return out
    }
}
