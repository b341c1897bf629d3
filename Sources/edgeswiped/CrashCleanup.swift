import EdgeSwipeSystem
import Glibc
import Synchronization
import SystemPackage

// A daemon that dies of a fatal signal (a trap, a fault, an abort) removes the socket file it bound on its way
// out. Left behind, the file would answer every client with ECONNREFUSED, as if a daemon were there but busy, until
// something replaced it; gone, clients see that nothing listens. (SIGKILL cannot be caught: the next start
// replaces the stale file, as it always has.) Only a file that is still the socket this daemon bound is removed,
// and then the signal goes on to whoever handled it before (the Swift runtime's backtracer, or the default: a core
// dump), so the crash itself is reported as it would have been.

private let fatalSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]

// Read by the signal handler, so nothing it touches may allocate or lock: a C string and the file's identity (two
// integers), set before the handler is installed (and after each rebind), and the previous actions, one slot per
// signal number.
nonisolated(unsafe) private var socketPath: UnsafeMutablePointer<CChar>?
nonisolated(unsafe) private var socketFile = FileIdentity(device: 0, inode: 0)
nonisolated(unsafe) private var previousActions: UnsafeMutablePointer<sigaction>?
/// Set by the handler: the process is dying (lock-free, so the handler may set it).
private let crashing = Atomic<Bool>(false)

enum CrashCleanup {
    /// A fatal signal is being handled: nothing may bind the socket path again.
    static var isCrashing: Bool { crashing.load(ordering: .sequentiallyConsistent) }

    /// Installs the handlers for the socket file at `path` (one the daemon bound itself) and records its inode.
    static func install(socketPath path: String) {
        guard socketPath == nil else { return }
        socketPath = strdup(path)
        // Written here, so that the handler never is the first to touch (and lazily initialize) the global.
        socketFile = FileIdentity(device: 0, inode: 0)
        recordInode()
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
        previous.initialize(repeating: sigaction(), count: 65)
        previousActions = previous
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { sig in
            // First, so that the socket watcher, woken by the unlink, does not bind the path again.
            crashing.store(true, ordering: .sequentiallyConsistent)
            if let path = socketPath { socketFile.removeFile(at: path) }
            if let previous = previousActions, sig >= 0, sig < 65 { sigaction(sig, previous + Int(sig), nil) }
            raise(sig)
        }
        sigemptyset(&action.sa_mask)
        for sig in fatalSignals { sigaction(sig, &action, previous + Int(sig)) }
    }

    /// Unblocks the fatal signals on the calling thread. The main thread is the one the kernel can hand a
    /// process-directed signal to (the runtime's and NIO's threads block nearly all of them), and it inherits the
    /// mask of whoever spawned the daemon: a spawner that blocked `SIGABRT` would otherwise keep `kill -ABRT` pending
    /// forever instead of reaching the handler.
    static func unblockFatalSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for sig in fatalSignals { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Records the socket file's inode again: after the daemon bound its path anew (a deleted socket file).
    static func recordInode() {
        guard let path = socketPath, let (file, type) = FileIdentity.of(String(cString: path)), type == .socket else { return }
        socketFile = file
    }
}
