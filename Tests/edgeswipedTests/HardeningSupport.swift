import EdgeSwipeCore
import EdgeSwipeFingerScript
import EdgeSwipeInput
import EdgeSwipeRecordings
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

    /// The demo's first swipe, scripted, for the device-removal fault: the swipe whole, then the same swipe again
    /// one second later, cut off in its middle (well past the hysteresis: a transition is running). The recording
    /// ends there, so the replay removes its device while the second swipe drives a transition; played again
    /// `--in-turn`, the device comes back (a replug) and the first swipe runs again. A frame-less `SYN_REPORT` 1.5 s
    /// before the first touch starts each play, so that the replugged device's first touch lands after the cancelled
    /// transition has run back, instead of catching it.
    static func recordingEndingMidSwipe(in dir: URL) throws -> URL {
        let description = DemoRecording.device
        let device = try description.touchDevice(id: DeviceID(1), path: "demo")
        let demo = DemoRecording.swipes[0]
        let swipe = EdgeSwipe(
            edge: demo.edge, travel: demo.travel, duration: .milliseconds(Int64(demo.durationMS)),
            release: .atRest(hold: .milliseconds(200)), along: demo.along, landing: .millimeters(DemoRecording.landingMM),
            interval: Microseconds(Int64(DemoRecording.frameIntervalUS)))
        let lead = Microseconds.milliseconds(500)
        let first = FingerScript.edgeSwipe(swipe, on: device, trackingID: 1, start: lead + .milliseconds(1500))
        let secondStart = first.end + .seconds(1)
        let second = FingerScript.edgeSwipe(swipe, on: device, trackingID: 2, start: secondStart)
            .cut(at: secondStart + Microseconds(swipe.duration.value / 2))
        let events = [EvdevEvent.report(at: MonotonicInstant.zero.advanced(by: lead))]
            + EvdevScriptRenderer.events(first + second, on: description)
        let url = dir.appendingPathComponent("ends-mid-swipe.evemu")
        try Evemu.write(description, events: events).write(to: url, atomically: true, encoding: .utf8)
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
