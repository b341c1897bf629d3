import CSystemCalls
import Glibc
public import SystemPackage

/// Starting another program, without Foundation's `Process` (which comes with all of Foundation and ICU's 34 MB of
/// data: docs/PACKAGING.md, "What each byte is"): `posix_spawnp` of an argv, never through a shell.
public enum Spawn {
    /// What one of the child's standard streams is.
    public enum Stream: Sendable {
        /// This process's own.
        case inherited
        /// `/dev/null`.
        case null
        /// A descriptor of ours (a pipe's end), which the caller still owns and closes after the start.
        case descriptor(FileDescriptor)
    }

    /// Starts `argv[0]` (looked up on `$PATH` when it has no `/`) with `argv`, and `environment` (`nil`: this
    /// process's), its signals at their defaults and unblocked (SwiftNIO ignores `SIGPIPE`; the child must not
    /// inherit that), in a process group of its own when `ownProcessGroup` (so that a timeout can signal everything
    /// it started). Returns the child as a process descriptor, to wait for and reap.
    public static func start(
        _ argv: [String], environment: [String: String]? = nil,
        stdin: Stream = .inherited, stdout: Stream = .inherited, stderr: Stream = .inherited, ownProcessGroup: Bool = false
    ) throws(SystemCallError) -> ProcessDescriptor {
        guard let program = argv.first else { throw SystemCallError("posix_spawnp (no program)", .invalidArgument) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherited: break
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd.rawValue, target)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { $0.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for p in cArgv { free(p) }
            for p in cEnv ?? [] { free(p) }
        }
        var pid: pid_t = 0
        let rc = cEnv.map { posix_spawnp(&pid, program, &actions, &attributes, cArgv, $0) }
            ?? posix_spawnp(&pid, program, &actions, &attributes, cArgv, edgeswipe_environ())
        guard rc == 0 else { throw SystemCallError("posix_spawnp \(program)", Errno(rawValue: rc)) }
        do { return try ProcessDescriptor(pid: pid) } catch {
            _ = kill(ownProcessGroup ? -pid : pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            throw SystemCallError("pidfd_open", error)
        }
    }
}
