import CInput
import Glibc

/// Waits for descriptors to become readable, with a microsecond deadline: the host input thread's only way to
/// sleep.
///
/// `poll(2)` takes whole milliseconds and rounds up, which would deliver every replayed event and run-out tick
/// up to 1 ms late. `ppoll(2)` takes a `timespec`; Swift's Glibc module does not declare it (it is a GNU
/// extension), so it comes through the C module, which only this target imports. Not `Sendable`: it belongs to
/// the thread that waits, and its buffer is reused so that waiting does not allocate.
public final class DescriptorWaiter {
    private var descriptors: [pollfd] = []

    public init() {}

    /// Forgets the descriptors of the previous wait (keeping the buffer).
    public func removeAll() { descriptors.removeAll(keepingCapacity: true) }

    /// Adds a descriptor to wait on for readability; its index is the number added before it.
    public func add(_ fd: Int32) { descriptors.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }

    /// Waits until a descriptor is ready or `timeout` passes (`nil`: no timeout). Returns `ppoll`'s result; a
    /// negative value leaves the reason in `errno`.
    public func wait(timeoutMicroseconds timeout: Int64?) -> Int32 {
        guard let timeout else { return ppoll(&descriptors, nfds_t(descriptors.count), nil, nil) }
        let us = max(0, timeout)
        var spec = timespec(tv_sec: Int(us / 1_000_000), tv_nsec: Int(us % 1_000_000) * 1000)
        return ppoll(&descriptors, nfds_t(descriptors.count), &spec, nil)
    }

    /// Whether the descriptor added `index`-th had something (data, hang-up or an error) at the last wait.
    public func isReady(_ index: Int) -> Bool { descriptors.indices.contains(index) && descriptors[index].revents != 0 }
}
