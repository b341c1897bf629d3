import Dispatch
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Foundation
import Glibc

/// The machine's own floor for the latency path, without the daemon: a thread sleeps until each 240 Hz deadline
/// (in a `DescriptorWaiter`, the daemon's input thread's own wait) and writes the deadline to a Unix socket; with `hops: 2` a second
/// thread passes it on through another socket (as the input thread hands a batch to NIO's event loop, which
/// writes it to the client); the reader's latency is its read time minus the deadline. It says how much of the
/// daemon's figure is the kernel's scheduling and wake-ups on this machine, under its current load. Returns each
/// frame's latency in microseconds (none when the sockets could not be made).
func measureFloor(frames: Int, hops: Int) -> [Int32] {
    var pairs: [[Int32]] = []
    for _ in 0..<hops {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { return [] }
        pairs.append(fds)
    }
    // Every thread is joined before the descriptors close, so none can touch a reused descriptor number.
    let finished = DispatchSemaphore(value: 0)
    var threads = 0
    defer {
        for p in pairs { shutdown(p[0], Int32(SHUT_RDWR)) }
        for _ in 0..<threads { finished.wait() }
        for p in pairs { close(p[0]); close(p[1]) }
    }
    let intervalUS: UInt64 = 4167
    let start = monotonicMicroseconds() + 20_000
    let first = pairs[0][0]
    let source = Thread {
        atEachFrame(frames, from: start, every: intervalUS) { due in
            var deadline = due
            _ = withUnsafeBytes(of: &deadline) { write(first, $0.baseAddress, 8) }
        }
        shutdown(first, Int32(SHUT_WR))
        finished.signal()
    }
    source.start()
    threads += 1
    var relays: [Thread] = []
    for h in 1..<max(1, hops) {
        let from = pairs[h - 1][1], to = pairs[h][0]
        let relay = Thread {
            var value: UInt64 = 0
            while withUnsafeMutableBytes(of: &value, { read(from, $0.baseAddress, 8) }) == 8 {
                _ = withUnsafeBytes(of: &value) { write(to, $0.baseAddress, 8) }
            }
            shutdown(to, Int32(SHUT_WR))
            finished.signal()
        }
        relay.start()
        threads += 1
        relays.append(relay)
    }
    let last = pairs[hops - 1][1]
    var samples: [Int32] = []
    samples.reserveCapacity(frames)
    var value: UInt64 = 0
    let deadline = monotonicSeconds() + Double(frames) * Double(intervalUS) / 1e6 + 10
    while samples.count < frames && monotonicSeconds() < deadline {
        var p = pollfd(fd: last, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 1000) > 0 else { continue }
        guard withUnsafeMutableBytes(of: &value, { read(last, $0.baseAddress, 8) }) == 8 else { break }
        let now = monotonicMicroseconds()
        samples.append(Int32(clamping: now >= value ? now - value : 0))
    }
    return samples
}

/// The floor for `clients` connections, with the daemon's readers: a thread sleeps until each 240 Hz deadline (in a
/// `DescriptorWaiter`, as the input thread does) and sends one `gesture` line carrying that deadline to each of
/// `clients` Unix sockets, one `send` each, which min(clients, 16) ``ReaderThread``s read exactly as they read the
/// daemon. It is what the kernel's fan-out and the readers cost with no daemon work in between, so a figure's ratio
/// to it is what the daemon adds; the 1-client, 1-hop floor (``measureFloor(frames:hops:)``) pays neither the
/// `send`s nor the readers of a large fan-out. Returns every line's latency in microseconds.
func measureFanOutFloor(frames: Int, clients: Int) -> [Int32] {
    var writers: [Int32] = []
    var readable: [Int32] = []
    for _ in 0..<clients {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { break }
        writers.append(fds[0])
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        readable.append(fds[1])
    }
    defer { for w in writers { close(w) } }
    guard writers.count == clients else {
        for r in readable { close(r) }
        return []
    }
    let intervalUS: UInt64 = 4167
    let deadline = monotonicSeconds() + Double(frames) * Double(intervalUS) / 1e6 + 10
    let readers = ReaderThread.spread(readable, deadline: deadline, expectedSamplesPerClient: frames)
    for r in readers { r.start() }
    let start = monotonicMicroseconds() + 20_000
    let sent = DispatchSemaphore(value: 0)
    let targets = writers
    let source = Thread {
        var line: [UInt8] = []
        line.reserveCapacity(96)
        atEachFrame(frames, from: start, every: intervalUS) { due in
            line.removeAll(keepingCapacity: true)
            line.append(contentsOf: #"{"type":"gesture","time_us":"#.utf8)
            JSONWriter.appendDecimal(due, to: &line)  // no String: the floor's frame does nothing the daemon's need not
            line.append(contentsOf: #","progress":false}"#.utf8)
            line.append(UInt8(ascii: "\n"))
            line.withUnsafeBytes { bytes in
                for w in targets { _ = send(w, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            }
        }
        for w in targets { shutdown(w, Int32(SHUT_WR)) }
        sent.signal()
    }
    source.start()
    sent.wait()
    for r in readers { r.join() }
    var samples: [Int32] = []
    for r in readers { samples += r.samples }
    return samples
}

/// Calls `body` with each of `frames` deadlines, `interval` microseconds apart from `start`, once it has come: the
/// floors' sender, waiting as the daemon's input thread waits (a `DescriptorWaiter` with no descriptors and a
/// microsecond timeout).
private func atEachFrame(_ frames: Int, from start: UInt64, every interval: UInt64, _ body: (UInt64) -> Void) {
    let sleeper = DescriptorWaiter()
    for i in 0..<UInt64(frames) {
        let due = start + i * interval
        let now = monotonicMicroseconds()
        if due > now { try? sleeper.wait(timeoutMicroseconds: Int64(due - now)) }
        body(due)
    }
}
