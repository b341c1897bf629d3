import ArgumentParser
import EdgeSwipeBenchSupport
import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeInput
import EdgeSwipeRecordings
import EdgeSwipePlot
import Foundation
import Glibc

/// `edgeswipe-bench`: the process-level benchmarks (throughput, latency, fan-out, idle cost, memory,
/// start-up, allocations), printed as one JSON object with `--json`. docs/PERFORMANCE.md explains every field.
/// Every loop is bounded in time and count; the daemon runs on Unix sockets in a temp dir and is stopped here.
@main
struct EdgeSwipeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edgeswipe-bench",
        abstract: "Measures edgeswiped (pipeline throughput, latency to 1-1000 clients, idle cost, memory, start-up, allocations) and its clients.",
        discussion: """
            Runs the pipeline in-process on the real recordings (../shared/recordings, when present) and a \
            synthetic 10-finger 240 Hz stream; starts the real edgeswiped (next to this binary, or --daemon) with \
            --replay on Unix sockets in a temp dir for the latency, idle, memory and start-up figures; and the real \
            clients (next to the daemon, or --clients-dir) for the session, overlay and web sections, each beside \
            its floor: a bare C client, the compositor's frame interval on headless sway, socat. Takes about eight \
            minutes (latency in three rounds, each with its floors; the clients about four). See docs/PERFORMANCE.md.
            """)

    @Flag(name: .long, help: "Print one JSON object on stdout (progress goes to stderr).")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Folder of recordings (default: ../shared/recordings above the working directory or this binary).", valueName: "dir"))
    var recordings: String?

    @Option(name: .long, help: ArgumentHelp("The edgeswiped binary (default: the one next to this binary; `make install` ships the static build, so build the bench with --static-swift-stdlib, as scripts/bench.sh does, or pass that binary here). rss_mb says which binary it measured and how it links the Swift runtime.", valueName: "path"))
    var daemon: String?

    @Option(name: .long, help: "Passes over the recordings for pipeline_events_per_s (the median is reported).")
    var passes = 7

    @Option(name: .long, help: "Seconds of the synthetic 10-finger stream in each pipeline pass.")
    var syntheticSeconds: Double = 10

    @Option(name: .long, help: "Seconds of the 240 Hz replay for each latency run (one client count in one round).")
    var latencySeconds: Double = 4

    @Option(name: .long, help: "Rounds of latency runs: each round measures the floor and then every client count, and each figure pools its rounds.")
    var rounds = 3

    @Option(name: .long, help: ArgumentHelp("Draw latency against client count, with the floor and the targets, as an SVG file (docs/PERFORMANCE.md shows one).", valueName: "file"))
    var latencyPlot: String?

    @Option(name: .long, help: ArgumentHelp("With --latency-plot: draw the curve of an earlier run's --json output instead of measuring.", valueName: "file"))
    var replot: String?

    @Option(name: .long, parsing: .upToNextOption, help: "Client counts for latency_us.")
    var clients: [Int] = [1, 10, 100, 1000]

    @Option(name: .long, help: ArgumentHelp("Idle clients the daemon's input thread writes to directly per batch, the rest through its event loop (0: every write through the loop, the two-hop path). Default: the daemon's (all).", valueName: "n"))
    var directWrites: Int?

    @Option(name: .long, help: ArgumentHelp("While each latency run streams, a newcomer connects every this many milliseconds and times its hello (hello_while_streaming_us): what a client waits to be let in while every publish is sent out. Off by default: the newcomers are load of their own.", valueName: "ms"))
    var helloProbeMs: Double?

    @Option(name: .long, help: "Seconds of the idle window.")
    var idleSeconds: Double = 10

    @Option(name: .long, help: "Seconds the daemon runs before the idle window opens (the Swift runtime's worker threads settle).")
    var idleSettle: Double = 6

    @Option(name: .long, help: "Start-ups measured for startup_ms (the median is reported).")
    var startupRuns = 10

    @Option(name: .long, help: ArgumentHelp("Where edgeswipe-session and edgeswipe-web are, for the client sections (default: next to the daemon).", valueName: "dir"))
    var clientsDir: String?

    @Option(name: .long, help: "session: swipes to each client in each round.")
    var sessionGestures = 200

    @Option(name: .long, help: "session: rounds, each the floor client and then edgeswipe-session.")
    var sessionRounds = 3

    @Option(name: .long, help: "session: seconds connected and quiet, for its wake-ups.")
    var sessionIdleSeconds: Double = 5

    @Option(name: .long, help: "overlay: seconds of continuous swiping on headless sway.")
    var overlaySeconds: Double = 20

    @Option(name: .long, help: "overlay: seconds quiet after the swiping, for its wake-ups.")
    var overlayIdleSeconds: Double = 10

    @Option(name: .long, help: "web: seconds of streaming for each tab count.")
    var webSeconds: Double = 20

    @Option(name: .long, parsing: .upToNextOption, help: "web: the tab counts (0 measures the floor and the daemon alone; the bridge serves at most 64).")
    var webTabs: [Int] = [1, 64]

    @Option(name: .long, parsing: .upToNextOption, help: "Run only these sections: pipeline, encoders, allocs, swipes, startup, idle, latency, session, overlay, web.")
    var only: [String] = []

    @Option(name: .long, help: ArgumentHelp("For callgrind: run one stage (decode, engine, encode, pipeline, steady, setup) and exit.", valueName: "stage"))
    var profile: String?

    @Option(name: .long, help: "Evdev events' worth of work for --profile.")
    var events = 100_000

    @Option(name: .long, help: ArgumentHelp("Write the synthetic 10-finger 240 Hz stream (--latency-seconds of it) as an evemu file, and exit: the recording the latency runs replay.", valueName: "file"))
    var writeRecording: String?

    func validate() throws {
        let sections: Set<String> = ["pipeline", "encoders", "allocs", "swipes", "startup", "idle", "latency", "session", "overlay", "web"]
        for s in only where !sections.contains(s) { throw ValidationError("--only takes \(sections.sorted().joined(separator: ", ")) (got \(s))") }
        guard passes >= 1, passes <= 100 else { throw ValidationError("--passes must be 1...100") }
        guard clients.allSatisfy({ $0 >= 1 && $0 <= 5000 }) else { throw ValidationError("--clients must be 1...5000") }
        guard latencySeconds > 0, latencySeconds <= 600, idleSeconds > 0, idleSeconds <= 600 else {
            throw ValidationError("--latency-seconds and --idle-seconds must be in (0, 600]")
        }
        guard events > 0, events <= 100_000_000 else { throw ValidationError("--events must be 1...100000000") }
        guard rounds >= 1, rounds <= 50 else { throw ValidationError("--rounds must be 1...50") }
        if let helloProbeMs, !(1...10_000).contains(helloProbeMs) { throw ValidationError("--hello-probe-ms must be 1...10000") }
        guard (1...10_000).contains(sessionGestures), (1...50).contains(sessionRounds) else {
            throw ValidationError("--session-gestures must be 1...10000 and --session-rounds 1...50")
        }
        guard [sessionIdleSeconds, overlaySeconds, overlayIdleSeconds, webSeconds].allSatisfy({ $0 > 0 && $0 <= 600 }) else {
            throw ValidationError("--session-idle-seconds, --overlay-seconds, --overlay-idle-seconds and --web-seconds must be in (0, 600]")
        }
        guard !webTabs.isEmpty, webTabs.allSatisfy({ (0...64).contains($0) }) else { throw ValidationError("--web-tabs must be 0...64 (the bridge serves at most 64 tabs)") }
    }

    func run() throws {
        // A write to a socket whose reader has gone must fail with EPIPE, not end the benchmark.
        signal(SIGPIPE, SIG_IGN)
        if let profile {
            print(try runProfile(stage: profile, events: events).rendered(pretty: false))
            return
        }
        if let replot {
            guard let latencyPlot else { throw ValidationError("--replot needs --latency-plot FILE") }
            try LatencyCurve(run: replot).svg().write(toFile: latencyPlot, atomically: true, encoding: .utf8)
            return
        }
        if let writeRecording {
            let stream = BenchCorpus.synthetic(seconds: latencySeconds)
            try Evemu.write(stream.description, events: stream.events).write(toFile: writeRecording, atomically: true, encoding: .utf8)
            return
        }
        let started = monotonicSeconds()
        func wants(_ s: String) -> Bool { only.isEmpty || only.contains(s) }
        func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }
        var report: [(String, JSONValue)] = []
        var details: [(String, JSONValue)] = []
        var notes: [String] = []

        report.append(("machine", machine()))

        let synthetic = BenchCorpus.synthetic(seconds: syntheticSeconds)
        if wants("pipeline") || wants("encoders") {
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
            let dir = BenchCorpus.findRecordings(from: FileManager.default.currentDirectoryPath, explicit: recordings)
                ?? BenchCorpus.findRecordings(from: executable, explicit: nil)
            var real: [DeviceStream]
            var source: String
            var skipped: [String] = []
            if let dir {
                let found = BenchCorpus.recordings(in: dir)
                real = found.streams
                skipped = found.skipped
                source = dir
            } else {
                real = [BenchCorpus.demo()]
                source = "demo/edgeswipe-demo.evemu (no ../shared/recordings found)"
                notes.append("../shared/recordings was not found: pipeline_events_per_s uses the demo recording and the synthetic stream only")
            }
            if wants("pipeline") {
                log("pipeline: \(real.count) recorded devices from \(source), plus \(synthetic.events.count) synthetic events, \(passes) passes")
                let p = measurePipeline(real: real, synthetic: synthetic, passes: passes, log: log)
                if case .object(let fields) = p, let rate = fields["events_per_s"] {
                    report.append(("pipeline_events_per_s", rate))
                }
                details.append(("pipeline", .fields([
                    ("recordings", .string(source)),
                    ("recorded_devices", .array(real.map { .string("\($0.name) (\($0.events.count) events)") })),
                    ("skipped", .array(skipped.map { .string($0) })),
                    ("synthetic", .string(synthetic.name)),
                    ("result", p),
                ])))
            }
            if wants("encoders") {
                log("encoders: the protocol's writer against JSONEncoder, per message and in the pipeline")
                details.append(("encoders", measureEncoders(real: real, synthetic: synthetic, passes: passes, log: log)))
            }
        }

        if wants("allocs") {
            log("allocations: steady state, whole swipes, pipeline, encoder")
            let a = measureAllocations(synthetic: synthetic)
            if case .object(let fields) = a, let v = fields["allocs_per_event"] {
                report.append(("allocs_per_event", v))
            }
            details.append(("allocations", a))
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            details.append(("server_publish_allocations", try measureServerPublish(synthetic: synthetic, socketPath: scratch.file("publish.sock"))))
        }

        if wants("swipes") {
            log("swipes: the 3-finger stream through the pipeline, its steady allocations, libinput's path")
            let w = measureSwipes(seconds: syntheticSeconds, passes: passes, log: log)
            if case .object(let fields) = w {
                if let v = fields["events_per_s"] { report.append(("swipe_pipeline_events_per_s", v)) }
                if let v = fields["steady_allocs_per_frame"] { report.append(("swipe_allocs_per_event", v)) }
            }
            details.append(("swipes", w))
        }

        let needsDaemon = wants("latency") || wants("idle") || wants("startup") || wants("session") || wants("overlay") || wants("web")
        if needsDaemon {
            let limit = raiseFileLimit()
            let path = daemon ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
                .deletingLastPathComponent().appendingPathComponent("edgeswiped").path
            let bench = try DaemonBench(
                daemon: path, latencySeconds: latencySeconds, idleSpan: idleSettle + idleSeconds + 20,
                extraArguments: directWrites.map { ["--direct-writes", String($0)] } ?? [], log: log)
            details.append(("daemon", .string(path)))
            var peak100: ProcSample?

            if wants("latency") {
                // Rounds: the floor and every client count are measured in turn, `rounds` times, and each figure
                // pools its rounds' samples. This VM's wake-up cost drifts by a third within minutes (the 1-hop
                // floor's p50 moved 136 -> 151 us between two runs back to back), so a floor measured once, after
                // all the client counts, was a different machine from theirs: interleaved, every figure and its
                // floor see the same mix of conditions. Each round's own ratios are in `details` to show the spread.
                var rss100: Int?
                var peak: ProcSample?
                var samples: [Int: [Int32]] = [:]
                var floorSamples: [Int: [Int32]] = [:]
                var matchedSamples: [Int: [Int32]] = [:]
                var helloSamples: [Int: [Int32]] = [:]
                var runs: [Int: [JSONValue]] = [:]
                var complete: [Int: Bool] = [:]
                var byRound: [JSONValue] = []
                let counts = clients.filter { n in
                    guard n <= limit - 64 else {
                        notes.append("latency with \(n) clients skipped: the open-file limit is \(limit)")
                        return false
                    }
                    return true
                }
                let frames = Int(latencySeconds * 240)
                for round in 1...rounds {
                    var oneHop: Percentiles?
                    for hops in [1, 2] {
                        log("latency, round \(round) of \(rounds): the \(hops)-hop floor, \(frames) frames")
                        let f = measureFloor(frames: frames, hops: hops)
                        floorSamples[hops, default: []] += f
                        if hops == 1 { oneHop = Percentiles(f) }
                    }
                    for n in counts {
                        log("latency, round \(round) of \(rounds): the floor with \(n) client\(n == 1 ? "" : "s") (no daemon), \(frames) frames")
                        matchedSamples[n, default: []] += measureFanOutFloor(frames: frames, clients: n)
                    }
                    var ratios: [(String, JSONValue)] = []
                    for n in counts {
                        log("latency, round \(round) of \(rounds): \(n) client\(n == 1 ? "" : "s"), \(latencySeconds) s of 240 Hz replay")
                        let r = try bench.latency(clients: n, seconds: latencySeconds, helloProbe: helloProbeMs.map { $0 / 1000 })
                        samples[n, default: []] += r.samples
                        helloSamples[n, default: []] += r.helloSamples
                        runs[n, default: []].append(r.json)
                        complete[n] = (complete[n] ?? true) && r.allEssentialLines
                        if !r.allEssentialLines {
                            notes.append("latency with \(n) clients, round \(round): not every client received every phase, terminal and lifecycle line (details.latency)")
                        }
                        if n == 100, r.maxRSSKB > (rss100 ?? 0) { rss100 = r.maxRSSKB; peak = r.peak }
                        ratios.append((String(n), .fields([
                            ("p50", .num(ratio(r.percentiles?.p50, oneHop?.p50), digits: 2)),
                            ("p99", .num(ratio(r.percentiles?.p99, oneHop?.p99), digits: 2)),
                        ])))
                    }
                    byRound.append(.fields([
                        ("floor_1_hop_us", .fields([("p50", .num(oneHop?.p50, digits: 0)), ("p99", .num(oneHop?.p99, digits: 0))])),
                        ("ratio_to_this_rounds_floor", .fields(ratios)),
                        ("load_average", .string(loadAverage())),
                    ]))
                }
                let measured = counts.map { ($0, Percentiles(samples[$0] ?? [])) }
                report.append(("latency_us", .fields(measured.map { n, p in
                    (String(n), .fields([
                        ("p50", .num(p?.p50, digits: 0)), ("p99", .num(p?.p99, digits: 0)), ("p999", .num(p?.p999, digits: 0)),
                    ]))
                })))
                details.append(("latency", .fields(counts.map { (String($0), .array(runs[$0] ?? [])) })))
                var floor: [(String, JSONValue)] = []
                var floorHops: [Percentiles?] = []
                for hops in [1, 2] {
                    let p = Percentiles(floorSamples[hops] ?? [])
                    floorHops.append(p)
                    floor.append(("\(hops)_hop\(hops == 1 ? "" : "s")", .fields([
                        ("p50", .num(p?.p50, digits: 0)), ("p99", .num(p?.p99, digits: 0)), ("p999", .num(p?.p999, digits: 0)),
                        ("mean", .num(p?.mean, digits: 1)), ("samples", .integer(p?.count ?? 0)),
                    ])))
                }
                details.append(("latency_floor_us", .fields(floor)))
                // The floor with as many clients, the same readers and no daemon work: what the daemon adds over the
                // kernel's own fan-out.
                let matched = counts.map { ($0, Percentiles(matchedSamples[$0] ?? [])) }
                details.append(("latency_matched_floor_us", .fields(matched.map { n, p in
                    (String(n), .fields([("p50", .num(p?.p50, digits: 0)), ("p99", .num(p?.p99, digits: 0)), ("p999", .num(p?.p999, digits: 0))]))
                })))
                report.append(("latency_ratio_to_matched_floor", .fields(zip(measured, matched).map { m, f in
                    (String(m.0), .fields([
                        ("p50", .num(ratio(m.1?.p50, f.1?.p50), digits: 2)), ("p99", .num(ratio(m.1?.p99, f.1?.p99), digits: 2)),
                    ]))
                })))
                details.append(("latency_rounds", .array(byRound)))
                // Latency as a multiple of the same run's 1-hop floor, quantile by quantile, over the pooled rounds:
                // on a virtual machine a thread wake-up costs more than the daemon's whole per-event work, so only
                // the ratio compares.
                if let one = floorHops.first {
                    report.append(("latency_ratio_to_floor", .fields(measured.map { n, p in
                        (String(n), .fields([
                            ("p50", .num(ratio(p?.p50, one?.p50), digits: 2)), ("p99", .num(ratio(p?.p99, one?.p99), digits: 2)),
                        ]))
                    })))
                }
                if let latencyPlot, let one = floorHops.first ?? nil {
                    let curve = LatencyCurve(
                        points: measured.compactMap { n, p in p.map { LatencyCurve.Point(clients: n, p50: $0.p50, p99: $0.p99) } },
                        floorP50: one.p50, floorP99: one.p99, targets: LatencyCurve.shortestPathTargets,
                        caption: "edgeswipe-bench, \(bench.swiftRuntime ?? "unknown") Swift runtime, \(rounds) round\(rounds == 1 ? "" : "s") of \(latencySeconds) s, "
                            + "load \(loadAverage()) at the end, \(nproc()) cores")
                    try curve.svg().write(toFile: latencyPlot, atomically: true, encoding: .utf8)
                    log("latency: the curve is in \(latencyPlot)")
                }
                if helloProbeMs != nil {
                    report.append(("hello_while_streaming_us", .fields(counts.map { n in
                        let p = Percentiles(helloSamples[n] ?? [])
                        return (String(n), .fields([
                            ("p50", .num(p?.p50, digits: 0)), ("p99", .num(p?.p99, digits: 0)), ("samples", .integer(p?.count ?? 0)),
                        ]))
                    })))
                }
                report.append(("latency_every_client_got_every_phase", .fields(counts.map { (String($0), .bool(complete[$0] ?? false)) })))
                if let rss100 { details.append(("rss_100_clients_kb", .integer(rss100))) }
                peak100 = peak
            }

            if wants("idle") {
                log("idle: \(idleSeconds) s with the device open and nothing touching it")
                let idle = try bench.idle(seconds: idleSeconds, settle: idleSettle)
                report.append(("idle_wakeups_per_s", .num(idle?.wakeupsPerSecond, digits: 3)))
                report.append(("idle_wakeups_per_s_own_threads", .num(idle?.ownWakeupsPerSecond, digits: 3)))
                report.append(("idle_cpu_ms_per_s", .num(idle?.cpuMSPerSecond, digits: 3)))
                // With 100 clients connected to the same idle daemon; and the peak while streaming to 100 clients,
                // which also holds the whole replayed recording in memory (a live daemon holds none).
                log("memory: 100 clients connected to the idle daemon")
                let with100 = try bench.rssWithClients(100)
                var rss: [(String, JSONValue)] = [
                    ("0_clients", .num(idle.map { Double($0.rssKB) / 1024 }, digits: 2)),
                    ("100_clients", .num(with100.map { Double($0.rssKB) / 1024 }, digits: 2)),
                    ("0_clients_anon", .num(idle.map { Double($0.sample.rssAnonKB) / 1024 }, digits: 2)),
                    ("100_clients_anon", .num(with100.map { Double($0.rssAnonKB) / 1024 }, digits: 2)),
                    ("100_clients_pss", .num(with100.map { Double($0.pssKB) / 1024 }, digits: 2)),
                    ("100_clients_threads", .integer(with100?.threads.count ?? 0)),
                    ("100_clients_thread_names", .array((with100?.threads ?? []).map { .string($0.name) })),
                    ("daemon", .string(path)),
                    ("daemon_swift_runtime", bench.swiftRuntime.map { .string($0) } ?? .null),
                    ("daemon_binary_mb", .num(fileSizeMB(path), digits: 1)),
                ]
                if let peak100 {
                    rss.append(("100_clients_streaming", .num(Double(peak100.rssKB) / 1024, digits: 2)))
                    rss.append(("100_clients_streaming_anon", .num(Double(peak100.rssAnonKB) / 1024, digits: 2)))
                }
                report.append(("rss_mb", .fields(rss)))
                let gateSeconds = min(idleSeconds, 3)
                log("idle: \(gateSeconds) s waiting at --wait-for-clients with nobody connecting")
                let gate = try bench.gateIdle(seconds: gateSeconds)
                log("idle: \(idleSeconds) s of live input (libinput udev backend) on this machine")
                let live = try bench.liveIdle(seconds: idleSeconds, settle: idleSettle)
                details.append(("idle", .fields([
                    ("replay_idle", idle?.json ?? .null),
                    ("wait_for_clients_gate", gate?.json ?? .null),
                    ("live_udev", live?.json ?? .null),
                ])))
            }

            if wants("startup") {
                log("startup: \(startupRuns) runs")
                let s = try bench.startup(runs: startupRuns)
                if case .object(let fields) = s, let v = fields["startup_ms"] {
                    report.append(("startup_ms", v))
                }
                details.append(("startup", s))
            }
            try measureClients(daemon: bench, wants: wants, report: &report, details: &details, notes: &notes, log: log)
            notes += bench.notes
        }

        details.append(("seconds", .num(monotonicSeconds() - started, digits: 1)))
        report.append(("details", .fields(details)))
        report.append(("notes", .array(notes.map { .string($0) })))
        let object = JSONValue.fields(report)
        if json {
            print(object.rendered())
        } else {
            for (key, value) in report where key != "details" {
                print("\(key): \(value.rendered(pretty: false))")
            }
        }
    }

    private func fileSizeMB(_ path: String) -> Double? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else { return nil }
        return size.doubleValue / 1_048_576
    }

    private func ratio(_ value: Double?, _ floor: Double?) -> Double? {
        guard let value, let floor, floor > 0 else { return nil }
        return value / floor
    }

    private func nproc() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// The 1, 5 and 15 minute load averages, as /proc/loadavg gives them.
    private func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }

    private func machine() -> JSONValue {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        var uts = utsname()
        uname(&uts)
        let release = withUnsafeBytes(of: &uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #if compiler(>=6.4)
            let swift = ">= 6.4"
        #elseif compiler(>=6.3)
            let swift = "6.3"
        #elseif compiler(>=6.2)
            let swift = "6.2"
        #else
            let swift = "< 6.2"
        #endif
        let load = loadAverage()
        return .fields([
            ("nproc", .integer(nproc())),
            ("cpu", .string(model)),
            ("kernel", .string(release)),
            ("swift_compiler", .string(swift)),
            // Other work on the machine skews wall-clock figures (not callgrind's instruction counts).
            ("load_average_at_start", .string(load)),
        ])
    }
}

extension LatencyCurve {
    /// The curve of a saved `edgeswipe-bench --json` run: its `latency_us`, its 1-hop floor and the issue-16 targets.
    init(run path: String) throws {
        let failure = ValidationError("\(path): not an edgeswipe-bench --json run with latency_us and details.latency_floor_us.1_hop")
        let run: JSONValue
        do { run = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))), maxDepth: 64) } catch {
            throw ValidationError("\(path): \(error)")
        }
        guard case .object(let root) = run, case .object(let latency)? = root["latency_us"], case .object(let details)? = root["details"],
              case .object(let floors)? = details["latency_floor_us"], case .object(let floor)? = floors["1_hop"],
              let floorP50 = floor["p50"]?.doubleValue, let floorP99 = floor["p99"]?.doubleValue
        else { throw failure }
        let points = latency.compactMap { key, value -> Point? in
            guard let clients = Int(key), case .object(let q) = value, let p50 = q["p50"]?.doubleValue, let p99 = q["p99"]?.doubleValue
            else { return nil }
            return Point(clients: clients, p50: p50, p99: p99)
        }
        var rounds = 1
        if case .array(let each)? = details["latency_rounds"] { rounds = each.count }
        var load = "?"
        if case .object(let machine)? = root["machine"], case .string(let text)? = machine["load_average_at_start"] { load = text }
        self.init(
            points: points, floorP50: floorP50, floorP99: floorP99, targets: Self.shortestPathTargets,
            caption: "edgeswipe-bench, \(rounds) round\(rounds == 1 ? "" : "s"), load \(load) at the start (\((path as NSString).lastPathComponent))")
    }
}
