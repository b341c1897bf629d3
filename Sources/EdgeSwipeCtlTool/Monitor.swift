import ArgumentParser
import EdgeSwipeClient
import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Glibc
import SystemPackage

struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch gestures and transitions live.",
        discussion: """
            Shows a progress bar per running transition, with its phase and edge, and a line for every gesture, \
            phase change, lifecycle event and device. With --json it prints the daemon's lines exactly as they \
            arrive. It reconnects when the daemon restarts, until interrupted.
            """)

    @OptionGroup var socket: SocketOptions
    @Flag(name: .long, help: "Print the raw protocol lines.") var json = false
    @Option(name: .long, help: ArgumentHelp("Stop after this many messages (for scripts).", valueName: "n")) var count: Int?
    @Option(name: .long, help: ArgumentHelp(
        "A line to keep in view: on a terminal, at the bottom, under the progress bars; otherwise printed once, first.",
        discussion: "scripts/quickstart keeps the web page's address there.", valueName: "text"))
    var footer: String?
    @Flag(name: .long, help: ArgumentHelp(
        "Also show each line read from standard input, among the events, above the bars.",
        discussion: "scripts/quickstart says there what happens while the monitor runs (the web page coming up): a line written to the terminal beside the monitor would land on its bottom lines."))
    var notes = false

    func run() async throws {
        if json { try raw() } else { try await human() }
    }

    private func raw() throws {
        let connection = try RawConnection.open(socket.path)
        var seen = 0
        while let line = connection.readLine() {
            print(line)
            fflush(nil)
            seen += 1
            if let count, seen >= count { return }
        }
        // A daemon that stops says goodbye first; one that closes before its hello, with nothing said, does not
        // admit this user (that is how it refuses a peer): a script must not read that as a stream that ended.
        if seen == 0 {
            warn("edgeswipectl: \(ClientError.notAdmitted(path: socket.path, uid: getuid()))")
            throw ExitCode(CtlExit.notAdmitted)
        }
    }

    private func human() async throws {
        let daemon = socket.daemon
        let client = EdgeSwipeClient(
            socket: daemon, configuration: ClientConfiguration(reconnect: ReconnectPolicy(maxAttempts: nil), requestTimeout: .seconds(5)))
        // The monitor waits for a daemon that is not there yet (it reconnects until interrupted, looking again at
        // each of the default's paths): say so once, without a probe connection, which would count as a client of
        // a replay held for one.
        if !daemon.paths.contains(where: { (try? Stat(FilePath($0))) != nil }) {
            warn("edgeswipectl: no daemon is listening at \(daemon). \(EdgeSwipeClient.noDaemonAdvice) Waiting for one; Ctrl-C stops.")
        }
        var view = MonitorView(interactive: isatty(STDOUT_FILENO) == 1, footer: footer)
        var seen = 0
        for await item in Self.shown(client.messages(), notes: notes) {
            switch item {
            case .message(let message):
                view.show(message)
                seen += 1
                if let count, seen >= count {
                    view.finish()
                    return
                }
            case .note(let line):
                view.note(line)
            case .ended(nil):
                view.finish()
                return
            case .ended(let error?):
                view.finish()
                throw unreachable(client.socketPath, error)
            }
        }
        view.finish()
    }

    /// What the monitor shows, in the order it arrived: the daemon's messages and, with `--notes`, the lines of
    /// standard input.
    enum Shown: Sendable {
        case message(ServerMessage)
        case note(String)
        case ended(ClientError?)
    }

    /// The daemon's messages, with standard input's lines among them when `notes`: one sequence, so that one loop
    /// owns the screen.
    static func shown(_ messages: MessageStream, notes: Bool) -> AsyncStream<Shown> {
        let (stream, continuation) = AsyncStream<Shown>.makeStream()
        let reader = Task {
            do {
                for try await message in messages { continuation.yield(.message(message)) }
                continuation.yield(.ended(nil))
            } catch {
                continuation.yield(.ended(error as? ClientError ?? .closed))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in reader.cancel() }
        if notes {
            // A blocking read on a thread of its own; it ends at the end of input (and with the process). Without
            // a thread the notes are not read, and the monitor goes on without them. read(2), not readLine: stdio
            // holds stdin's lock through a blocking read, and the view's fflush(nil) takes every stream's lock.
            _ = try? SystemThread.start(name: "monitor-notes", detached: true) {
                var pending: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { break }
                    pending += chunk[0..<n]
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        continuation.yield(.note(String(decoding: pending[..<newline], as: UTF8.self)))
                        pending.removeSubrange(...newline)
                    }
                }
                if !pending.isEmpty { continuation.yield(.note(String(decoding: pending, as: UTF8.self))) }
            }
        }
        return stream
    }
}

/// The monitor's screen: a scrolling log of events, with a status line of progress bars (and the footer, when
/// there is one) kept at the bottom when the output is a terminal.
struct MonitorView {
    let interactive: Bool
    /// A line kept under the status line (a terminal), or printed once before anything else.
    let footer: String?
    private var running: [UInt64: TransitionMessage] = [:]
    /// Blocked gestures in flight, by device: drawn as a rubber band in the status line.
    private var blocked: [UInt32: GestureMessage] = [:]
    /// The rows drawn at the bottom (status line, footer), which the next log line first erases.
    private var statusLines = 0

    init(interactive: Bool, footer: String? = nil) {
        self.interactive = interactive
        self.footer = footer
        if !interactive, let footer { print(footer) }
    }

    mutating func show(_ message: ServerMessage) {
        switch message {
        case .hello(let h):
            log("connected to \(h.server) (protocol \(h.protocolVersion)); \(h.devices.count) device\(h.devices.count == 1 ? "" : "s")")
            for c in h.state.containers { log("  \(c.name): \(c.describe)") }
            running = [:]
            blocked = [:]
        case .gesture(let g):
            if g.blocked != nil, g.state == .began || g.state == .changed {
                blocked[g.device] = g
            } else {
                blocked[g.device] = nil
            }
            if g.state != .changed {
                var line = "gesture \(Self.name(of: g)) \(g.state.rawValue) (\(g.fingers) finger\(g.fingers == 1 ? "" : "s"), device \(g.device))"
                if let reason = g.reason { line += ": \(reason)" }
                if let why = g.blocked {
                    line += ", blocked: \(why)"
                    if let mm = g.overscrollMM { line += String(cFormat: ", overscroll %.1f mm", mm) }
                    if let a = g.animation { line += ", springs back over \(a.durationUS / 1000) ms" }
                }
                log(line)
            } else if g.blocked != nil && !interactive {
                return
            }
        case .transition(let t):
            if t.phase.isTerminal {
                running[t.id] = nil
                log("\(t.phase == .completed ? "completed" : "cancelled") \(t.id) \(t.operation) \(t.container): \(t.from) -> \(t.to)")
            } else {
                if t.phase == .began {
                    let driver = t.swipeDirection.map { "\(t.swipeFingers ?? 0)-finger swipe \($0.rawValue)" } ?? "\(t.edge?.rawValue ?? "?") edge"
                    log("began \(t.id) \(t.operation) \(t.container): \(t.from) -> \(t.to)\(t.interactive ? ", \(driver)" : ", requested")")
                } else if !t.progress {
                    var line = "\(t.phase.rawValue) \(t.id) at \(Int((t.percent * 100).rounded()))%"
                    if let a = t.animation { line += ", \(a.curve) over \(a.durationUS / 1000) ms" }
                    log(line)
                }
                running[t.id] = t
                if !interactive && t.progress { return }
            }
        case .lifecycle(let l):
            log("  \(l.scene) \(l.event.rawValue)")
        case .presentation(let p):
            var line = "  \(p.kind.rawValue) \(p.phase.rawValue): \(p.presented) over \(p.presenting) (\(p.style.rawValue))"
            if let completed = p.completed { line += completed ? ", completed" : ", not completed" }
            log(line)
        case .interaction(let i):
            switch i.phase {
            case .ended:
                log("interaction ended \(i.transition) at \(Int((i.percent * 100).rounded()))%, running out toward \(i.cancelled == true ? "cancel" : "finish")")
            case .began:
                log("interaction began \(i.transition) at \(Int((i.percent * 100).rounded()))% (caught)")
            }
        case .device(let d):
            log("device \(d.change.rawValue): \(d.device.name) (\(d.device.kind.rawValue))")
        case .config(let c):
            log("configuration \(c.result.rawValue): \(c.message)")
        case .goodbye(let g):
            log("the daemon said goodbye: \(g.message)")
            running = [:]
            blocked = [:]
        case .state, .reply, .error, .unknown:
            break
        }
        drawStatus()
    }

    /// A line from outside the stream (``Monitor/notes``), logged as events are.
    mutating func note(_ line: String) {
        log(line)
        drawStatus()
    }

    mutating func finish() {
        eraseStatus()
        fflush(nil)
    }

    private mutating func log(_ line: String) {
        eraseStatus()
        print(line)
    }

    /// Clears the bottom lines, leaving the cursor at the start of the first.
    private mutating func eraseStatus() {
        guard statusLines > 0 else { return }
        print("\u{1B}[2K\r" + String(repeating: "\u{1B}[1A\u{1B}[2K", count: statusLines - 1), terminator: "")
        statusLines = 0
    }

    private mutating func drawStatus() {
        guard interactive else { fflush(nil); return }
        let bars = running.keys.sorted().compactMap { running[$0] }.map { t -> String in
            let width = 20
            let filled = Int((t.percent * Double(width)).rounded())
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            return "[\(t.id)] \(t.operation) \(bar) \(Self.rightAligned(Int((t.percent * 100).rounded()), width: 3))% \(t.phase.rawValue)\(t.edge.map { " \($0.rawValue)" } ?? "")\(t.swipeDirection.map { " swipe \($0.rawValue)" } ?? "")"
        }
        let bands = blocked.keys.sorted().compactMap { blocked[$0] }.map { g -> String in
            // The band as a bar of the same 20 cells as a transition's: 4 cells per millimetre, full at 5 mm.
            let mm = g.overscrollMM ?? 0
            let filled = min(20, Int((mm * 4).rounded()))
            let bar = String(repeating: "▓", count: filled) + String(repeating: "░", count: 20 - filled)
            return "[device \(g.device)] \(Self.name(of: g)) blocked \(bar) \(String(cFormat: "%.1f", mm)) mm"
        }
        let all = bars + bands
        eraseStatus()
        var lines = all.isEmpty ? [] : [all.joined(separator: "  ")]
        if let footer { lines.append(footer) }
        print(lines.joined(separator: "\n"), terminator: "")
        // A line longer than the terminal is wide wraps onto more rows, which the next erase must climb too.
        let columns = Terminal.columns(of: STDOUT_FILENO) ?? Int.max
        statusLines = lines.reduce(0) { $0 + Terminal.rows(of: $1, columns: columns) }
        fflush(nil)
    }

    /// An edge gesture by its edge (`left`), a swipe by its direction (`swipe left`).
    static func name(of g: GestureMessage) -> String {
        if let edge = g.edge { return edge.rawValue }
        return "\(g.gestureKind) \(g.direction?.rawValue ?? "?")"
    }

    /// `n` padded with spaces on the left to `width` characters, as `%3d` prints it.
    static func rightAligned(_ n: Int, width: Int) -> String {
        let digits = String(n)
        return String(repeating: " ", count: max(0, width - digits.count)) + digits
    }
}
