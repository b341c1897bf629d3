import ArgumentParser
import EdgeSwipeClient
import EdgeSwipeCore
import EdgeSwipeProtocol
import Glibc

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
    }

    private func human() async throws {
        let client = EdgeSwipeClient(
            socketPath: socket.path,
            configuration: ClientConfiguration(reconnect: ReconnectPolicy(maxAttempts: nil), requestTimeout: .seconds(5)))
        var view = MonitorView(interactive: isatty(STDOUT_FILENO) == 1)
        var seen = 0
        do {
            for try await message in client.messages() {
                view.show(message)
                seen += 1
                if let count, seen >= count { break }
            }
        } catch {
            view.finish()
            warn("edgeswipectl: \(socket.path): \(error)")
            throw ExitCode(CtlExit.unavailable)
        }
        view.finish()
    }
}

/// The monitor's screen: a scrolling log of events, with a status line of progress bars kept at the bottom when
/// the output is a terminal.
struct MonitorView {
    let interactive: Bool
    private var running: [UInt64: TransitionMessage] = [:]
    /// Blocked gestures in flight, by device: drawn as a rubber band in the status line.
    private var blocked: [UInt32: GestureMessage] = [:]
    private var statusShown = false

    init(interactive: Bool) { self.interactive = interactive }

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
                    if let mm = g.overscrollMM { line += String(format: ", overscroll %.1f mm", mm) }
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

    mutating func finish() {
        if statusShown { print("\u{1B}[2K\r", terminator: "") }
        statusShown = false
        fflush(nil)
    }

    private mutating func log(_ line: String) {
        if statusShown { print("\u{1B}[2K\r", terminator: "") }
        statusShown = false
        print(line)
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
            return "[device \(g.device)] \(Self.name(of: g)) blocked \(bar) \(String(format: "%.1f", mm)) mm"
        }
        let all = bars + bands
        print("\u{1B}[2K\r" + all.joined(separator: "  "), terminator: "")
        statusShown = !all.isEmpty
        fflush(nil)
    }

    /// An edge gesture by its edge (`left`), a swipe by its direction (`swipe left`).
    static func name(of g: GestureMessage) -> String {
        if let edge = g.edge { return edge.rawValue }
        return "\(g.kind) \(g.direction?.rawValue ?? "?")"
    }

    /// `n` padded with spaces on the left to `width` characters, as `%3d` prints it.
    static func rightAligned(_ n: Int, width: Int) -> String {
        let digits = String(n)
        return String(repeating: " ", count: max(0, width - digits.count)) + digits
    }
}
