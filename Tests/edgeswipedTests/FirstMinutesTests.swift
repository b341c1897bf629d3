import EdgeSwipeSystem
import Foundation
import Glibc
import SystemPackage
import Testing

/// What a newcomer meets first: the looped demo, the quick start, and the messages of tools that find no daemon
/// (issue 27). Real daemons, real sockets, the real script.
@Suite("the first five minutes", .serialized)
struct FirstMinutesTests {
    // MARK: - The looped demo

    /// What one pass of the looped demo decides, in order: the touchscreen's four edges, its cancel and its flick
    /// (DemoRecording), then a second later the touchpad's 3-finger swipes (TouchpadDemoRecording).
    static let onePass = [
        "left completed", "right completed", "top completed", "bottom completed", "left cancelled", "right completed",
        "3-finger swipe right completed", "3-finger swipe left completed", "3-finger swipe right cancelled",
    ]

    /// The quick start's demo: both recordings, one after the other, again and again.
    static let loopedDemo = ["--replay", Paths.touchpadDemo.path, "--in-turn", "--loop"]

    /// A transition's outcome as `onePass` names it.
    static func outcome(_ m: [String: Any]) -> String? {
        guard m.type == "transition", let phase = m["phase"] as? String, ["completed", "cancelled"].contains(phase) else { return nil }
        if let direction = m["swipe_direction"] as? String { return "\(m["swipe_fingers"] ?? "?")-finger swipe \(direction) \(phase)" }
        return "\(m["edge"] ?? "?") \(phase)"
    }

    @Test("--replay A --replay B --in-turn --loop: three passes decide alike, each from the first's state, after the last one's run-outs and bands have ended; the devices are added once")
    func threePasses() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // At recorded speed, as the quick start plays it (at twice the speed the fifth swipe's rest is too short
        // for the release to be at rest, and it completes).
        let daemon = try DaemonProcess.replaying(Paths.demo, in: dir, speed: 1, Self.loopedDemo)
        let client = try LineClient(path: daemon.socketPath)
        // Until the fourth pass's first outcome, so that three have played whole.
        var outcomes = 0
        let messages = client.messages(until: { m in
            if Self.outcome(m) != nil { outcomes += 1 }
            return outcomes > 3 * Self.onePass.count
        }, timeoutSeconds: 150)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
        try #require(outcomes > 3 * Self.onePass.count, "three passes played: \(messages.compactMap(\.phaseLine))")

        // The two devices, added once; nothing removed between passes (the looped replay plays the same devices).
        let devices = messages.filter { $0.type == "device" }.map { "\($0["change"] ?? "?") \($0["name"] ?? "?")" }
        #expect(devices == ["added EdgeSwipe Demo Touchscreen", "added EdgeSwipe Demo Touchpad"], "\(devices)")

        let hello = try #require(messages.first)
        let initial = Self.containers(hello["state"])
        var current = initial
        // A pass begins with the first gesture after the last one's outcomes.
        var passes: [[[String: Any]]] = []
        var startingStates: [String] = []
        var decided = 0
        for m in messages.dropFirst() {
            if m.type == "state" { current = Self.containers(m) }
            if m.type == "gesture" && decided == passes.count * Self.onePass.count {
                passes.append([])
                startingStates.append(current)
            }
            if !passes.isEmpty { passes[passes.count - 1].append(m) }
            if Self.outcome(m) != nil { decided += 1 }
        }
        #expect(startingStates.allSatisfy { $0 == initial }, "every pass starts from the state the first started from: \(startingStates)")
        var restsAt = 0
        for (n, pass) in passes.prefix(3).enumerated() {
            let outcomes = pass.compactMap(Self.outcome)
            #expect(outcomes == Self.onePass, "pass \(n + 1): \(outcomes)")
            // The pass begins after everything the last one set in motion has come to rest.
            let began = pass.first?["time_us"] as? Int ?? 0
            #expect(began >= restsAt, "pass \(n + 1) began at \(began) us, before the last run-out or band ended at \(restsAt) us")
            // Every run-out plays to its end: its terminal event comes at or after the end its spec announced, and
            // no transition is caught (an `interaction` `began`).
            for m in pass {
                let animation = m["animation"] as? [String: Any]
                if let end = animation?["end_time_us"] as? Int { restsAt = max(restsAt, end) }
                guard m.type == "transition", let end = animation?["end_time_us"] as? Int, let id = m["id"] as? Int else { continue }
                let terminal = pass.first { $0.type == "transition" && $0["id"] as? Int == id && ["completed", "cancelled"].contains($0["phase"] as? String ?? "") }
                #expect((terminal?["time_us"] as? Int ?? 0) >= end, "pass \(n + 1): transition \(id) ended before its run-out did")
            }
            #expect(!pass.contains { $0.type == "interaction" && $0["phase"] as? String == "began" }, "pass \(n + 1): a run-out was caught")
        }
    }

    /// The containers as the tests compare them: the JSON, with sorted keys.
    static func containers(_ state: Any?) -> String {
        let list = (state as? [String: Any])?["containers"] ?? []
        return (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    // MARK: - Tools that find no daemon

    /// Every way a command connects: the client library, the raw connection (`--json`), the monitor.
    static let connectingCommands: [[String]] = [
        ["status"], ["status", "--json"], ["devices"], ["push", "app", "details"], ["monitor", "--json", "--count", "1"],
    ]

    @Test("no daemon at the socket: one line that names the path once, says why, and what to do; exit 69", arguments: connectingCommands, [false, true])
    func noDaemon(_ command: [String], _ leftBehind: Bool) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("edgeswipe.sock").path
        if leftBehind {
            // A socket file whose daemon is gone: bound, then closed (connect(2) gets ECONNREFUSED).
            try FileDescriptor.boundUnixSocket(.stream, at: UnixSocketAddress(path)).close()
        }
        let r = try run(Paths.edgeswipectl, command + ["--socket", path])
        #expect(r.status == 69, "\(r.stderr)")
        let expected = "edgeswipectl: no daemon is listening at \(path)"
            + (leftBehind ? " (the socket file is left from one that stopped)" : "")
            + ". Start one (edgeswiped; in the source tree, scripts/quickstart runs it on the demo), or point at another with --socket PATH or EDGESWIPE_SOCKET=PATH.\n"
        #expect(r.stderr == expected)
    }

    @Test("the monitor, which waits for a daemon, says so once, and attaches when one comes")
    func monitorWaits() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("d.sock").path
        let monitor = Process()
        monitor.executableURL = Paths.edgeswipectl
        monitor.arguments = ["monitor", "--socket", path, "--count", "1"]
        let err = Pipe(), out = Pipe()
        monitor.standardError = err
        monitor.standardOutput = out
        try monitor.run()
        let said = String(decoding: err.fileHandleForReading.availableData, as: UTF8.self)
        #expect(said.hasPrefix("edgeswipectl: no daemon is listening at \(path). Start one"), "\(said)")
        #expect(said.hasSuffix("Waiting for one; Ctrl-C stops.\n"), "\(said)")
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let deadline = Date().addingTimeInterval(30)
        while monitor.isRunning && Date() < deadline { usleep(20_000) }
        #expect(!monitor.isRunning, "the monitor attached and took its one message")
        if monitor.isRunning { monitor.terminate() }
        monitor.waitUntilExit()
        #expect(monitor.terminationStatus == 0)
        #expect(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).hasPrefix("connected to edgeswiped"))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("edgeswipe-web says the same when no daemon is there; exit 69")
    func webNoDaemon() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("edgeswipe.sock").path
        let r = try run(Paths.edgeswipeWeb, ["--socket", path, "--listen", "127.0.0.1:0"])
        #expect(r.status == 69)
        #expect(r.stderr.contains("edgeswipe-web: no daemon is listening at \(path). Start one"), "\(r.stderr)")
    }

    // MARK: - What the daemon says at start-up

    @Test("a live daemon with no touch device says why and what to do",
          .enabled(if: ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/input")) ?? []).allSatisfy { !$0.hasPrefix("event") },
                   "this machine has input devices: what the daemon finds depends on them"))
    func noTouchDevice() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess(["--socket", dir.appendingPathComponent("d.sock").path], directory: dir)
        let said = "no input device at all on seat seat0 (no /dev/input/event* that udev knows): waiting for one to be plugged in"
        #expect(Hardening.waitForLog(daemon, said), "\(daemon.log)")
        #expect(daemon.log.contains("edgeswiped --replay demo/edgeswipe-demo.evemu --loop"), "\(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
        // --list-devices says the same, and fails.
        let list = try run(Paths.edgeswiped, ["--list-devices"])
        #expect(list.status == 69)
        #expect(list.stderr.contains("edgeswiped: \(said)"), "\(list.stderr)")
    }

    @Test("the listening line names what the active session may do, never an empty field", arguments: [
        ("", "active_session=none"),
        ("[access]\nread = [\"active-session\", \"owner\"]\n", "active_session=read"),
        ("[access]\ncontrol = [\"active-session\", \"owner\"]\n", "active_session=read+control"),
    ])
    func activeSessionField(_ config: String, _ expected: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, _) = try DaemonProcess.holdingDemo(in: dir, config: config)
        #expect(Hardening.waitForLog(daemon, "listening"), "\(daemon.log)")
        let line = daemon.log.split(separator: "\n").first { $0.contains(": listening") } ?? ""
        #expect(line.contains(" \(expected) ") || line.hasSuffix(" \(expected)"), "\(line)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    // MARK: - The packages

    /// How `scripts/deps.sh` is run in `packagesFirst`: which set, on a terminal or not, what the person answers.
    struct DepsRun: Sendable, CustomTestStringConvertible {
        var set: String?
        var terminal = false
        var answer = ""
        var yes = false
        var testDescription: String { "\(set ?? "default") set\(terminal ? ", on a terminal" : "")\(yes ? ", --yes" : "")\(answer.isEmpty ? "" : ", answering \(answer)")" }
    }

    /// What building and running need, and what only the tests do (scripts/deps.sh).
    static let buildPackages = ["libinput-dev", "libevdev-dev", "libudev-dev", "libsystemd-dev", "libyaml-dev", "pkg-config", "python3",
                                "libwayland-dev", "libwayland-bin", "libxkbcommon-dev", "xkb-data", "libcairo2-dev"]
    static let testOnly = ["sway", "weston", "grim", "nodejs", "python3-dbusmock", "wayland-protocols"]

    @Test("scripts/deps.sh: the quick start installs what building needs and the test command the rest; it says what first, with what apt would upgrade, asks once on a terminal, and never upgrades more", arguments: [
        DepsRun(set: "build"), DepsRun(set: nil), DepsRun(set: "build", terminal: true, answer: "n"),
        DepsRun(set: "build", terminal: true, answer: "y"), DepsRun(set: "build", terminal: true, yes: true),
    ])
    func packagesFirst(_ r: DepsRun) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // apt and dpkg replaced: nothing is installed, and apt-get logs what it was asked (a simulation answers with
        // each package to install, and one upgrade, of the kind a -dev package can pull in).
        let stubs = dir.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        let log = dir.appendingPathComponent("apt.log")
        let scripts = [
            "dpkg-query": "exit 1",
            "apt-cache": "exit 0",
            "apt-get": """
                echo "$*" >> '\(log.path)'
                case " $* " in *" -s "*) for a in "$@"; do case "$a" in -*) ;; install) ;; *) echo "Inst $a (1 Debian:12 [amd64])" ;; esac; done
                  echo "Inst libsystemd0 [252.38] (252.39 Debian:12 [amd64])" ;; esac
                """,
        ]
        for (name, body) in scripts {
            let file = stubs.appendingPathComponent(name)
            try "#!/bin/sh\n\(body)\n".write(to: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = stubs.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["CI"] = nil
        environment["EDGESWIPE_YES"] = r.yes ? "1" : nil
        let source = (r.set.map { "EDGESWIPE_DEPS=\($0) " } ?? "") + "source scripts/deps.sh && echo sourced"
        let command = "cd '\(Paths.packageRoot.path)' && " + source
        // On a terminal: through script(1)'s pseudo-terminal, with the answer typed in.
        let finished = r.terminal
            ? try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "printf '\(r.answer)\\n' | script -qec \"bash -c \\\"\(command)\\\"\" /dev/null 2>&1"], environment: environment)
            : try run(URL(fileURLWithPath: "/bin/bash"), ["-c", command], environment: environment)
        let said = finished.stdout + finished.stderr
        let calls = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        let installs = calls.filter { $0.hasPrefix("install -y") }

        let expected = Self.buildPackages + (r.set == "build" ? [] : Self.testOnly)
        let listed = said.split(separator: "\n").first { $0.contains("apt-get installs") }.map(String.init) ?? ""
        for p in expected { #expect(listed.contains(" \(p)"), "\(p) not listed: \(said)") }
        if r.set == "build" { for p in Self.testOnly { #expect(!listed.contains(" \(p)"), "\(p) listed for building: \(listed)") } }
        #expect(said.contains("and upgrades libsystemd0"), "what apt would upgrade besides is said: \(said)")
        let asked = said.components(separatedBy: "install them? [Y/n]").count - 1
        #expect(asked == (r.terminal && !r.yes ? 1 : 0), "asked \(asked) times: \(said)")
        if r.answer == "n" {
            #expect(installs.isEmpty, "\(calls)")
            #expect(!said.contains("sourced"), "the script goes no further: \(said)")
        } else {
            #expect(installs.count == 1, "\(calls)")
            let words = installs.first?.split(separator: " ").map(String.init) ?? []
            #expect(words.contains("--no-install-recommends") && !words.contains("--only-upgrade") && !words.contains("upgrade"), "\(installs)")
            let packages = Set(words.filter { !$0.hasPrefix("-") && $0 != "install" })
            if r.set == "build" {
                #expect(packages == Set(Self.buildPackages), "\(installs)")
            } else {
                #expect(packages.isSuperset(of: expected), "\(installs)")
            }
            #expect(said.contains("sourced"), "\(said)")
        }
    }

    // MARK: - The quick start

    /// scripts/quickstart on the suite's own binaries, its output collected (behind the lock): stdout is the monitor's.
    final class Quickstart: @unchecked Sendable {
        let process = Process()
        let out = Pipe(), err = Pipe()
        private let lock = NSLock()
        private var stdout = Data(), stderr = Data()

        init(environment: [String: String]) throws {
            // Through python3, which unblocks every signal and gives SIGINT and SIGTERM their default before it runs
            // the script: the test runner's children inherit its blocked mask (seen in /proc: SigBlk), so the
            // script's Ctrl-C clean-up never ran, and its daemon, monitor and bridge outlived it.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); signal.signal(signal.SIGINT, signal.SIG_DFL); signal.signal(signal.SIGTERM, signal.SIG_DFL); os.execv('/bin/bash', ['bash'] + sys.argv[1:])",
                Paths.packageRoot.appendingPathComponent("scripts/quickstart").path,
            ]
            process.environment = environment.merging(["EDGESWIPE_QUICKSTART_BIN": Paths.products.path]) { $1 }
            process.standardOutput = out
            process.standardError = err
            out.fileHandleForReading.readabilityHandler = { [weak self] h in let d = h.availableData; self?.append(d, toOut: true) }
            err.fileHandleForReading.readabilityHandler = { [weak self] h in let d = h.availableData; self?.append(d, toOut: false) }
            try process.run()
        }

        private func append(_ data: Data, toOut: Bool) {
            lock.withLock { if toOut { stdout.append(data) } else { stderr.append(data) } }
        }

        var monitor: [String] { lock.withLock { String(decoding: stdout, as: UTF8.self) }.split(separator: "\n").map(String.init) }
        var said: [String] { lock.withLock { String(decoding: stderr, as: UTF8.self) }.split(separator: "\n").map(String.init) }

        /// Waits until `condition` holds on what was printed so far.
        func wait(_ what: String, timeoutSeconds: Double = 60, _ condition: (Quickstart) -> Bool) throws {
            let deadline = Date().addingTimeInterval(timeoutSeconds)
            while !condition(self) {
                guard Date() < deadline, process.isRunning else {
                    throw DaemonTestError("quickstart: no \(what)\nstdout:\n\(monitor.joined(separator: "\n"))\nstderr:\n\(said.joined(separator: "\n"))")
                }
                usleep(20_000)
            }
        }

        /// Ctrl-C, as a person stops it; the exit status.
        func interrupt() -> Int32 {
            kill(process.processIdentifier, SIGINT)
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return process.terminationStatus
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    @Test("the quick start: the monitor attaches before the demo begins, a second terminal's status reaches the daemon, the page comes up, the touchpad's swipes follow, nothing is left behind",
          arguments: [false, true])
    func quickstart(_ socketTaken: Bool) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let runtime = dir.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let tmp = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        // The person's environment: their runtime directory, a TMPDIR to see what is left in it.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["TMPDIR"] = tmp.path
        environment["EDGESWIPE_SOCKET"] = nil
        // A daemon already on the default socket (the user's own): the quick start must not take its place.
        var other: DaemonProcess?
        if socketTaken {
            let taken = try DaemonProcess(
                ["--socket", runtime.appendingPathComponent("edgeswipe.sock").path, "--replay", Paths.demo.path, "--wait-for-clients", "99"],
                directory: dir, socketName: "runtime/edgeswipe.sock")
            try taken.waitUntilListening()
            other = taken
        }
        let qs = try Quickstart(environment: environment)
        try qs.wait("first swipe in the monitor") { $0.monitor.contains { $0.hasPrefix("gesture left began") } }
        // The monitor saw the demo from its start: its device, then the first swipe's beginning, nothing before.
        let monitor = qs.monitor
        let firstGesture = try #require(monitor.firstIndex { $0.hasPrefix("gesture ") })
        #expect(monitor[firstGesture].hasPrefix("gesture left began"), "\(monitor)")
        #expect(monitor.firstIndex { $0.hasPrefix("connected to edgeswiped") }.map { $0 < firstGesture } == true, "\(monitor)")
        #expect(monitor.firstIndex { $0.hasPrefix("device added: EdgeSwipe Demo Touchscreen") }.map { $0 < firstGesture } == true, "\(monitor)")

        // The line the script gives for another terminal, run there: it reaches this daemon (the demo's device).
        let hint = try #require(qs.said.first { $0.hasPrefix("edgeswipe: in another terminal: ") }, "\(qs.said)")
        let command = String(hint.dropFirst("edgeswipe: in another terminal: ".count).split(separator: "    ").first ?? "")
        var secondTerminal = ProcessInfo.processInfo.environment
        secondTerminal["XDG_RUNTIME_DIR"] = runtime.path
        secondTerminal["EDGESWIPE_SOCKET"] = nil
        let status = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", command], environment: secondTerminal)
        #expect(status.status == 0, "\(command): \(status.stderr)")
        #expect(status.stdout.contains("EdgeSwipe Demo Touchscreen"), "\(command) reached another daemon: \(status.stdout)")
        #expect(command.hasPrefix("EDGESWIPE_SOCKET=") == socketTaken, "\(command)")

        // The page's address, in the monitor's footer from the start, answers once the bridge is up. That it is
        // up is said through the monitor (its --notes), on a line of its own: on a terminal, a line the script
        // wrote itself landed on the monitor's footer.
        let up = "edgeswipe: the web page is up: "
        try qs.wait("the page") { $0.monitor.contains { $0.hasPrefix(up + "http://127.0.0.1:") } }
        #expect(!qs.said.contains { $0.contains("the web page is up") }, "said beside the monitor: \(qs.said)")
        let url = try #require(qs.monitor.first { $0.hasPrefix(up) }.map { String($0.dropFirst(up.count)) })
        #expect(monitor.first?.contains(url) == true, "the footer shows the page's address: \(monitor.first ?? "")")
        let components = try #require(URLComponents(string: url))
        let page = try httpGet(port: components.port ?? 0, path: "/?" + (components.query ?? ""))
        #expect(page.status == 303, "the token opens the page")

        // Then the demo's second half: three fingers on a touchpad.
        try qs.wait("a 3-finger swipe", timeoutSeconds: 60) { $0.monitor.contains { $0.hasPrefix("gesture swipe right began (3 fingers") } }
        #expect(qs.monitor.contains { $0.hasPrefix("device added: EdgeSwipe Demo Touchpad") }, "\(qs.monitor)")

        // This run's logs are its own (two quick starts at once wrote one daemon.log).
        let listens = try #require(qs.said.first { $0.hasPrefix("edgeswipe: the daemon listens on ") }, "\(qs.said)")
        let log = try #require(listens.range(of: "(its log: ").map { String(listens[$0.upperBound...].prefix { $0 != ")" }) })
        #expect(log.hasPrefix(".build/quickstart/run-") && log.hasSuffix("/daemon.log"), "\(log)")
        let logText = try String(contentsOfFile: Paths.packageRoot.appendingPathComponent(log).path, encoding: .utf8)
        #expect(logText.contains("replay: playing"), "\(log): \(logText)")

        #expect(qs.interrupt() == 130)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path) == [], "nothing left in TMPDIR")
        #expect(!FileManager.default.fileExists(atPath: runtime.appendingPathComponent("edgeswipe.sock").path) == !socketTaken)
        if let other {
            other.signal(SIGTERM)
            #expect(other.waitForExit() == 0)
        }
    }
}
