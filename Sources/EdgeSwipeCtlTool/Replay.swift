import ArgumentParser
import EdgeSwipeConfig
import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeInput
import EdgeSwipeRecordings
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Glibc
import SystemPackage

/// Runs recordings through the whole pipeline offline, on the recording's own virtual time.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay touch recordings offline through the recognizers and the transition engine.",
        discussion: """
            Reads evemu recordings (description inline, or events-only with a .desc found beside it or given with \
            --desc) and `libinput record` YAML files. Several files play at once, aligned at their first event. \
            Time is the recording's own, so the output is the same on every run. With --json it prints every \
            protocol message a subscribed client would receive, one JSON object per line (hello first), and exits \
            0 once the last transition has settled.
            """)

    @OptionGroup var input: ReplayInput

    @Flag(name: .long, help: "Print protocol messages as JSON lines instead of a readable log.")
    var json = false

    func run() throws {
        var replay = try OfflineReplay(input)
        let config = input.config
        let settings = replay.settings
        let output = ChunkedOutput()

        if json {
            var encoder = ProtocolLineEncoder()
            let summary = ConfigSummary(configuration: settings.engine, source: config ?? "built-in")
            // What a client connected before the first event would have been told: the hello carries the time of
            // the first event, so events wait until it is known (trace events carry none).
            var waiting: [EngineEvent] = []
            var greeted = false
            func hello(at time: MonotonicInstant) {
                encoder.encodeHello(
                    ServerSnapshot(
                        serverVersion: "edgeswipectl replay", devices: [], config: summary,
                        containers: settings.engine.containers, running: [], time: time),
                    time: time, into: &output.bytes)
                greeted = true
            }
            replay.play { event in
                if !greeted {
                    guard let time = event.time else {
                        waiting.append(event)
                        return
                    }
                    hello(at: time)
                    encoder.encode(waiting, into: &output.bytes)
                    waiting = []
                }
                encoder.encode(CollectionOfOne(event), into: &output.bytes)
                output.flushIfFull()
            }
            if !greeted {
                hello(at: .zero)
                encoder.encode(waiting, into: &output.bytes)
            }
        } else {
            var log = ReadableLog()
            replay.play { event in
                if let line = log.line(for: event) { output.append(line) }
            }
            output.append(log.summary)
        }
        output.flush()
        try replay.checkStreams()
    }
}

/// What `replay` and `plot` read: the recordings, an events-only file's description, the configuration.
struct ReplayInput: ParsableArguments {
    @Argument(help: ArgumentHelp("Recordings to play together (or, with --in-turn, one after another).", valueName: "file"))
    var files: [String]

    @Flag(name: .long, help: "Play the recordings one after another, a second apart, as edgeswiped --in-turn does.")
    var inTurn = false

    @Option(name: .long, help: ArgumentHelp("The evemu device description for events-only files.", valueName: "file"))
    var desc: String?

    @Option(name: .long, help: ArgumentHelp("Configuration file (TOML); default: the built-in one.", valueName: "file"))
    var config: String?
}

/// The offline pipeline `replay` and `plot` share: the configuration, the recordings streamed from their files,
/// the player on the recordings' own clock and the engine, with the same errors and exit codes for both.
struct OfflineReplay {
    let settings: EdgeSwipeSettings
    private(set) var player: RecordingPlayer
    private(set) var engine: Engine

    /// Loads the configuration (the built-in one when `config` is `nil`) and opens the recordings; prints what is
    /// wrong and throws the exit code when a file cannot be read or parsed.
    init(_ input: ReplayInput) throws {
        let (files, desc, config, inTurn) = (input.files, input.desc, input.config, input.inTurn)
        if let config {
            do {
                settings = try ConfigParser.load(path: config)
                for warning in settings.warnings { warn("edgeswipectl: \(warning)") }
            } catch {
                warn("edgeswipectl: \(error)")
                throw ExitCode(CtlExit.dataError)
            }
        } else {
            settings = .default
        }
        var recordings: [Recording] = []
        for file in files {
            guard access(file, R_OK) == 0 else {
                warn("edgeswipectl: \(file): cannot read the file")
                throw ExitCode(CtlExit.noInput)
            }
            // Streamed: the events are read from the file as they play, so a recording of any length replays in
            // the memory of a few lines (EvemuStream.swift).
            do { recordings.append(try Recording.stream(path: file, descriptionPath: desc)) } catch {
                warn("edgeswipectl: \(error)")
                throw ExitCode(CtlExit.dataError)
            }
        }
        player = RecordingPlayer(
            recordings: recordings,
            options: RecordingPlayer.Options(setup: settings.devices.setup(for: settings.engine), schedule: inTurn ? .aSecondApart : .together))
        for skipped in player.skipped { warn("edgeswipectl: skipping \(skipped)") }
        engine = Engine(configuration: settings.engine)
    }

    /// Plays every recording to its end, and every run-out after it; `input` sees each touch frame before the
    /// engine does.
    mutating func play(input: ((InputStep) -> Void)? = nil, _ body: (EngineEvent) -> Void) {
        player.play(into: &engine, input: input, body)
    }

    /// Throws the data-error exit code, saying why, if a streamed recording could not be played to its end.
    func checkStreams() throws {
        if let failure = player.streamFailures.first {
            warn("edgeswipectl: \(failure)")
            throw ExitCode(CtlExit.dataError)
        }
    }
}

/// Standard output written in large chunks as a replay goes, never held whole.
final class ChunkedOutput {
    var bytes: [UInt8] = []
    private static let chunk = 1 << 16

    init() { bytes.reserveCapacity(Self.chunk * 2) }

    func append(_ line: String) {
        bytes.append(contentsOf: line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        flushIfFull()
    }

    func flushIfFull() {
        if bytes.count >= Self.chunk { flush() }
    }

    func flush() {
        guard !bytes.isEmpty else { return }
        do { try FileDescriptor.standardOutput.writeAll(bytes) } catch {
            warn("edgeswipectl: cannot write the output: \(error)")
            exit(CtlExit.ioError)
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// A person's view of an event stream: every change of state, and progress only where it matters.
struct ReadableLog {
    private var start: MonotonicInstant?
    private var completed = 0
    private var cancelled = 0
    private var gestures = 0
    /// Each running transition's last phase, to tell a catch (a run-out taken back) from the first update.
    private var lastPhase: [TransitionID: PercentDrivenInteractiveTransition.Phase] = [:]

    private mutating func stamp(_ t: MonotonicInstant) -> String {
        let origin = start ?? t
        start = origin
        return String(cFormat: "%9.3fs", (t - origin).seconds)
    }

    mutating func line(for event: EngineEvent) -> String? {
        switch event {
        case .device(let d):
            let size = d.device.hasPhysicalSize
                ? String(cFormat: "%.0fx%.0f mm", d.device.size.width.value, d.device.size.height.value) : "size unknown"
            return "\(stamp(d.time)) device \(d.change.rawValue): \(d.device.id.rawValue) \"\(d.device.name)\" \(d.device.kind.rawValue), \(size)"
        case .gesture(let g):
            guard g.state != .changed else { return nil }
            if g.state == .began { gestures += 1 }
            let name = g.edge?.rawValue ?? "swipe \(g.trigger.direction?.rawValue ?? "?")"
            var line = "\(stamp(g.time)) gesture \(name) \(g.state.rawValue), \(g.fingers) finger\(g.fingers == 1 ? "" : "s") at (\(f2(g.location.x)), \(f2(g.location.y))), translation \(f1(g.translation.x)),\(f1(g.translation.y)) mm"
            if let failure = g.failureReason { line += " (\(failure))" }
            if let blocked = g.blocked {
                line += ", blocked: \(blocked.rawValue)"
                if let mm = g.overscrollMM { line += ", overscroll \(f1(mm.value)) mm" }
                if let a = g.animation { line += ", springs back over \(a.duration.value / 1000) ms" }
            }
            return line
        case .transition(let t):
            if t.isProgress { return nil }
            let previous = lastPhase[t.id]
            lastPhase[t.id] = t.phase.isTerminal ? nil : t.phase
            var line = "\(stamp(t.time)) transition \(t.id.rawValue) \(t.operation.name) \(t.container): \(t.from) -> \(t.to) \(t.phase.rawValue) at \(Int((t.percent.value * 100).rounded()))%"
            switch t.phase {
            case .began:
                let driver = t.swipe.map { ", \(t.swipeFingers ?? 0)-finger swipe \($0.rawValue)" } ?? t.edge.map { ", \($0.rawValue) edge" } ?? ""
                line += t.interactive ? " (interactive\(driver))" : " (requested)"
            case .finishing, .cancelling:
                line += String(cFormat: ", velocity %.2f/s", t.velocity.value)
                if let a = t.animation { line += ", \(a.curve.name) over \(a.duration.value / 1000) ms" }
            case .completed: completed += 1
            case .cancelled: cancelled += 1
            case .changed: if previous?.isRunningOut == true { line += " (caught)" }
            }
            return line
        case .lifecycle(let l):
            return "\(stamp(l.time))   \(l.scene) \(l.kind.rawValue)"
        case .presentation(let p):
            let completed = p.completed.map { $0 ? ", completed" : ", not completed" } ?? ""
            return "\(stamp(p.time))   \(p.kind.rawValue) \(p.phase.rawValue): \(p.presented) over \(p.presenting) (\(p.style.rawValue))\(completed)"
        case .interaction(let i):
            switch i.phase {
            case .ended:
                return "\(stamp(i.time)) interaction ended \(i.transition.rawValue) at \(Int((i.percent.value * 100).rounded()))%, toward \(i.cancelled == true ? "cancel" : "finish")"
            case .began:
                return "\(stamp(i.time)) interaction began \(i.transition.rawValue) at \(Int((i.percent.value * 100).rounded()))% (caught)"
            }
        case .state(let s):
            return "\(stamp(s.time))   state: " + s.containers.map { "\($0.name)=\($0.content.visibleScene)" }.joined(separator: " ")
        case .trace:
            return nil
        }
    }

    var summary: String {
        "\(gestures) gesture\(gestures == 1 ? "" : "s") began; \(completed) transition\(completed == 1 ? "" : "s") completed, \(cancelled) cancelled"
    }

    private func f1(_ x: Double) -> String { String(cFormat: "%.1f", x) }
    private func f2(_ x: Double) -> String { String(cFormat: "%.2f", x) }
}
