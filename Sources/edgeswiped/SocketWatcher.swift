import EdgeSwipeBus
import EdgeSwipeCore
import EdgeSwipeServer
import EdgeSwipeSystem
import Logging
import Synchronization

// A socket file deleted (or replaced) while the daemon runs is noticed at once, and the
// socket is bound again; a daemon must never be silently unreachable.
//
// The watcher is an inotify descriptor for the socket's directory (DirectoryWatch), waited on by the server's
// accepting thread next to the listening socket (EdgeSwipeServer.attach): no thread of its own, no timer, no
// wake-up while nothing happens. What it does:
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
final class SocketWatcher: AcceptLoopCompanion, Sendable {
    private let path: String
    private let name: String
    private let directory: String
    private let server: EdgeSwipeServer
    private let canRebind: Bool
    private let logger: Logger
    private let watch: DirectoryWatch
    /// The directory went away: nothing more will be reported, and nothing is done.
    private let finished = Mutex(false)
    /// The socket file that is ours, to tell our own re-creation from someone else's file.
    private let ownFile = Mutex<FileIdentity?>(nil)
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
        let directory = ModeChecks.parentDirectory(of: path)
        let watch: DirectoryWatch
        do { watch = try DirectoryWatch(directory: directory) } catch {
            logger.warning("cannot watch \(directory) for the socket's deletion: \(error)")
            return nil
        }
        let watcher = SocketWatcher(path: path, directory: directory, server: server, canRebind: canRebind, logger: logger, watch: watch)
        watcher.rememberInode()
        server.attach(watcher)
        return watcher
    }

    private init(
        path: String, directory: String, server: EdgeSwipeServer, canRebind: Bool, logger: Logger, watch: DirectoryWatch
    ) {
        self.path = path
        self.name = String(path[path.index(after: path.lastIndex(of: "/") ?? path.startIndex)...])
        self.directory = directory
        self.server = server
        self.canRebind = canRebind
        self.logger = logger
        self.watch = watch
    }

    /// Stops watching (before the server shuts down and removes its own socket file); once it returns, nothing
    /// more is checked.
    func stop() {
        server.detachCompanion()
    }

    private func rememberInode() {
        let file = FileIdentity.of(path)?.identity
        ownFile.withLock { $0 = file }
    }

    var descriptor: Int32 { watch.descriptor.rawValue }

    /// A held-back rebind, when there is one.
    var nextDeadline: MonotonicInstant? { pace.withLock { $0.dueAt.map(MonotonicInstant.init(microseconds:)) } }

    private let introduced = Mutex(false)

    /// On the accepting thread: once when attached (a deletion between binding and the watch being added made no
    /// event: look once), then on every inotify event and when a held-back rebind is due.
    func service(now: MonotonicInstant) {
        guard !finished.withLock({ $0 }) else { return }
        if !introduced.withLock({ i in defer { i = true }; return i }) { check() }
        rebindIfDue()
        var touched = false, directoryGone = false
        for event in watch.read() {
            switch event {
            case .directoryGone: directoryGone = true
            // An overflowed queue may have lost the event about our file: look at it anyway.
            case .eventsLost: touched = true
            case .entryChanged(let entry): if entry == name { touched = true }
            }
        }
        if directoryGone {
            finished.withLock { $0 = true }
            report("the socket's directory \(directory) was removed or moved; new clients cannot connect to \(path) until edgeswiped is restarted")
            return
        }
        if touched { check() }
    }

    /// Looks at the path after an event about it and acts on what is there now.
    private func check() {
        // The daemon removed its own socket file on its way out of a crash (CrashCleanup.swift).
        guard !CrashCleanup.isCrashing else { return }
        if let (file, _) = FileIdentity.of(path) {
            if ownFile.withLock({ $0 == file }) { return }  // our own re-creation, or an event that was already handled
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
        guard FileIdentity.of(path) == nil else {
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
        do { try ServiceManager.notify([.status(text)]) } catch { logger.warning("\(error)") }
    }
}
