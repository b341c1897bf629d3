import Foundation
import Glibc
import Testing

/// Storage that is slow for real: the daemon runs under strace, which makes every `fsync(2)` it calls take a
/// second longer (`-e inject=fsync:delay_exit=`; with `--seccomp-bpf` no other system call stops), the way an SD
/// card or eMMC stalls. The touch thread must not notice: states reach clients at once, replies wait for the disk,
/// and the file is always whole and never goes back.
@Suite("Slow storage", .serialized)
struct SlowStorageTests {
    static let strace = "/usr/bin/strace"
    static var hasStrace: Bool { FileManager.default.isExecutableFile(atPath: strace) }
    /// Added to every fsync (a save makes two: the temporary file and the directory).
    static let fsyncDelayUS = 1_000_000

    /// What `state.json` holds: its generation and the `app` navigation stack; `nil` while there is no file.
    struct FileState: Equatable {
        var generation: Int
        var appStack: [String]
    }

    enum ReadError: Error { case torn(String) }

    static func read(_ url: URL) throws -> FileState? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let containers = object["containers"] as? [[String: Any]]
        else { throw ReadError.torn(String(decoding: data, as: UTF8.self)) }
        let app = containers.first { $0["name"] as? String == "app" }
        return FileState(generation: object["generation"] as? Int ?? 0, appStack: app?["stack"] as? [String] ?? [])
    }

    /// Reads the file over and over on its own thread, until stopped, and keeps every distinct content it saw.
    final class Watcher: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [FileState] = []
        private var problems: [String] = []
        private var stopped = false

        init(_ url: URL) {
            Thread { [self] in
                while !lock.withLock({ stopped }) {
                    do {
                        if let s = try SlowStorageTests.read(url) {
                            lock.withLock { if seen.last != s { seen.append(s) } }
                        }
                    } catch {
                        lock.withLock { problems.append("\(error)") }
                    }
                    usleep(2000)
                }
            }.start()
        }

        func stop() -> (seen: [FileState], problems: [String]) {
            lock.withLock {
                stopped = true
                return (seen, problems)
            }
        }
    }

    @Test("states reach clients at once while each fsync takes a second; replies wait for the disk; SIGTERM flushes; the file is always whole and never goes back", .enabled(if: hasStrace, "needs strace (scripts/deps.sh installs it)"))
    func slowFsyncDoesNotHoldTheTouchThread() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state")
        let file = stateDir.appendingPathComponent("state.json")
        let config = try DaemonProcess.writeConfig(HardeningTests.panesConfig, in: dir)
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--config", config.path, "--state-dir", stateDir.path,
             "--replay", Paths.demo.path, "--wait-for-clients", "99"],
            directory: dir,
            launcher: [Self.strace, "-f", "-qq", "--seccomp-bpf", "-o", "/dev/null", "-e", "trace=fsync",
                       "-e", "inject=fsync:delay_exit=\(Self.fsyncDelayUS)"])
        try daemon.waitUntilListening()
        // The process started is strace; signals go to the daemon, its child.
        let children = (try? String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/task/\(daemon.process.processIdentifier)/children", encoding: .utf8)) ?? ""
        let edgeswiped = try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "strace has no child")
        defer { kill(edgeswiped, SIGKILL) }
        let watcher = Watcher(file)
        let observer = try LineClient(path: daemon.socketPath)
        _ = observer.messages(until: { $0.type == "hello" })

        // Four clients push at once (one request each: a connection's requests are carried out one after the
        // other, each after the previous reply).
        let scenes = ["s1", "s2", "s3", "s4"]
        let requesters = try scenes.map { _ in try LineClient(path: daemon.socketPath) }
        for r in requesters { _ = r.messages(until: { $0.type == "hello" }) }
        for (i, r) in requesters.enumerated() {
            r.send(#"{"id":1,"op":"push","container":"app","scene":"\#(scenes[i])","animated":false}"#)
        }
        // The observer sees all four states; the first save alone takes two seconds, so the file still lags.
        var states = 0
        _ = observer.messages(until: { m in
            if m.type == "state" { states += 1 }
            return states == scenes.count
        })
        #expect(states == scenes.count, "\(daemon.log)")
        let whenAllSeen = try Self.read(file)
        #expect((whenAllSeen?.appStack.count ?? 0) < 1 + scenes.count, "the clients were told only once the disk had the state: \(String(describing: whenAllSeen))")

        // Each reply comes only once the state it reports is on disk: the file holds that scene when it is read.
        for (i, r) in requesters.enumerated() {
            let reply = r.messages(until: { $0.type == "reply" || $0.type == "error" }).last
            #expect(reply?.type == "reply", "\(reply ?? [:])")
            let onDisk = try Self.read(file)
            #expect(onDisk?.appStack.contains(scenes[i]) == true, "reply to push \(scenes[i]) before it was on disk: \(String(describing: onDisk))")
        }

        // SIGTERM right after a state was published: it is written before the daemon exits.
        requesters[0].send(#"{"id":2,"op":"push","container":"app","scene":"s5","animated":false}"#)
        _ = observer.messages(until: { $0.type == "state" })
        kill(edgeswiped, SIGTERM)
        #expect(daemon.waitForExit(timeoutSeconds: 60) == 0, "\(daemon.log)")
        let (seen, problems) = watcher.stop()
        let final = try Self.read(file)
        let stack = final?.appStack ?? []
        #expect(stack.first == "home" && stack.last == "s5" && Set(stack.dropFirst().dropLast()) == Set(scenes) && stack.count == 6,
                "the last state was not flushed at SIGTERM: \(stack)")
        #expect(problems.isEmpty, "the file was read torn: \(problems.prefix(2))")
        // Latest wins: fewer saves than states, each one numbered past the one before, each stack longer.
        #expect(!seen.isEmpty)
        #expect(seen.map(\.generation) == seen.map(\.generation).sorted() && Set(seen.map(\.generation)).count == seen.count, "\(seen)")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.appStack.count < $1.appStack.count }, "\(seen)")
        #expect(seen.count < 1 + scenes.count, "every state was written, none superseded: \(seen)")
        #expect(daemon.log.contains("states were replaced by a newer one"), "\(daemon.log)")
    }
}
