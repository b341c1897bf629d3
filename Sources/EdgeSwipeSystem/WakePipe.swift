import Glibc
public import SystemPackage

/// A pipe that wakes a thread sleeping in ``DescriptorWaiter``: it waits on ``readEnd`` among its descriptors, and
/// another thread (or a signal handler) calls ``wake()``. Both ends are close-on-exec and non-blocking, so a wake-up
/// never blocks however many are pending, and one drain takes them all. Closed when the last reference goes.
public final class WakePipe: Sendable {
    /// The end to wait on.
    public let readEnd: FileDescriptor
    private let writeEnd: FileDescriptor

    public init() throws(Errno) {
        (readEnd, writeEnd) = try FileDescriptor.pipe(options: [.closeOnExec, .nonBlocking])
    }

    deinit {
        try? readEnd.close()
        try? writeEnd.close()
    }

    /// Wakes the waiting thread. Async-signal-safe: one `write(2)` of one byte (a full pipe already wakes it).
    public func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(writeEnd.rawValue, &byte, 1)
    }

    /// Reads every pending wake-up, so that the next wait sleeps again.
    public func drain() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { Glibc.read(readEnd.rawValue, $0.baseAddress, $0.count) }) > 0 {}
    }
}
