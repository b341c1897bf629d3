import CSystemCalls
import Glibc
public import SystemPackage

/// A process as a file descriptor (`pidfd_open(2)`): readable once the process has exited, so that a thread can
/// wait in one ``DescriptorWaiter`` for a child's exit, its output and a deadline together, with no polling.
public final class ProcessDescriptor: Sendable {
    public let pid: Int32
    public let descriptor: FileDescriptor

    /// Opens a descriptor for `pid`, which must be a child of this process that has not been reaped.
    public init(pid: Int32) throws(Errno) {
        self.pid = pid
        descriptor = FileDescriptor(rawValue: try FileDescriptor.check(pidfd_open(pid, 0)))
        // The descriptor must not leak into the commands spawned later (pidfd_open sets close-on-exec itself since
        // Linux 5.10; older kernels want it asked for).
        _ = fcntl(descriptor.rawValue, F_SETFD, FD_CLOEXEC)
    }

    deinit { try? descriptor.close() }

    /// Sends `signal` to the process (through `kill(2)`: the child is ours and not reaped, so the pid is still its).
    public func signal(_ signal: Int32) {
        _ = Glibc.kill(pid, signal)
    }

    /// Reaps the process, which has exited (the descriptor was readable): its exit status as `waitpid(2)` gives it.
    public func reap() throws(Errno) -> ExitStatus {
        var status: Int32 = 0
        _ = try FileDescriptor.check(retryingInterrupts: waitpid(pid, &status, 0))
        return ExitStatus(raw: status)
    }

    /// How a process ended.
    public enum ExitStatus: Hashable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        init(raw: Int32) {
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which are macros Swift does not import.
            if raw & 0x7f == 0 { self = .exited((raw >> 8) & 0xff) } else { self = .signalled(raw & 0x7f) }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signalled(let signal): "killed by signal \(signal)\(signal == SIGKILL ? " (SIGKILL)" : signal == SIGTERM ? " (SIGTERM)" : "")"
            }
        }
    }
}

/// An anonymous file in memory (`memfd_create(2)`), close-on-exec: what a Wayland client hands the compositor to
/// map (a keymap, a shared-memory buffer).
public enum MemoryFile {
    /// A new file of `bytes`, at offset 0; the caller owns the descriptor.
    public static func make(name: String, bytes: [UInt8]) throws(Errno) -> FileDescriptor {
        let fd = FileDescriptor(rawValue: try FileDescriptor.check(memfd_create(name, EDGESWIPE_MFD_CLOEXEC)))
        do {
            try typedErrno { _ = try fd.writeAll(bytes) }
            try typedErrno { _ = try fd.seek(offset: 0, from: .start) }
        } catch {
            try? fd.close()
            throw error
        }
        return fd
    }
}
