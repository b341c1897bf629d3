import EdgeSwipeBenchSupport
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Foundation
import Glibc

/// `--only web`: what `edgeswipe-web` adds (docs/PERFORMANCE.md, "The web bridge").
///
/// The real daemon replays the demo in a loop at twice its speed; the real bridge is one of its clients, `socat` (a
/// plain one-process relay) another, and a client connected straight to the daemon the reference. One thread here
/// reads them all with one `poll`: the reference, the stream through socat (the floor) and every tab's WebSocket.
/// Lines are matched across connections by their text without `seq`; times are the daemon's clock, so a direct
/// line's arrival minus its `time_us` is the daemon's own latency. Per tab count: the bridge's added latency against
/// the floor, its memory, and whether the tabs delay the daemon's other clients.
struct WebSection {
    let binaries: ClientBinaries
    let seconds: Double
    let tabs: [Int]
    let log: (String) -> Void

    func run(daemon: DaemonBench) throws -> JSONValue {
        if let why = ClientBinaries.missing(binaries.web) { throw BenchError(why) }
        guard let root = binaries.sourceRoot else { throw BenchError("the demo recording was not found: run from the checkout") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/socat") else { throw BenchError("socat is not installed (/usr/bin/socat): the floor relay") }
        var rows: [JSONValue] = []
        for n in tabs {
            log("web: \(seconds) s of the demo in a loop to \(n) tab\(n == 1 ? "" : "s"), socat and a direct client")
            rows.append(try measure(tabs: n, daemon: daemon, demo: root + "/demo/edgeswipe-demo.evemu"))
        }
        return .fields([
            ("what", .string("daemon line -> WebSocket frame (bridge) and -> socat relay (floor), against a client connected straight to the daemon, microseconds")),
            ("seconds", .num(seconds, digits: 1)),
            ("by_tabs", .array(rows)),
        ])
    }

    private func measure(tabs: Int, daemon: DaemonBench, demo: String) throws -> JSONValue {
        let stream = try daemon.stream(demo, arguments: ["--loop", "--speed", "2", "--wait-for-clients", "3"], limit: seconds + 60)
        defer { stream.child.stop() }
        let scratch = daemon.scratch
        let bridgeLog = scratch.file("web\(tabs).log")
        let (bridge, _) = try ChildProcess.spawn(binaries.web, ["--socket", stream.socket, "--listen", "127.0.0.1:0"], environment: daemon.environment, log: bridgeLog)
        defer { bridge.stop() }
        // Its first line is the page's address with the token: http://127.0.0.1:PORT/...token=TOKEN
        var address: Substring?
        let deadline = monotonicSeconds() + 20
        while address == nil {
            address = ((try? String(contentsOfFile: bridgeLog, encoding: .utf8)) ?? "").split(separator: "\n").first { $0.hasPrefix("http://") && $0.contains("token=") }
            guard address == nil else { break }
            guard monotonicSeconds() < deadline, bridge.isRunning else { throw BenchError("edgeswipe-web printed no address: \(tailOf(bridgeLog))") }
            sleepSeconds(0.02)
        }
        guard let address, let portText = address.split(separator: ":").dropFirst(2).first?.split(separator: "/").first,
            let port = UInt16(portText), let token = address.components(separatedBy: "token=").last
        else { throw BenchError("edgeswipe-web's address is not http://127.0.0.1:PORT/...token=...: \(address ?? "")") }
        let relay = scratch.file("relay\(tabs).sock")
        let (socat, _) = try ChildProcess.spawn("/usr/bin/socat", ["UNIX-LISTEN:\(relay),fork", "UNIX-CONNECT:\(stream.socket)"], environment: daemon.environment, log: scratch.file("socat\(tabs).log"))
        defer { socat.stop() }
        let rssIdle = ProcSample.statusField(pid: bridge.pid, "VmRSS:")
        var readers: [ArrivalReader] = []
        defer { for r in readers { close(r.fd) } }
        for i in 0..<tabs { readers.append(try ArrivalReader(webSocketTo: port, token: token, name: "tab\(i)")) }
        // The reference and the floor first: of the connections ready at once, they are read before the tabs.
        readers.insert(ArrivalReader(fd: try connectUnix(relay), name: "socat"), at: 0)
        readers.insert(ArrivalReader(fd: try connectUnix(stream.socket), name: "direct"), at: 0)
        var fds = readers.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let end = monotonicSeconds() + seconds
        var peak = rssIdle ?? 0
        var lastSample = 0.0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while monotonicSeconds() < end {
            guard poll(&fds, nfds_t(fds.count), 200) >= 0 else { if errno == EINTR { continue }; throw BenchError("poll: \(errnoText())") }
            for i in fds.indices where fds[i].revents != 0 {
                fds[i].revents = 0
                let n = buffer.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
                // Each connection's own time, just after its read.
                let now = monotonicMicroseconds()
                if n > 0 {
                    readers[i].feed(buffer[0..<n], at: now)
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    throw BenchError("\(readers[i].name) closed its connection (the daemon or the bridge stopped): \(tailOf(bridgeLog))")
                }
            }
            if monotonicSeconds() - lastSample > 0.2 {
                peak = max(peak, ProcSample.statusField(pid: bridge.pid, "VmRSS:") ?? 0)
                lastSample = monotonicSeconds()
            }
        }
        let rssEnd = ProcSample.statusField(pid: bridge.pid, "VmRSS:")
        guard let direct = readers.first(where: { $0.name == "direct" }), let relayed = readers.first(where: { $0.name == "socat" }) else {
            throw BenchError("no direct or socat reader")
        }
        var daemonLatency: [Int64] = [], floor: [Int64] = [], added: [Int64] = []
        for (line, t) in direct.arrivals {
            if line.starts(with: Array(#"{"type":"transition""#.utf8)) || line.starts(with: Array(#"{"type":"gesture""#.utf8)),
                let time = LineBytes.timeUS(in: line[...]) {
                daemonLatency.append(Int64(clamping: t) - Int64(clamping: time))
            }
            if let r = relayed.arrivals[line] { floor.append(Int64(clamping: r) - Int64(clamping: t)) }
            for tab in readers where tab.isWebSocket {
                if let a = tab.arrivals[line] { added.append(Int64(clamping: a) - Int64(clamping: t)) }
            }
        }
        let matched = readers.first(where: \.isWebSocket).map { tab in direct.arrivals.keys.filter { tab.arrivals[$0] != nil }.count } ?? direct.arrivals.count
        let pd = Percentiles(clampedSamples(daemonLatency)), pf = Percentiles(clampedSamples(floor)), pb = Percentiles(clampedSamples(added))
        func ratio(_ a: Double?, _ b: Double?) -> JSONValue { .num(a.flatMap { a in b.map { a / Swift.max($0, 1) } }, digits: 1) }
        return .fields([
            ("tabs", .integer(tabs)), ("lines_matched", .integer(matched)),
            ("daemon_to_direct_us", quantiles(pd)), ("socat_floor_us", quantiles(pf)),
            ("bridge_added_us", tabs > 0 ? quantiles(pb) : .null),
            ("ratio_to_floor", tabs > 0 ? .fields([("p50", ratio(pb?.p50, pf?.p50)), ("p99", ratio(pb?.p99, pf?.p99))]) : .null),
            ("bridge_rss_mb", .fields([
                ("idle", .num(rssIdle.map { Double($0) / 1024 }, digits: 1)), ("end", .num(rssEnd.map { Double($0) / 1024 }, digits: 1)),
                ("peak", .num(Double(peak) / 1024, digits: 1)),
            ])),
        ])
    }
}

/// One connection of the web section: its lines (newline-separated, or WebSocket text frames of them) and the time
/// each line (without its `seq`) first arrived.
struct ArrivalReader {
    let fd: Int32
    let name: String
    let isWebSocket: Bool
    private var pending: [UInt8] = []
    private(set) var arrivals: [[UInt8]: UInt64] = [:]

    init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
        isWebSocket = false
    }

    /// A browser tab's WebSocket to the bridge's `/stream`, upgraded, with the token as the page's cookie.
    init(webSocketTo port: UInt16, token: String, name: String) throws {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw BenchError("socket: \(errnoText())") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(s)
            throw BenchError("connect to 127.0.0.1:\(port): \(errnoText())")
        }
        var key = [UInt8](repeating: 0, count: 16)
        for i in key.indices { key[i] = UInt8.random(in: 0...255) }
        let request = "GET /stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(Data(key).base64EncodedString())\r\nSec-WebSocket-Version: 13\r\n"
            + "Cookie: edgeswipe-token-\(port)=\(token)\r\nOrigin: http://127.0.0.1:\(port)\r\n\r\n"
        do { try writeFully(s, Array(request.utf8)) } catch {
            close(s)
            throw error
        }
        var head: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = monotonicSeconds() + 10
        while LineBytes.find(end, in: head[...]) == nil {
            var p = pollfd(fd: s, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, 200) > 0 ? buffer.withUnsafeMutableBytes { read(s, $0.baseAddress, $0.count) } : -1
            if n > 0 { head += buffer[0..<n] }
            guard n != 0, monotonicSeconds() < deadline else {
                close(s)
                throw BenchError("the bridge did not answer the WebSocket upgrade of \(name)")
            }
        }
        guard let split = LineBytes.find(end, in: head[...]),
            let status = String(decoding: head[..<split], as: UTF8.self).split(separator: "\r\n").first, status.contains(" 101 ")
        else {
            close(s)
            throw BenchError("the bridge refused the WebSocket of \(name): \(String(decoding: head.prefix(200), as: UTF8.self))")
        }
        _ = fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK)
        fd = s
        self.name = name
        isWebSocket = true
        pending = Array(head[(split + end.count)...])
    }

    mutating func feed(_ bytes: ArraySlice<UInt8>, at now: UInt64) {
        pending += bytes
        if isWebSocket {
            // Server frames are unmasked: FIN/opcode, length (7 bits, or 16 or 64 after it), payload.
            var start = 0
            while pending.count - start >= 2 {
                var length = Int(pending[start + 1] & 0x7f), offset = 2
                if length == 126 {
                    guard pending.count - start >= 4 else { break }
                    length = Int(pending[start + 2]) << 8 | Int(pending[start + 3])
                    offset = 4
                } else if length == 127 {
                    guard pending.count - start >= 10 else { break }
                    length = (0..<8).reduce(0) { $0 << 8 | Int(pending[start + 2 + $1]) }
                    offset = 10
                }
                guard length >= 0, pending.count - start >= offset + length else { break }
                if pending[start] & 0x0f == 1 {
                    for line in pending[(start + offset)..<(start + offset + length)].split(separator: UInt8(ascii: "\n")) { arrived(line, at: now) }
                }
                start += offset + length
            }
            pending.removeFirst(start)
        } else {
            guard let last = pending.lastIndex(of: UInt8(ascii: "\n")) else { return }
            for line in pending[..<last].split(separator: UInt8(ascii: "\n")) { arrived(line, at: now) }
            pending.removeFirst(last + 1)
        }
    }

    private static let seqKey = Array(#""seq":"#.utf8)

    /// Records the first arrival of `line` without its `"seq":N,` (each connection numbers its own lines).
    private mutating func arrived(_ line: ArraySlice<UInt8>, at now: UInt64) {
        var key = Array(line)
        if let at = LineBytes.find(Self.seqKey, in: line).map({ $0 - line.startIndex }) {
            var end = at + Self.seqKey.count
            while end < key.count, key[end] >= 48, key[end] <= 57 { end += 1 }
            if end < key.count, key[end] == UInt8(ascii: ",") { end += 1 }
            key.removeSubrange(at..<end)
        }
        if arrivals[key] == nil { arrivals[key] = now }
    }
}
