import CSystemCalls
import Glibc
public import SystemPackage

/// Waits for descriptors to become readable, with a microsecond deadline: how every thread of the daemon that
/// sleeps on descriptors sleeps (the input thread, the acceptor, the socket watcher).
///
/// `poll(2)` takes whole milliseconds and rounds up, which would deliver every replayed event and run-out tick up to
/// 1 ms late. `ppoll(2)` takes a `timespec`; Swift's Glibc module does not declare it (it is a GNU extension), so it
/// comes through `CSystemCalls`. Not `Sendable`: it belongs to the thread that waits, and its buffer is reused so
/// that waiting does not allocate.
public final class DescriptorWaiter {
    private var descriptors: [pollfd] = []

    public init() {}

    /// Forgets the descriptors of the previous wait (keeping the buffer).
    public func removeAll() { descriptors.removeAll(keepingCapacity: true) }

    /// Adds a descriptor to wait on for readability; its index is the number added before it.
    public func add(_ fd: Int32) { descriptors.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }

    /// Adds a descriptor to wait on for readability; its index is the number added before it.
    public func add(_ fd: FileDescriptor) { add(fd.rawValue) }

    /// Adds `fd`, waited on for `events` (`POLLIN`, `POLLOUT`: what a D-Bus connection asks for).
    public func add(_ fd: Int32, events: Int16) { descriptors.append(pollfd(fd: fd, events: events, revents: 0)) }

    /// Replaces the descriptor added `index`-th.
    public func replace(_ index: Int, with fd: FileDescriptor) { descriptors[index].fd = fd.rawValue }

    /// Waits until a descriptor is ready or `timeout` passes (`nil`: no timeout). A signal that interrupts the
    /// wait ends it as if the timeout had passed (nothing is ready), so the caller looks again.
    public func wait(timeoutMicroseconds timeout: Int64?) throws(Errno) {
        for i in descriptors.indices { descriptors[i].revents = 0 }
        let ready: Int32
        if let timeout {
            let us = max(0, timeout)
            var spec = timespec(tv_sec: Int(us / 1_000_000), tv_nsec: Int(us % 1_000_000) * 1000)
            ready = ppoll(&descriptors, nfds_t(descriptors.count), &spec, nil)
        } else {
            ready = ppoll(&descriptors, nfds_t(descriptors.count), nil, nil)
        }
        if ready < 0 && errno != EINTR { throw Errno(rawValue: errno) }
    }

    /// Whether the descriptor added `index`-th had something (data, hang-up or an error) at the last wait.
    public func isReady(_ index: Int) -> Bool { descriptors.indices.contains(index) && descriptors[index].revents != 0 }
}
