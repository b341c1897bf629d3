import Dispatch

/// The process's entry point: runs ``EdgeSwipeDaemon`` (parsing, `run()`, exit status) and keeps the main thread
/// waiting until it returns.
///
/// Why not `@main` on the command itself: Swift's asynchronous `main` ends by handing the main thread to
/// `dispatch_main()`, which calls `pthread_exit()` on it, and that unwinds the main thread's stack. The unwinder
/// binary-searches the binary's `.eh_frame_hdr` and reads each frame's FDE, and the kernel maps 64 KB around every
/// page it touches: about 0.9 MB of unwind tables and `libgcc_s` stayed resident for the daemon's whole life, for a
/// thread that does nothing (docs/PERFORMANCE.md, "Memory"). Nothing in the daemon runs on the main actor (the main
/// queue is never drained here), so the main thread can simply wait.
@main
enum DaemonMain {
    static func main() {
        CrashCleanup.unblockFatalSignals()
        let finished = DispatchSemaphore(value: 0)
        // `main()` prints help, version and usage errors and exits with the command's status itself; a normal
        // return is a clean shutdown, and the process then exits 0 from here.
        Task.detached {
            await EdgeSwipeDaemon.main()
            finished.signal()
        }
        finished.wait()
    }
}
