import EdgeSwipeTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// Issue 7's soak: the daemon replays swipes at 240 Hz (the demo, 120 Hz, at speed 2, in a loop) while, over
/// loopback Unix sockets, clients connect and disconnect, read slowly or not at all, send malformed and oversized
/// lines, and vanish mid-write. Well-behaved clients must receive every phase, terminal and lifecycle event in
/// order with gap-free `seq`; the daemon must not crash, and its RSS and open descriptors must stay flat after
/// warm-up.
///
/// The CI version is short. `scripts/soak.sh` runs the same test for minutes, through the environment:
/// `EDGESWIPE_SOAK_SECONDS` (default 20), `EDGESWIPE_SOAK_CONNECTIONS` (default 300; the issue's long soak uses
/// 1,000), `EDGESWIPE_SOAK_REPORT` (a file to write the measurements to).
@Suite("Soak", .serialized)
struct SoakTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seconds = Double(environment["EDGESWIPE_SOAK_SECONDS"] ?? "") ?? 20
    static let connections = Int(environment["EDGESWIPE_SOAK_CONNECTIONS"] ?? "") ?? 300
    static let wellBehaved = 3

    /// What one well-behaved client saw.
    struct Stream: Sendable {
        var count = 0
        var seqGaps: [String] = []
        var phaseLines: [String] = []
        var problems: [String] = []
        var endedWithGoodbye = false
    }

    /// The daemon's resources at one moment after warm-up.
    struct Sample {
        var connections: Int
        var rssKB: Int
        var fds: Int

        /// The least-squares slope of RSS against connections made, in kB per connection.
        static func slopeKBPerConnection(_ samples: [Sample]) -> Double {
            guard samples.count >= 2 else { return 0 }
            let n = Double(samples.count)
            let mx = samples.reduce(0.0) { $0 + Double($1.connections) } / n
            let my = samples.reduce(0.0) { $0 + Double($1.rssKB) } / n
            var sxy = 0.0, sxx = 0.0
            for s in samples {
                sxy += (Double(s.connections) - mx) * (Double(s.rssKB) - my)
                sxx += (Double(s.connections) - mx) * (Double(s.connections) - mx)
            }
            return sxx > 0 ? sxy / sxx : 0
        }

        /// RSS at each quarter of the run after warm-up (median of each quarter), for the report.
        static func summary(_ samples: [Sample]) -> String {
            guard samples.count >= 4 else { return "too few samples" }
            let q = samples.count / 4
            let medians = (0..<4).map { i -> Int in
                let part = samples[(i * q)..<(i == 3 ? samples.count : (i + 1) * q)].map(\.rssKB).sorted()
                return part[part.count / 2]
            }
            return "RSS by quarter " + medians.map { "\($0) kB" }.joined(separator: ", ")
        }
    }

    /// The client kinds that come and go.
    enum Churn: Int, CaseIterable {
        case helloAndLeave, malformed, oversized, vanishMidWrite, vanishAtOnce, slowReader, stalledReader
    }

    @Test("churning, malformed, slow and vanishing clients: no crash, nothing lost, resources flat")
    func churn() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--replay", Paths.demo.path, "--loop", "--speed", "2",
             "--wait-for-clients", "\(Self.wellBehaved)"], directory: dir)
        try daemon.waitUntilListening()
        let path = daemon.socketPath
        let pid = daemon.process.processIdentifier

        // Well-behaved clients: each on its own thread, reading everything until the goodbye.
        let streams = Mutex<[Stream]>([])
        let greeted = Mutex(0)
        let readers = DispatchGroup()
        for _ in 0..<Self.wellBehaved {
            readers.enter()
            Thread.detachNewThread {
                defer { readers.leave() }
                let stream = Self.readWellBehaved(path: path, timeoutSeconds: Self.seconds + 60) { greeted.withLock { $0 += 1 } }
                streams.withLock { $0.append(stream) }
            }
        }
        // The gate counts every connection: churn starts once the well-behaved clients are in, or a churning one
        // could open it before the last of them connects (which would then miss the first events). The daemon's
        // descriptors with only the well-behaved clients connected are what it must come back to.
        #expect(waitUntil(timeout: 30) { greeted.withLock { $0 } == Self.wellBehaved }, "the well-behaved clients got their hello")
        let idleFDs = try #require(Hardening.resources(of: pid)).fds

        // Churn: until the time is up or the connections are made, whichever is later. The daemon's RSS and
        // descriptors are sampled throughout; those after warm-up make the trend.
        let start = Date()
        let deadline = start.addingTimeInterval(Self.seconds)
        let warmUp = start.addingTimeInterval(min(5, Self.seconds / 4))
        var made = 0
        var failures: [String] = []
        var stalled: [(LineClient, Date)] = []
        var samples: [Sample] = []
        var peakRSS = 0
        var peakFDs = 0
        let pace = Self.seconds / Double(Self.connections)
        while Date() < deadline || made < Self.connections {
            if let r = Hardening.resources(of: pid) {
                peakRSS = max(peakRSS, r.rssKB)
                peakFDs = max(peakFDs, r.fds)
                if Date() >= warmUp { samples.append(Sample(connections: made, rssKB: r.rssKB, fds: r.fds)) }
            }
            let kind = Churn(rawValue: made % Churn.allCases.count)!
            do {
                if let client = try Self.churn(kind, path: path) { stalled.append((client, Date())) }
            } catch {
                failures.append("\(kind): \(error)")
            }
            made += 1
            // Stalled readers hold their socket for a while, then vanish.
            stalled.removeAll { $0.1.timeIntervalSinceNow < -3 }
            guard daemon.process.isRunning else { break }
            let next = start.addingTimeInterval(pace * Double(made))
            if next > Date() { usleep(useconds_t(min(1, next.timeIntervalSinceNow) * 1_000_000)) }
        }
        stalled.removeAll()
        // The daemon has noticed the last disconnections once its descriptors are back to the count before the
        // churn (the three well-behaved clients connected).
        let base = try #require(samples.first, "no sample after warm-up")
        _ = waitUntil(timeout: 30) { (Hardening.resources(of: pid)?.fds ?? .max) <= idleFDs }
        let final = Hardening.resources(of: pid)
        let running = daemon.process.isRunning
        daemon.signal(SIGTERM)
        #expect(readers.wait(timeout: .now() + 60) == .success, "the well-behaved clients got their goodbye")
        let status = daemon.waitForExit()

        #expect(running, "the daemon survived: \(daemon.log.suffix(2000))")
        #expect(status == 0, "\(daemon.log.suffix(2000))")
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        let all = streams.withLock { $0 }
        #expect(all.count == Self.wellBehaved)
        for (i, s) in all.enumerated() {
            #expect(s.endedWithGoodbye, "client \(i) did not end with a goodbye")
            #expect(s.seqGaps.isEmpty, "client \(i): \(s.seqGaps.prefix(5))")
            #expect(s.problems.isEmpty, "client \(i): \(s.problems.prefix(5))")
        }
        if let first = all.first {
            // Each client's stream is compared from its first gesture on: one that connected before the replay's
            // device appeared saw a `device` line that the hello snapshot gave the others instead.
            func fromFirstGesture(_ lines: [String]) -> ArraySlice<String> {
                lines.drop { !($0.hasPrefix("gesture ") && $0.hasSuffix(" began")) }
            }
            for (i, other) in all.enumerated().dropFirst() {
                #expect(fromFirstGesture(other.phaseLines) == fromFirstGesture(first.phaseLines), "client \(i) saw a different stream of phases")
            }
            #expect(first.phaseLines.filter { $0.hasSuffix(" completed") || $0.contains(" completed ") }.count >= Int(Self.seconds / 8),
                    "swipes kept completing: \(first.phaseLines.count) phase lines")
        }
        let end = try #require(final)
        // Flat after warm-up. Descriptors: back to the count before the churn once it has gone (none kept for a
        // client that left), and bounded during it (the clients open at once: stalled readers live 3 s).
        #expect(end.fds <= idleFDs, "descriptors left behind: \(idleFDs) before the churn -> \(end.fds) after it")
        // Memory: the trend of RSS against connections made (a least-squares slope over every sample after
        // warm-up), so that a per-connection leak shows however the allocator's high-water mark moves. A leaked
        // connection costs tens of kB (the bug this caught: ~17 kB each); the allocator's noise, spread over
        // hundreds of connections, stays well under 2 kB each. Plus the end against warm-up, for a step.
        // Under AddressSanitizer freed memory waits in a quarantine (256 MB by default), so RSS says nothing there;
        // scripts/sanitizers.sh sets EDGESWIPE_SANITIZER.
        let trend = Sample.slopeKBPerConnection(samples)
        if Self.environment["EDGESWIPE_SANITIZER"] == nil {
            #expect(trend < 2, "RSS grows with connections: \(String(format: "%.2f", trend)) kB per connection (\(Sample.summary(samples)))")
            #expect(end.rssKB <= base.rssKB + 8 * 1024, "RSS grew: \(base.rssKB) kB -> \(end.rssKB) kB")
        }
        let report = """
            soak: \(Int(Self.seconds)) s, \(made) churn connections, \(all.map(\.count)) messages per well-behaved client, \
            \(all.first?.phaseLines.filter { $0.hasPrefix("transition") && ($0.contains(" completed ") || $0.contains(" cancelled ")) }.count ?? 0) transitions; \
            RSS \(base.rssKB) kB at warm-up, \(end.rssKB) kB at the end (peak \(peakRSS) kB), trend \(String(format: "%.3f", trend)) kB per connection \
            over \(samples.count) samples (\(Sample.summary(samples))); fds \(idleFDs) before the churn, \(base.fds) at warm-up, \(end.fds) at the end (peak \(peakFDs)); \
            \(daemon.log.components(separatedBy: "client too slow").count - 1) slow clients cut off
            """
        print(report)
        if let file = Self.environment["EDGESWIPE_SOAK_REPORT"] { Self.appendReport(report, to: file) }
    }

    // MARK: - Stalled readers and connection churn

    // CI's sizes are small (the suite's time); scripts/soak.sh runs the issue's: 500 stalled readers until they are cut
    // off, and 20 rounds of 1,000.
    static let stalledReaders = Int(environment["EDGESWIPE_SOAK_STALLED"] ?? "") ?? 50
    /// How long the stalled readers stay connected at most; the daemon may cut them off before.
    static let stalledSeconds = Double(environment["EDGESWIPE_SOAK_STALLED_SECONDS"] ?? "") ?? 4
    static let churnRounds = Int(environment["EDGESWIPE_SOAK_CHURN_ROUNDS"] ?? "") ?? 2
    static let churnClients = Int(environment["EDGESWIPE_SOAK_CHURN_CLIENTS"] ?? "") ?? 200

    /// RSS of `pid` in kB, sampled until it stops falling (the daemon releases memory after a burst), at most
    /// `seconds`: what the process holds once it has settled.
    static func settledRSS(of pid: Int32, seconds: Double = 10) -> Int {
        var last = Hardening.resources(of: pid)?.rssKB ?? 0
        var lowest = last
        var unchanged = 0
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && unchanged < 5 {
            usleep(200_000)
            let now = Hardening.resources(of: pid)?.rssKB ?? last
            unchanged = now < lowest ? 0 : unchanged + 1
            lowest = min(lowest, now)
            last = now
        }
        return lowest
    }

    /// Lets this process open as many sockets as its hard limit allows (a round of churn opens a thousand).
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// A daemon of the memory scenarios, warmed up, with what it is measured against.
    struct LoopingDaemon {
        var daemon: DaemonProcess
        var reader: DispatchGroup
        var streams: LockedSlots<Stream?>
        var pid: Int32 { daemon.process.processIdentifier }
        /// Descriptors with only the well-behaved reader connected, and RSS once settled, before the scenario.
        var idleFDs: Int
        var baselineRSS: Int
    }

    /// A daemon replaying the demo in a loop at 240 Hz to one well-behaved reader, which reads everything on its
    /// own thread until the goodbye; returns once that reader has its hello, the replay has warmed up and the
    /// baseline is measured. Lets this process open as many sockets as the scenario needs.
    static func startLoopingDaemon(in dir: URL, extraConfig: String = "") throws -> LoopingDaemon {
        raiseDescriptorLimit()
        let config = dir.appendingPathComponent("soak.toml")
        try ("[daemon]\nmax_clients = 4096\n" + extraConfig).write(to: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--config", config.path, "--replay", Paths.demo.path,
             "--loop", "--speed", "2", "--wait-for-clients", "1"], directory: dir)
        try daemon.waitUntilListening()
        let path = daemon.socketPath
        let streams = LockedSlots<Stream?>(count: 1, initial: nil)
        let greeted = Mutex(0)
        let ended = Mutex(0)
        let reader = DispatchGroup()
        reader.enter()
        Thread.detachNewThread {
            defer { reader.leave() }
            let stream = Self.readWellBehaved(
                path: path, timeoutSeconds: 900, greeted: { greeted.withLock { $0 += 1 } }, ended: { ended.withLock { $0 += 1 } })
            streams[0] = stream
        }
        #expect(waitUntil(timeout: 30) { greeted.withLock { $0 } == 1 })
        // Warm-up: the baseline is a daemon that has streamed a few swipes.
        #expect(waitUntil(timeout: 60) { ended.withLock { $0 } >= 2 }, "swipes run")
        let pid = daemon.process.processIdentifier
        let idleFDs = try #require(Hardening.resources(of: pid)).fds
        return LoopingDaemon(daemon: daemon, reader: reader, streams: streams, idleFDs: idleFDs, baselineRSS: settledRSS(of: pid, seconds: 3))
    }

    @Test("stalled readers: each costs at most 1 MB at the worst moment, and the memory comes back once they are gone")
    func stalledReadersMemory() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let looping = try Self.startLoopingDaemon(in: dir)
        let (daemon, pid, idleFDs, baseline) = (looping.daemon, looping.pid, looping.idleFDs, looping.baselineRSS)

        var stalled: [LineClient] = []
        for _ in 0..<Self.stalledReaders {
            let c = try LineClient(path: daemon.socketPath)
            c.send(#"{"op":"subscribe","tick_hz":1000}"#)
            stalled.append(c)
        }
        var peak = 0
        let start = Date()
        var cutOffAt: Double?
        while Date().timeIntervalSince(start) < Self.stalledSeconds {
            if let r = Hardening.resources(of: pid) {
                peak = max(peak, r.rssKB)
                if r.fds <= idleFDs, cutOffAt == nil { cutOffAt = Date().timeIntervalSince(start); break }
            }
            guard daemon.process.isRunning else { break }
            usleep(100_000)
        }
        stalled.removeAll()
        #expect(waitUntil(timeout: 30) { (Hardening.resources(of: pid)?.fds ?? .max) <= idleFDs }, "the stalled readers' descriptors are closed")
        let after = Self.settledRSS(of: pid)
        let perReader = Double(peak - baseline) / Double(Self.stalledReaders)
        let report = """
            stalled readers: \(Self.stalledReaders) (tick_hz 1000, never reading) for \(String(format: "%.0f", Self.stalledSeconds)) s at most; \
            \(cutOffAt.map { String(format: "all cut off after %.1f s", $0) } ?? "closed by the test"); \
            RSS \(baseline) kB before, peak \(peak) kB (\(String(format: "%.0f", perReader)) kB per reader), \(after) kB after they are gone \
            (\(after - baseline) kB over the baseline); \(daemon.log.components(separatedBy: "client too slow").count - 1) cut off
            """
        Self.stop(looping, report: report)
        if Self.environment["EDGESWIPE_SANITIZER"] == nil {
            #expect(perReader <= 1024, "\(report)")
            #expect(after - baseline <= 10 * 1024, "\(report)")
        }
    }

    @Test("connection churn: after rounds of a burst of clients that connect and close, RSS is back near the baseline")
    func connectionChurnMemory() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let looping = try Self.startLoopingDaemon(in: dir)
        let (daemon, pid, idleFDs, baseline) = (looping.daemon, looping.pid, looping.idleFDs, looping.baselineRSS)
        var peak = 0
        var afterRounds: [Int] = []
        for _ in 0..<Self.churnRounds {
            var clients: [LineClient] = []
            for _ in 0..<Self.churnClients { clients.append(try LineClient(path: daemon.socketPath)) }
            // Every one is registered (it has its hello) before any leaves.
            for c in clients { _ = c.readLine(timeoutSeconds: 20) }
            peak = max(peak, Hardening.resources(of: pid)?.rssKB ?? 0)
            clients.removeAll()
            #expect(waitUntil(timeout: 30) { (Hardening.resources(of: pid)?.fds ?? .max) <= idleFDs })
            afterRounds.append(Hardening.resources(of: pid)?.rssKB ?? 0)
        }
        let after = Self.settledRSS(of: pid)
        let report = """
            churn: \(Self.churnRounds) rounds of \(Self.churnClients) clients connecting (each read its hello) and closing; \
            RSS \(baseline) kB before, peak \(peak) kB, after each round \(afterRounds.map(String.init).joined(separator: " ")) kB, \
            \(after) kB once settled (\(after - baseline) kB over the baseline)
            """
        Self.stop(looping, report: report)
        if Self.environment["EDGESWIPE_SANITIZER"] == nil {
            #expect(after - baseline <= 10 * 1024, "\(report)")
        }
    }

    /// Stops a daemon of ``startLoopingDaemon(in:extraConfig:)``: it was still running, exits 0, and its
    /// well-behaved reader got a complete stream to the goodbye. Prints the report and appends it to the soak's.
    static func stop(_ looping: LoopingDaemon, report: String) {
        let (daemon, reader, streams) = (looping.daemon, looping.reader, looping.streams)
        let running = daemon.process.isRunning
        daemon.signal(SIGTERM)
        #expect(reader.wait(timeout: .now() + 60) == .success)
        #expect(daemon.waitForExit() == 0, "\(daemon.log.suffix(2000))")
        #expect(running)
        print(report)
        if let file = environment["EDGESWIPE_SOAK_REPORT"] { appendReport(report, to: file) }
        let s = streams[0]
        #expect(s?.endedWithGoodbye == true && s?.seqGaps.isEmpty == true && s?.problems.isEmpty == true, "the well-behaved reader is unaffected: \(s?.problems.prefix(3) ?? [])")
    }

    static func appendReport(_ text: String, to file: String) {
        let existing = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        try? (existing + text + "\n").write(toFile: file, atomically: true, encoding: .utf8)
    }

    /// Reads until the goodbye, checking `seq` and each transition's phases as it goes.
    static func readWellBehaved(path: String, timeoutSeconds: Double, greeted: () -> Void, ended: () -> Void = {}) -> Stream {
        var stream = Stream()
        guard let client = try? LineClient(path: path) else {
            stream.problems.append("cannot connect")
            return stream
        }
        var expectedSeq = 1
        var open: [Int: String] = [:]
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while deadline.timeIntervalSinceNow > 0, let line = client.readLine(timeoutSeconds: deadline.timeIntervalSinceNow) {
            guard let m = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                stream.problems.append("not JSON: \(line.prefix(100))")
                continue
            }
            stream.count += 1
            if m.type == "hello" { greeted() }
            let seq = m["seq"] as? Int ?? -1
            if seq != expectedSeq { stream.seqGaps.append("expected \(expectedSeq), got \(seq)") }
            expectedSeq = seq + 1
            if let phase = m.phaseLine { stream.phaseLines.append(phase) }
            if m.type == "transition", let id = m["id"] as? Int, let p = m["phase"] as? String, m["progress"] as? Bool != true {
                switch p {
                case "began":
                    if open[id] != nil { stream.problems.append("transition \(id) began twice") }
                    open[id] = p
                case "completed", "cancelled":
                    if open.removeValue(forKey: id) == nil { stream.problems.append("transition \(id) ended without beginning") }
                    ended()
                default:
                    if open[id] == nil { stream.problems.append("transition \(id) \(p) outside began...end") }
                }
            }
            if m.type == "lifecycle", let id = m["transition"] as? Int, open[id] == nil {
                stream.problems.append("lifecycle of transition \(id) outside it")
            }
            if m.type == "goodbye" {
                stream.endedWithGoodbye = true
                if !open.isEmpty { stream.problems.append("transitions without an end before the goodbye: \(open.keys.sorted())") }
                break
            }
        }
        return stream
    }

    /// One churning client. Returns a client to keep open for a while (stalled readers), or nil.
    static func churn(_ kind: Churn, path: String) throws -> LineClient? {
        let client = try LineClient(path: path)
        switch kind {
        case .helloAndLeave:
            guard client.readLine(timeoutSeconds: 10)?.contains(#""type":"hello""#) == true else { throw DaemonTestError("no hello") }
        case .malformed:
            client.send("{\"op\":\"push\",\"container\":")
            client.send("\u{1}\u{2}garbage\u{7f}")
            guard Self.readUntilError(client) else { throw DaemonTestError("no error for a malformed line") }
        case .oversized:
            client.sendRaw(Array(repeating: UInt8(ascii: "x"), count: 200_000) + [10])
            guard Self.readUntilError(client) else { throw DaemonTestError("no error for an oversized line") }
        case .vanishMidWrite:
            client.sendRaw(Array(#"{"op":"subscribe","topics":["transi"#.utf8))
        case .vanishAtOnce:
            break
        case .slowReader:
            // Reads a line now and then, subscribed to everything.
            for _ in 0..<5 {
                _ = client.readLine(timeoutSeconds: 1)
                usleep(50_000)
            }
        case .stalledReader:
            client.send(#"{"op":"subscribe","tick_hz":240}"#)
            return client
        }
        return nil  // closed as it goes (LineClient closes in deinit; never close it twice)
    }

    static func readUntilError(_ client: LineClient) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while deadline.timeIntervalSinceNow > 0, let line = client.readLine(timeoutSeconds: deadline.timeIntervalSinceNow) {
            if line.contains(#""type":"error""#) { return true }
        }
        return false
    }
}
