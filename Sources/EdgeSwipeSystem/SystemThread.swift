import CSystemCalls
import Glibc
public import SystemPackage

/// A thread of our own (`pthread_create`), for the loops that sleep in ``DescriptorWaiter``: the input thread, the
/// acceptor and the socket watcher. Unlike a Swift task, it may block; unlike Foundation's `Thread`, it needs no
/// Foundation.
public struct SystemThread: Sendable {
    private let handle: pthread_t

    /// Starts `body` on a new thread named `name` (as `ps -T` and `/proc/PID/task/TID/comm` show it; at most 15
    /// bytes are kept). A `detached` thread is never joined: its resources go back when it ends.
    @discardableResult
    public static func start(name: String, detached: Bool = false, _ body: @escaping @Sendable () -> Void) throws(Errno) -> SystemThread {
        let start = Unmanaged.passRetained(Start(name: name, body: body))
        var handle = pthread_t()
        let rc = pthread_create(&handle, nil, { raw in
            guard let raw else { return nil }
            let start = Unmanaged<Start>.fromOpaque(raw).takeRetainedValue()
            var name = Array(start.name.utf8.prefix(15))
            name.append(0)
            name.withUnsafeBufferPointer { _ = $0.withMemoryRebound(to: CChar.self) { pthread_setname_np(pthread_self(), $0.baseAddress) } }
            start.body()
            return nil
        }, start.toOpaque())
        guard rc == 0 else {
            start.release()
            throw Errno(rawValue: rc)
        }
        if detached { pthread_detach(handle) }
        return SystemThread(handle: handle)
    }

    /// Waits for the thread to end. Only for a thread that is not detached, and only once.
    public func join() {
        pthread_join(handle, nil)
    }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
