import EdgeSwipeServer
import Glibc
import Logging
import Synchronization

// A socket file deleted (or replaced) while the daemon runs is noticed at once, and the
// socket is bound again; a daemon must never be silently unreachable.
//
// The watcher is a thread blocked in `poll` on an inotify descriptor for the socket's directory (and a wake-up
// pipe to stop it): no timer, no wake-up while nothing happens. What it does:
// - the file is deleted or renamed away: logs an error, binds the path again (`EdgeSwipeServer.rebind()`), logs
//   that it did and sets the systemd status; when binding fails, or the socket came from systemd (which owns it),
//   it logs the error and sets `STATUS=` to say that new clients cannot connect.
// - another file takes the path (a rename over it): reported the same way (at most every 10 s); the daemon does not
//   fight over it.
// - the file is deleted again and again (a peer in a loop): three rebinds within 10 s are made at once, then each
//   waits, 1 s, 2 s, 4 s ... up to 60 s, with one warning per wait instead of two lines per deletion. That caps
//   what a peer can make the daemon do and log (20,398 rebinds and 61k log lines in 45 s, before), and the
//   socket still comes back as soon as the peer stops, within the current wait.
// - the directory itself is removed: reported; nothing is recreated (its owner and mode are not ours to choose).
// Clients already connected are never affected.
final class SocketWatcher: Sendable {
    private let path: String
    private let name: String
    private let directory: String
    private let server: EdgeSwipeServer
    private let canRebind: Bool
    private let logger: Logger
    private let notify: SDNotify?
    private let inotifyFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopped = Mutex(false)
    private let thread = Mutex<pthread_t?>(nil)
    /// The inode of the socket file that is ours, to tell our own re-creation from someone else's file.
    private let ownInode = Mutex<(dev: UInt64, ino: UInt64)?>(nil)
    /// How many times the socket was bound again; for tests and logs.
    private let rebinds = Mutex(0)
    private let pace = Mutex(RebindPace())

    /// When to bind again after a deletion.
    private struct RebindPace {
        /// Rebinds in the last ``window`` (monotonic microseconds).
        var recent: [UInt64] = []
        var backoffUS: UInt64 = 0
        /// A rebind held back until then.
        var dueAt: UInt64?
        var deletionsWhileWaiting = 0
        var replacedReports = LogThrottle(interval: .seconds(10))

        static let window: UInt64 = 10_000_000
        static let burst = 3
        static let firstBackoff: UInt64 = 1_000_000
        static let longestBackoff: UInt64 = 60_000_000
    }

    /// Starts watching `server`'s socket file. `canRebind`: the daemon bound the path itself (not systemd).
    static func start(server: EdgeSwipeServer, canRebind: Bool, logger: Logger) -> SocketWatcher? {
        guard let path = server.socketPath, path.hasPrefix("/") else { return nil }
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else {
            logger.warning("cannot watch \(path) for deletion: inotify_init1 failed: \(String(cString: strerror(errno)))")
            return nil
        }
        let directory = ModeChecks.parentDirectory(of: path)
        let mask = UInt32(IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            logger.warning("cannot watch \(directory) for the socket's deletion: inotify_add_watch failed: \(String(cString: strerror(errno)))")
            close(fd)
            return nil
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(fd)
            return nil
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        let watcher = SocketWatcher(
            path: path, directory: directory, server: server, canRebind: canRebind, logger: logger, inotifyFD: fd,
            wake: (ends[0], ends[1]))
        watcher.rememberInode()
        var tid = pthread_t()
        let box = Unmanaged.passRetained(watcher)
        let rc = pthread_create(&tid, nil, { raw in
            guard let raw else { return nil }
            let me = Unmanaged<SocketWatcher>.fromOpaque(raw).takeRetainedValue()
            me.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            return nil
        }
        watcher.thread.withLock { $0 = tid }
        return watcher
    }

    private init(
        path: String, directory: String, server: EdgeSwipeServer, canRebind: Bool, logger: Logger, inotifyFD: Int32,
        wake: (Int32, Int32)
    ) {
        self.path = path
        self.name = String(path[path.index(after: path.lastIndex(of: "/")!)...])
        self.directory = directory
        self.server = server
        self.canRebind = canRebind
        self.logger = logger
        self.notify = SDNotify.fromEnvironment()
        self.inotifyFD = inotifyFD
        self.wakeRead = wake.0
        self.wakeWrite = wake.1
    }

    deinit {
        close(inotifyFD)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Stops the thread (before the server shuts down and removes its own socket file). Waits for it to finish.
    func stop() {
        guard stopped.withLock({ s in defer { s = true }; return !s }) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if let tid = thread.withLock({ $0 }) { pthread_join(tid, nil) }
    }

    private func rememberInode() {
        var st = stat()
        let inode = lstat(path, &st) == 0 ? (UInt64(st.st_dev), UInt64(st.st_ino)) : nil
        ownInode.withLock { $0 = inode }
    }

    private func run() {
        var fds = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 4096)
        // A deletion between binding and the watch being added made no event: look once now.
        check()
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            // No timeout unless a rebind is held back: an idle watcher never wakes.
            let timeout: Int32 = pace.withLock { p in
                guard let due = p.dueAt else { return -1 }
                let now = MonotonicClock.now().microseconds
                return due <= now ? 0 : Int32(min(UInt64(Int32.max), (due - now) / 1000 + 1))
            }
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("socket watch: poll failed (\(String(cString: strerror(errno)))); no longer watching \(path)")
                return
            }
            if ready == 0 {
                rebindIfDue()
                continue
            }
            if fds[1].revents != 0 || stopped.withLock({ $0 }) { return }
            guard fds[0].revents != 0 else { continue }
            let n = read(inotifyFD, &buffer, buffer.count)
            guard n > 0 else { continue }
            var offset = 0
            var touched = false, directoryGone = false
            while offset + 16 <= n {
                let (mask, length) = buffer.withUnsafeBytes { raw -> (UInt32, Int) in
                    (raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + 16)..<min(n, offset + 16 + length)].prefix(while: { $0 != 0 })
                let eventName = String(decoding: nameBytes, as: UTF8.self)
                offset += 16 + length
                if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                    directoryGone = true
                    continue
                }
                // An overflowed queue may have lost the event about our file: look at it anyway.
                if mask & UInt32(IN_Q_OVERFLOW) != 0 || eventName == name { touched = true }
            }
            if directoryGone {
                report("the socket's directory \(directory) was removed or moved; new clients cannot connect to \(path) until edgeswiped is restarted")
                return
            }
            if touched { check() }
        }
    }

    /// Looks at the path after an event about it and acts on what is there now.
    private func check() {
        // The daemon removed its own socket file on its way out of a crash (CrashCleanup.swift).
        guard !CrashCleanup.isCrashing else { return }
        var st = stat()
        if lstat(path, &st) == 0 {
            let ours = ownInode.withLock { $0.map { $0.dev == UInt64(st.st_dev) && $0.ino == UInt64(st.st_ino) } ?? false }
            if ours { return }  // our own re-creation, or an event that was already handled
            let (allowed, held) = pace.withLock { $0.replacedReports.admit(now: MonotonicClock.now().microseconds) }
            if allowed {
                let again = held > 0 ? " (\(held) more times since the last report)" : ""
                report("\(path) was replaced by another file while edgeswiped runs\(again); new clients no longer reach this daemon (remove that file, or restart edgeswiped)")
            }
            return
        }
        guard canRebind else {
            report("the socket file \(path) was deleted; systemd owns this socket, so new clients cannot connect until edgeswiped.socket is restarted")
            return
        }
        enum Decision { case now, later(backoffUS: UInt64, deletions: Int), waiting }
        let now = MonotonicClock.now().microseconds
        let decision = pace.withLock { p -> Decision in
            if p.dueAt != nil {
                p.deletionsWhileWaiting += 1
                return .waiting
            }
            p.recent.removeAll { now &- $0 > RebindPace.window }
            if p.recent.isEmpty { p.backoffUS = 0 }
            if p.recent.count < RebindPace.burst {
                p.recent.append(now)
                return .now
            }
            p.backoffUS = min(max(RebindPace.firstBackoff, p.backoffUS * 2), RebindPace.longestBackoff)
            p.dueAt = now + p.backoffUS
            return .later(backoffUS: p.backoffUS, deletions: p.recent.count + 1)
        }
        switch decision {
        case .waiting:
            return
        case .later(let backoff, let deletions):
            report("the socket file \(path) was deleted \(deletions) times in \(RebindPace.window / 1_000_000) s; binding it again in \(backoff / 1_000_000) s (something keeps deleting it)")
        case .now:
            logger.error("the socket file \(path) was deleted while edgeswiped runs; binding it again")
            rebind(note: "")
        }
    }

    /// A held-back rebind is due: bind again if the path is still free, or look at what took it.
    private func rebindIfDue() {
        let now = MonotonicClock.now().microseconds
        let deletions = pace.withLock { p -> Int? in
            guard let due = p.dueAt, due <= now else { return nil }
            p.dueAt = nil
            p.recent.append(now)
            defer { p.deletionsWhileWaiting = 0 }
            return p.deletionsWhileWaiting
        }
        guard let deletions, !CrashCleanup.isCrashing else { return }
        var st = stat()
        guard lstat(path, &st) != 0 else {
            check()
            return
        }
        rebind(note: deletions > 0 ? " after a pause (it was deleted while the daemon waited)" : " after a pause")
    }

    private func rebind(note: String) {
        do {
            try server.rebind()
            rememberInode()
            CrashCleanup.recordInode()
            let count = rebinds.withLock { n in n += 1; return n }
            logger.notice("socket \(path) recreated\(note); new clients can connect again", metadata: ["recreated": "\(count)"])
            sendStatus("serving \(path) (recreated after it was deleted)")
        } catch {
            report("the socket file \(path) was deleted and cannot be recreated: \(error); new clients cannot connect until edgeswiped is restarted")
        }
    }

    private func report(_ message: String) {
        logger.error("\(message)")
        sendStatus(message)
    }

    private func sendStatus(_ text: String) {
        guard let notify else { return }
        do { try notify.send(.status(text)) } catch { logger.warning("sd_notify: \(error)") }
    }
}
