import EdgeSwipeSystem
import Foundation
import Glibc
import SystemPackage

/// The daemon's clock (it stamps `time_us` with it), in microseconds.
func monotonicMicroseconds() -> UInt64 { MonotonicClock.now().microseconds }

func monotonicSeconds() -> Double { Double(monotonicMicroseconds()) / 1e6 }

/// Sleeps for `seconds` (bounded: never more than the argument).
func sleepSeconds(_ seconds: Double) {
    guard seconds > 0 else { return }
    var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var left = timespec()
    while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

/// A scratch folder under /tmp, short enough for Unix socket paths, removed by ``remove()``.
struct ScratchDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/esbench-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        guard let made else { throw BenchError("mkdtemp: \(errnoText())") }
        path = made
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// The `NOTIFY_SOCKET` a supervisor creates: a datagram socket the daemon sends `READY=1` to.
final class NotifySocket {
    let path: String
    let fd: FileDescriptor

    init(path: String) throws {
        self.path = path
        unlink(path)
        do { fd = try .boundUnixSocket(.datagram, at: try UnixSocketAddress(path)) } catch { throw BenchError("bind \(path): \(error)") }
    }

    deinit {
        try? fd.close()
        unlink(path)
    }

    /// Waits up to `timeout` seconds for a datagram holding `READY=1`; returns the monotonic time it was read.
    func waitForReady(timeout: Double) -> UInt64? {
        let deadline = monotonicSeconds() + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        let waiter = DescriptorWaiter()
        waiter.add(fd)
        while true {
            let left = deadline - monotonicSeconds()
            if left <= 0 { return nil }
            guard (try? waiter.wait(timeoutMicroseconds: Int64(min(left, 1) * 1e6))) != nil, waiter.isReady(0) else { continue }
            let n = (try? buffer.withUnsafeMutableBytes { try fd.receive(into: $0) }) ?? 0
            let now = monotonicMicroseconds()
            guard n > 0 else { continue }
            let text = String(decoding: buffer[0..<n], as: UTF8.self)
            if text.split(separator: "\n").contains("READY=1") { return now }
        }
    }
}

/// A child process started with `posix_spawn`, its output going to a log file.
final class ChildProcess {
    let pid: pid_t
    let executable: String
    private(set) var exitStatus: Int32?

    /// Starts `executable`; returns the child and the monotonic time just before `posix_spawn`.
    static func spawn(_ executable: String, _ arguments: [String], environment: [String: String], log: String) throws -> (ChildProcess, UInt64) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { (key, value) -> UnsafeMutablePointer<CChar>? in strdup("\(key)=\(value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let start = monotonicMicroseconds()
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard rc == 0 else { throw BenchError("posix_spawn \(executable): \(errnoText(rc))") }
        return (ChildProcess(pid: pid, executable: executable), start)
    }

    private init(pid: pid_t, executable: String) {
        self.pid = pid
        self.executable = executable
    }

    /// Reaps the child if it has exited; returns its status.
    @discardableResult
    func poll() -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
        return exitStatus
    }

    var isRunning: Bool { poll() == nil }

    /// Waits up to `timeout` seconds for the child to exit.
    @discardableResult
    func wait(timeout: Double) -> Int32? {
        let deadline = monotonicSeconds() + timeout
        while monotonicSeconds() < deadline {
            if let s = poll() { return s }
            sleepSeconds(0.01)
        }
        return poll()
    }

    /// SIGTERM, then SIGKILL if it has not exited after `grace` seconds.
    @discardableResult
    func stop(grace: Double = 5) -> Int32? {
        if let s = poll() { return s }
        kill(pid, SIGTERM)
        if let s = wait(timeout: grace) { return s }
        kill(pid, SIGKILL)
        return wait(timeout: 5)
    }

    deinit { stop() }
}

/// What `/proc` says about a process and its threads at one moment.
struct ProcSample {
    struct ThreadSample {
        var tid: Int
        var name: String
        var voluntary: Int
        var involuntary: Int
        /// The system call it is blocked in (`/proc/PID/task/TID/syscall`), which tells the threads apart: the
        /// input thread and the acceptor wait in poll, NIO's event loop in epoll_wait, runtime workers in futex.
        var blockedIn: String
        /// utime + stime of the thread, from `/proc/PID/task/TID/stat`, in clock ticks.
        var cpuTicks: Int
    }
    var time: Double
    /// utime + stime of the whole process, from `/proc/PID/stat`, in clock ticks.
    var cpuTicks: Int
    /// VmRSS: every resident page, the shared libraries' code included.
    var rssKB: Int
    /// RssAnon: the process's own memory (heap, stacks); RssFile: resident pages of mapped files (the binary and
    /// the Swift runtime and Foundation libraries, shared with every other process that maps them).
    var rssAnonKB: Int
    var rssFileKB: Int
    /// Proportional set size (`smaps_rollup`): shared pages divided among the processes that map them.
    var pssKB: Int
    var threads: [ThreadSample]

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    static func read(pid: pid_t) -> ProcSample? {
        let base = "/proc/\(pid)"
        guard let cpu = cpuTicks(base + "/stat") else { return nil }
        let status = (try? String(contentsOfFile: base + "/status", encoding: .utf8)) ?? ""
        let rss = field(status, "VmRSS:") ?? 0
        let rollup = (try? String(contentsOfFile: base + "/smaps_rollup", encoding: .utf8)) ?? ""
        var threads: [ThreadSample] = []
        let tids = ((try? FileManager.default.contentsOfDirectory(atPath: base + "/task")) ?? []).compactMap { Int($0) }.sorted()
        for tid in tids {
            let t = "\(base)/task/\(tid)"
            guard let s = try? String(contentsOfFile: t + "/status", encoding: .utf8) else { continue }
            let name = ((try? String(contentsOfFile: t + "/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
            threads.append(ThreadSample(
                tid: tid, name: name, voluntary: field(s, "voluntary_ctxt_switches:") ?? 0,
                involuntary: field(s, "nonvoluntary_ctxt_switches:") ?? 0,
                blockedIn: syscallName(t + "/syscall"), cpuTicks: cpuTicks(t + "/stat") ?? 0))
        }
        return ProcSample(
            time: monotonicSeconds(), cpuTicks: cpu, rssKB: rss, rssAnonKB: field(status, "RssAnon:") ?? 0,
            rssFileKB: field(status, "RssFile:") ?? 0, pssKB: field(rollup, "Pss:") ?? 0, threads: threads)
    }

    /// One `Key:` field of `/proc/PID/status` (kB for memory), without a whole sample.
    static func statusField(pid: pid_t, _ key: String) -> Int? {
        field((try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "", key)
    }

    private static func syscallName(_ path: String) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let first = text.split(separator: " ").first?.trimmingCharacters(in: .whitespacesAndNewlines)
        else { return "?" }
        // x86_64 numbers of the calls a sleeping thread of the daemon sits in.
        let names = ["0": "read", "7": "poll", "23": "select", "202": "futex", "232": "epoll_wait", "270": "pselect6",
                     "271": "ppoll", "281": "epoll_pwait", "230": "clock_nanosleep", "35": "nanosleep", "441": "epoll_pwait2",
                     "130": "rt_sigsuspend", "running": "running"]
        return names[first] ?? "syscall \(first)"
    }

    /// utime + stime (fields 14 and 15) of a `stat` file: the whole process's for `/proc/PID/stat`.
    private static func cpuTicks(_ path: String) -> Int? {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name, from field 3 (the state).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Int(fields[11]), let stime = Int(fields[12]) else { return nil }
        return utime + stime
    }

    private static func field(_ text: String, _ key: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            return Int(line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}

/// Raises the open-file limit to its hard limit: a thousand clients need a thousand sockets, here and in the
/// daemon (which inherits the limit).
func raiseFileLimit() -> Int { OpenFileLimit.raiseToHardLimit() }
