import CSystemCalls
import Glibc
public import SystemPackage

/// An anonymous memory file of a fixed size, mapped read-write and shared (`memfd_create`, `ftruncate`, `mmap`):
/// the pixels of a `wl_shm` buffer, which the compositor maps through the descriptor. Owns both the mapping and
/// the descriptor, and gives both back when released.
public final class SharedMemory: @unchecked Sendable {
    /// The file the compositor maps (`wl_shm.create_pool` takes it, and dups it).
    public let descriptor: FileDescriptor
    public let byteCount: Int
    /// The mapping; valid while this object lives.
    public let bytes: UnsafeMutableRawPointer

    /// A new zero-filled file of `byteCount` bytes, mapped; `name` shows in `/proc/PID/fd`.
    public init(name: String, byteCount: Int) throws(SystemCallError) {
        guard byteCount > 0 else { throw SystemCallError("memfd_create \(name) of \(byteCount) bytes", .invalidArgument) }
        let fd: FileDescriptor
        do { fd = FileDescriptor(rawValue: try FileDescriptor.check(memfd_create(name, EDGESWIPE_MFD_CLOEXEC))) } catch {
            throw SystemCallError("memfd_create \(name)", error)
        }
        do { _ = try FileDescriptor.check(retryingInterrupts: ftruncate(fd.rawValue, off_t(byteCount))) } catch {
            try? fd.close()
            throw SystemCallError("ftruncate \(name) to \(byteCount) bytes", error)
        }
        guard let map = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd.rawValue, 0), map != MAP_FAILED else {
            let e = Errno(rawValue: errno)
            try? fd.close()
            throw SystemCallError("mmap \(name) (\(byteCount) bytes)", e)
        }
        descriptor = fd
        self.byteCount = byteCount
        bytes = map
    }

    deinit {
        munmap(bytes, byteCount)
        try? descriptor.close()
    }
}
