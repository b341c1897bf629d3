import EdgeSwipeCore
import EdgeSwipeSystem
import EdgeSwipeTestSupport
import Foundation
import Glibc
import Synchronization
import SystemPackage
import Testing

/// Creates an empty file where it is named (Foundation's createFile writes a temporary and renames it).
func touch(_ path: String) throws {
    try FileDescriptor.open(atPath: path, .writeOnly, options: [.create], permissions: [.ownerReadWrite]).close()
}

@Suite("Unix sockets")
struct UnixSocketTests {
    @Test("an address holds at most 107 bytes; '@' names an abstract socket", arguments: [
        (String(repeating: "a", count: 107), true, false),
        (String(repeating: "a", count: 108), false, false),
        ("@" + String(repeating: "b", count: 106), true, true),
        ("/run/edgeswipe/edgeswipe.sock", true, false),
    ])
    func addressLimits(path: String, fits: Bool, abstract: Bool) {
        let address = try? UnixSocketAddress(path)
        #expect((address != nil) == fits)
        #expect(address?.isAbstract ?? abstract == abstract)
        if !fits {
            #expect(throws: UnixSocketAddressTooLong(path: path, bytes: path.utf8.count)) { try UnixSocketAddress(path) }
        }
    }

    @Test("a connected client is accepted close-on-exec and non-blocking, with the peer's credentials and groups")
    func acceptAndCredentials() throws {
        let dir = try TempDir()
        let address = try UnixSocketAddress(dir.file("s.sock"))
        let listener = try FileDescriptor.boundUnixSocket(.stream, at: address, backlog: 4)
        defer { try? listener.close() }
        #expect(listener.socketFacts() == SocketFacts(kind: .stream, isUnixDomain: true, isListening: true))
        #expect(listener.boundUnixPath == dir.file("s.sock"))
        let client = try FileDescriptor.connectedUnixSocket(to: address)
        defer { try? client.close() }
        let server = try listener.accept()
        defer { try? server.close() }
        #expect(fcntl(server.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(server.rawValue, F_GETFL) & O_NONBLOCK != 0)
        let peer = try server.peerCredentials()
        #expect(peer.pid == getpid() && peer.uid == getuid() && peer.gid == getgid())
        #expect(peer.groups.count == Int(getgroups(0, nil)))
        // Nothing is waiting: a non-blocking receive says so instead of waiting.
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(throws: Errno.resourceTemporarilyUnavailable) { try buffer.withUnsafeMutableBytes { try server.receive(into: $0) } }
        _ = try Array("ping".utf8).withUnsafeBytes { try client.send($0) }
        let n = try buffer.withUnsafeMutableBytes { try server.receive(into: $0) }
        #expect(Array(buffer[..<n]) == Array("ping".utf8))
    }

    @Test("a datagram reaches an abstract socket; an abstract or unnamed socket has no path")
    func abstractDatagram() throws {
        let name = "@edgeswipe-system-test-\(getpid())"
        let address = try UnixSocketAddress(name)
        let receiver = try FileDescriptor.boundUnixSocket(.datagram, at: address)
        defer { try? receiver.close() }
        #expect(receiver.boundUnixPath == nil)
        #expect(receiver.socketFacts()?.kind == .datagram)
        let sender = try FileDescriptor.unixSocket(.datagram)
        defer { try? sender.close() }
        #expect(sender.boundUnixPath == nil)
        let sent = try Array("READY=1".utf8).withUnsafeBytes { try sender.send($0, to: address) }
        #expect(sent == 7)
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = try buffer.withUnsafeMutableBytes { try receiver.receive(into: $0) }
        #expect(String(decoding: buffer[..<n], as: UTF8.self) == "READY=1")
    }

    @Test("a pipe is no socket; connecting where nobody listens is refused")
    func notSockets() throws {
        let (read, write) = try FileDescriptor.pipe()
        defer { try? read.close(); try? write.close() }
        #expect(read.socketFacts() == nil)
        let dir = try TempDir()
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileDescriptor.connectedUnixSocket(to: UnixSocketAddress(dir.file("none"))) }
        try? FileDescriptor.boundUnixSocket(.stream, at: UnixSocketAddress(dir.file("stale"))).close()
        #expect(throws: Errno.connectionRefused) { try FileDescriptor.connectedUnixSocket(to: UnixSocketAddress(dir.file("stale"))) }
    }
}

@Suite("Files")
struct FileTests {
    @Test("readToEnd reads everything, or stops once `until` is satisfied", arguments: [0, 1, 65536, 200_000])
    func readToEnd(size: Int) throws {
        let dir = try TempDir()
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("f")))
        let fd = try FileDescriptor.open(atPath: dir.file("f"), .readOnly)
        #expect(try fd.readToEnd(chunkSize: 4096) == bytes)
        _ = try fd.seek(offset: 0, from: .start)
        let head = try fd.readToEnd(chunkSize: 4096) { $0.count > 5000 }
        #expect(head.count == min(size, 8192))
        #expect(head == Array(bytes.prefix(head.count)))
        try fd.close()
    }

    @Test("reading a directory fails with its errno")
    func readDirectory() throws {
        let dir = try TempDir()
        let fd = try FileDescriptor.open(atPath: dir.path, .readOnly)
        defer { try? fd.close() }
        #expect(throws: Errno.isDirectory) { try fd.readToEnd() }
    }

    @Test("the atomic writer replaces the file whole, with its mode, and leaves no temporary behind")
    func atomicWriter() throws {
        let dir = try TempDir()
        let directory = try FileDescriptor.open(atPath: dir.path, .readOnly, options: [.directory])
        defer { try? directory.close() }
        let writer = AtomicFileWriter(directory: directory, path: dir.path)
        try writer.write(Array("first\n".utf8), to: "state.json")
        try writer.write(Array("second\n".utf8), to: "state.json")
        #expect(try String(contentsOfFile: dir.file("state.json"), encoding: .utf8) == "second\n")
        let st = try directory.statEntry("state.json")
        #expect(st.permissions.rawValue == 0o600 & ~umaskNow())
        #expect(try directory.entries() == ["state.json"])
    }

    @Test("a failed write names its call, keeps the old file and removes its temporary")
    func atomicWriterFailure() throws {
        let dir = try TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("taken"), withIntermediateDirectories: false)
        let directory = try FileDescriptor.open(atPath: dir.path, .readOnly, options: [.directory])
        defer { try? directory.close() }
        let writer = AtomicFileWriter(directory: directory, path: dir.path)
        #expect(throws: SystemCallError("rename \(AtomicFileWriter.temporaryName(for: "taken")) to taken", .isDirectory)) {
            try writer.write([1, 2, 3], to: "taken")
        }
        #expect(try directory.entries() == ["taken"])
    }

    @Test("a file someone put at the temporary's name is not written into (nor a hard link's other name truncated): the write fails and leaves it")
    func plantedTemporary() throws {
        let dir = try TempDir()
        let temporary = AtomicFileWriter.temporaryName(for: "plot.svg")
        FileManager.default.createFile(atPath: dir.file("victim"), contents: Data("IMPORTANT\n".utf8))
        try FileManager.default.linkItem(atPath: dir.file("victim"), toPath: dir.file(temporary))
        let directory = try FileDescriptor.open(atPath: dir.path, .readOnly, options: [.directory])
        defer { try? directory.close() }
        #expect(throws: SystemCallError("open \(temporary)", .fileExists)) {
            try AtomicFileWriter(directory: directory, path: dir.path).write([1, 2, 3], to: "plot.svg")
        }
        #expect(try String(contentsOfFile: dir.file("victim"), encoding: .utf8) == "IMPORTANT\n")
        #expect(!FileManager.default.fileExists(atPath: dir.file("plot.svg")))
    }

    @Test(
        "replaceFile writes where a user named only a regular file or nothing: a symbolic link, a directory or a device is refused",
        arguments: ["link", "folder", "/dev/null"])
    func replaceFileRefuses(_ what: String) throws {
        let dir = try TempDir()
        FileManager.default.createFile(atPath: dir.file("target"), contents: Data("kept\n".utf8))
        try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: dir.file("target"))
        try FileManager.default.createDirectory(atPath: dir.file("folder"), withIntermediateDirectories: false)
        let path = what.hasPrefix("/") ? what : dir.file(what)
        #expect(throws: AtomicFileWriter.ReplaceError.self) {
            try AtomicFileWriter.replaceFile(at: path, with: [1, 2, 3], permissions: [.ownerReadWrite])
        }
        #expect(try String(contentsOfFile: dir.file("target"), encoding: .utf8) == "kept\n")
        #expect(try FilePath(dir.path).directoryEntries().sorted() == ["folder", "link", "target"])
        try AtomicFileWriter.replaceFile(at: dir.file("target"), with: Array("new\n".utf8), permissions: [.ownerReadWrite])
        #expect(try String(contentsOfFile: dir.file("target"), encoding: .utf8) == "new\n")
    }

    @Test("stale temporaries of a name are removed, other files are not")
    func staleTemporaries() throws {
        let dir = try TempDir()
        for name in ["state.json", "state.json.tmp-1", "state.json.tmp-99999", "other.tmp-1"] {
            FileManager.default.createFile(atPath: dir.file(name), contents: Data())
        }
        let directory = try FileDescriptor.open(atPath: dir.path, .readOnly, options: [.directory])
        defer { try? directory.close() }
        AtomicFileWriter(directory: directory, path: dir.path).removeStaleTemporaries(of: "state.json")
        #expect(try directory.entries().sorted() == ["other.tmp-1", "state.json"])
        #expect(try FilePath(dir.path).directoryEntries().sorted() == ["other.tmp-1", "state.json"])
    }

    @Test("createDirectories makes every missing level with exactly its mode, and leaves existing ones alone")
    func createDirectories() throws {
        let dir = try TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("a"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try FilePath(dir.file("a/b/c")).createDirectories(permissions: [.ownerReadWriteExecute])
        #expect(try Stat(FilePath(dir.file("a"))).permissions.rawValue == 0o755)
        #expect(try Stat(FilePath(dir.file("a/b"))).permissions.rawValue == 0o700)
        #expect(try Stat(FilePath(dir.file("a/b/c"))).permissions.rawValue == 0o700)
        try FilePath(dir.file("a/b/c")).createDirectories(permissions: [.ownerReadWriteExecute])
    }

    @Test("a relative path is made absolute as Foundation's URL makes it", arguments: [
        "x.events", "./x.events", "dir/x.events", "/abs/dir/x.events", "dir//x.events", "../x.events", "/x.events",
        "dir/./x.events", "a/../b/x.events",
    ])
    func absolutePaths(path: String) {
        let url = URL(fileURLWithPath: path)
        #expect(FilePath(path).absolute.removingLastComponent().string == url.deletingLastPathComponent().path)
        #expect(FilePath(path).absolute.lastComponent?.string == url.lastPathComponent)
    }

    @Test("a file is removed by identity only while the path still names it")
    func fileIdentity() throws {
        let dir = try TempDir()
        let path = dir.file("s.sock")
        try FileDescriptor.boundUnixSocket(.stream, at: UnixSocketAddress(path)).close()
        let (ours, type) = try #require(FileIdentity.of(path))
        #expect(type == .socket)
        // Someone renames another file over it: ours is no longer there, and theirs stays.
        try touch(dir.file("theirs"))
        #expect(rename(dir.file("theirs"), path) == 0)
        ours.removeFile(at: path)
        #expect(FileManager.default.fileExists(atPath: path))
        let (theirs, _) = try #require(FileIdentity.of(path))
        theirs.removeFile(at: path)
        #expect(FileIdentity.of(path) == nil)
    }

    private func umaskNow() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }
}

@Suite("Waiting, threads and the clock")
struct WaitingTests {
    @Test("a wait ends at its timeout with nothing ready, or at once when the wake-up pipe has a byte")
    func waitAndWake() throws {
        let wake = try WakePipe()
        let waiter = DescriptorWaiter()
        waiter.add(wake.readEnd)
        let before = MonotonicClock.now()
        try waiter.wait(timeoutMicroseconds: 2_000)
        #expect(MonotonicClock.now() - before >= Microseconds(2_000))
        #expect(!waiter.isReady(0))
        wake.wake()
        wake.wake()
        try waiter.wait(timeoutMicroseconds: nil)
        #expect(waiter.isReady(0))
        wake.drain()
        try waiter.wait(timeoutMicroseconds: 0)
        #expect(!waiter.isReady(0), "one drain takes every pending wake-up")
    }

    @Test("a thread runs its body under its name, and join waits for it")
    func thread() throws {
        let seen = Mutex<(ran: Bool, name: String)>((false, ""))
        let thread = try SystemThread.start(name: "edgeswipe-a-long-name") {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            seen.withLock { $0 = (true, comm.trimmingCharacters(in: .newlines)) }
        }
        thread.join()
        #expect(seen.withLock { $0.ran })
        #expect(seen.withLock { $0.name } == "edgeswipe-a-lon", "names are cut to the kernel's 15 bytes")
    }

    @Test("a directory watch reports an entry's creation and deletion by name, and the directory's removal")
    func directoryWatch() throws {
        let dir = try TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("d"), withIntermediateDirectories: false)
        let watch = try DirectoryWatch(directory: dir.file("d"))
        #expect(watch.read().isEmpty)
        try touch(dir.file("d/x"))
        try FileManager.default.removeItem(atPath: dir.file("d/x"))
        #expect(watch.read() == [.entryChanged("x"), .entryChanged("x")])
        try FileManager.default.removeItem(atPath: dir.file("d"))
        #expect(watch.read().contains(.directoryGone))
        #expect(throws: SystemCallError("inotify_add_watch", .noSuchFileOrDirectory)) { try DirectoryWatch(directory: dir.file("d")) }
    }

    @Test("the monotonic clock is CLOCK_MONOTONIC in microseconds and never goes back")
    func clock() {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let direct = UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
        let a = MonotonicClock.now()
        let b = MonotonicClock.now()
        #expect(a.microseconds >= direct && a.microseconds - direct < 1_000_000)
        #expect(b >= a)
        #expect(ThreadCPUClock.seconds() > 0)
    }

    @Test("the environment is the process's, as getenv reads it")
    func environment() {
        let environment = ProcessEnvironment.current()
        #expect(environment["PATH"] == getenv("PATH").map { String(cString: $0) })
        #expect(environment == ProcessInfo.processInfo.environment)
    }

    @Test("free heap memory can be handed back")
    func heap() {
        #expect(ProcessHeap.freeBytes >= 0)
        #expect(ProcessHeap.releaseFreeMemory() >= 0)
    }
}

/// The rows a line takes on a terminal: the monitor erases exactly these before it prints the next event.
@Suite struct TerminalTests {
    @Test(arguments: [
        (0, 80, 1), (1, 80, 1), (79, 80, 1), (80, 80, 1), (81, 80, 2), (160, 80, 2), (161, 80, 3), (5, 0, 1),
    ])
    func rows(_ characters: Int, _ columns: Int, _ rows: Int) {
        #expect(Terminal.rows(of: String(repeating: "█", count: characters), columns: columns) == rows)
    }

    @Test func aPipeIsNoTerminal() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(Terminal.columns(of: ends[1]) == nil)
    }
}
