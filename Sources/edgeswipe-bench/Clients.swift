import EdgeSwipeBenchSupport
import EdgeSwipeSystem
import Foundation
import Glibc
import Synchronization
import SystemPackage

/// Connects a blocking `SOCK_STREAM` Unix socket to `path`, retrying briefly while the listener's backlog is
/// full. Returns the descriptor, non-blocking once connected.
func connectUnix(_ path: String, timeout: Double = 10) throws -> Int32 {
    let address: UnixSocketAddress
    do { address = try UnixSocketAddress(path) } catch { throw BenchError("connect \(path): path too long") }
    let deadline = monotonicSeconds() + timeout
    while true {
        do {
            let fd = try SystemPackage.FileDescriptor.connectedUnixSocket(to: address)
            fd.setNonBlocking()
            return fd.rawValue
        } catch {
            guard [.resourceTemporarilyUnavailable, .connectionRefused, .noSuchFileOrDirectory].contains(error), monotonicSeconds() < deadline else {
                throw BenchError("connect \(path): \(error)")
            }
        }
        sleepSeconds(0.005)
    }
}

/// One reader thread's clients (at most a few dozen), read with `poll`: every complete `gesture` line's latency is the monotonic time
/// just after the `read` that completed it, minus its `time_us`.
final class ReaderThread: @unchecked Sendable {
    struct Client {
        var fd: Int32
        var pending: [UInt8] = []
        var lines = 0
        /// Phase, terminal and lifecycle lines: what a client must never miss (progress may be coalesced).
        var essential = 0
        var open = true
    }

    private var clients: [Client]
    private let deadline: Double
    /// Latencies of gesture lines, in microseconds.
    private(set) var samples: [Int32] = []
    private(set) var lines = 0
    private(set) var gestureLines = 0
    private(set) var goodbyes = 0
    private(set) var negative = 0
    private(set) var error: String?
    private let done = DispatchSemaphore(value: 0)
    /// Clients that have received their first line (the hello): read from other threads.
    private let greeted = Atomic<Int>(0)

    init(fds: [Int32], deadline: Double, expectedSamples: Int) {
        clients = fds.map { Client(fd: $0) }
        self.deadline = deadline
        samples.reserveCapacity(expectedSamples)
    }

    func start() {
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    func join() { done.wait() }

    /// `fds` dealt round-robin to min(count, 16) reader threads (not started): 1,000 clients share 16 threads, as
    /// every latency figure and floor reads them.
    static func spread(_ fds: [Int32], deadline: Double, expectedSamplesPerClient: Int) -> [ReaderThread] {
        let threadCount = min(fds.count, 16)
        var groups = [[Int32]](repeating: [], count: threadCount)
        for (i, fd) in fds.enumerated() { groups[i % threadCount].append(fd) }
        return groups.map { ReaderThread(fds: $0, deadline: deadline, expectedSamples: $0.count * expectedSamplesPerClient) }
    }

    /// Whether every client of this thread has received its first line.
    var everyClientGreeted: Bool { greeted.load(ordering: .acquiring) >= clients.count }

    /// Each client's count of phase, terminal and lifecycle lines.
    var essentialCounts: [Int] { clients.map(\.essential) }

    private func run() {
        var pollfds = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var open = clients.count
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while open > 0 {
            let left = deadline - monotonicSeconds()
            if left <= 0 { break }
            let n = poll(&pollfds, nfds_t(pollfds.count), Int32(min(200, max(1, left * 1000))))
            if n < 0 {
                if errno == EINTR { continue }
                error = "poll: \(errnoText())"
                break
            }
            if n == 0 { continue }
            for i in pollfds.indices where pollfds[i].revents != 0 {
                pollfds[i].revents = 0
                guard clients[i].open else { continue }
                while true {
                    let got = buffer.withUnsafeMutableBytes { read(clients[i].fd, $0.baseAddress, $0.count) }
                    let now = monotonicMicroseconds()
                    if got > 0 {
                        consume(client: i, buffer[0..<got], at: now)
                        if got < buffer.count { break }
                        continue
                    }
                    if got < 0 && (errno == EAGAIN || errno == EINTR) { break }
                    // EOF (the daemon closed after its goodbye) or an error.
                    clients[i].open = false
                    open -= 1
                    pollfds[i].fd = -1  // poll ignores negative descriptors
                    break
                }
            }
        }
        for c in clients { close(c.fd) }
    }

    private func consume(client i: Int, _ bytes: ArraySlice<UInt8>, at now: UInt64) {
        var start = bytes.startIndex
        let newline = UInt8(ascii: "\n")
        while let end = bytes[start...].firstIndex(of: newline) {
            if clients[i].pending.isEmpty {
                handle(line: bytes[start..<end], client: i, at: now)
            } else {
                clients[i].pending.append(contentsOf: bytes[start..<end])
                let line = clients[i].pending
                clients[i].pending.removeAll(keepingCapacity: true)
                handle(line: line[...], client: i, at: now)
            }
            start = end + 1
        }
        if start < bytes.endIndex { clients[i].pending.append(contentsOf: bytes[start...]) }
    }

    private static let gesturePrefix = Array(#"{"type":"gesture""#.utf8)
    private static let transitionPrefix = Array(#"{"type":"transition""#.utf8)
    private static let lifecyclePrefix = Array(#"{"type":"lifecycle""#.utf8)
    private static let notProgress = Array(#""progress":false"#.utf8)
    private static let goodbyePrefix = Array(#"{"type":"goodbye""#.utf8)

    private func handle(line: ArraySlice<UInt8>, client i: Int, at now: UInt64) {
        lines += 1
        clients[i].lines += 1
        if clients[i].lines == 1 { greeted.add(1, ordering: .releasing) }
        if line.starts(with: Self.goodbyePrefix) { goodbyes += 1; return }
        if line.starts(with: Self.lifecyclePrefix) {
            clients[i].essential += 1
            return
        }
        let gesture = line.starts(with: Self.gesturePrefix)
        if (gesture || line.starts(with: Self.transitionPrefix)) && LineBytes.find(Self.notProgress, in: line) != nil {
            clients[i].essential += 1
        }
        guard gesture, let time = LineBytes.timeUS(in: line) else { return }
        gestureLines += 1
        if now >= time {
            samples.append(Int32(clamping: now - time))
        } else {
            negative += 1
            samples.append(0)
        }
    }
}

/// Percentiles of a sample, nearest-rank.
struct Percentiles {
    var count: Int
    var p50: Double
    var p99: Double
    var p999: Double
    var max: Double
    var mean: Double

    init?(_ values: [Int32]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ q: Double) -> Double {
            let index = Int((q * Double(sorted.count)).rounded(.up)) - 1
            return Double(sorted[Swift.max(0, Swift.min(sorted.count - 1, index))])
        }
        count = sorted.count
        p50 = rank(0.5)
        p99 = rank(0.99)
        p999 = rank(0.999)
        max = Double(sorted.last!)
        mean = Double(sorted.reduce(0) { $0 + Int($1) }) / Double(sorted.count)
    }
}

/// A newcomer, over and over, while the daemon streams to its clients: each time it connects, times `connect` to
/// the end of its hello line, closes, and waits `interval` seconds. What admission and registration cost a client
/// while every publish is being sent out (the acceptor, the server's registry, the event loop).
final class HelloProbe: @unchecked Sendable {
    private let path: String
    private let interval: Double
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    /// Microseconds from `connect` to the hello's newline, one per connection.
    private(set) var samples: [Int32] = []
    /// Connections that got no hello: none within 5 s, or the connection closed first (as the daemon stops).
    private(set) var failures = 0

    init(path: String, interval: Double) {
        self.path = path
        self.interval = interval
    }

    func start() {
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.start()
    }

    /// Stops the probe and waits for its thread.
    func stop() {
        stopping.store(true, ordering: .releasing)
        done.wait()
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !stopping.load(ordering: .acquiring) {
            let start = monotonicMicroseconds()
            // The daemon stops at the replay's end, before the probe is stopped: a refused connection counts for nothing.
            guard let fd = try? connectUnix(path, timeout: 1) else {
                sleepSeconds(interval)
                continue
            }
            var greeted = false
            var open = true
            let deadline = monotonicSeconds() + 5
            while !greeted && open && monotonicSeconds() < deadline {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 100) > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    greeted = buffer[0..<n].contains(UInt8(ascii: "\n"))
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    open = false
                }
            }
            let end = monotonicMicroseconds()
            close(fd)
            if greeted { samples.append(Int32(clamping: end - start)) } else { failures += 1 }
            sleepSeconds(interval)
        }
    }
}
