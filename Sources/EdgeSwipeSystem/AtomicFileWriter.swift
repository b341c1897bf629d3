import Glibc
public import SystemPackage

/// Replaces files in one directory atomically and durably: whoever reads the file (a restart after a crash, a
/// `SIGKILL` or a power cut included) finds the old content or the new, whole, never a mix or nothing.
///
/// ``write(_:to:)`` writes a temporary file beside the target (`NAME.tmp-PID`, created with ``permissions``, new:
/// never through a symbolic link, never into a file someone else put there), `fsync`s it, renames it over the target and `fsync`s the directory, so that the
/// rename itself is on the disk when it returns. The directory is a descriptor, opened (and checked) once by the
/// owner, which keeps it open while the writer is used: a path swapped meanwhile changes nothing.
///
/// A value with no state of its own, safe to use from any thread; two writes of the same name at once would share
/// the temporary file, so the caller serializes those (one writer thread, or a lock).
public struct AtomicFileWriter: Sendable {
    /// Where the files are.
    public let directory: FileDescriptor
    /// The directory's path, for messages.
    public let directoryPath: String
    /// The mode new files are created with (less the umask).
    public let permissions: FilePermissions

    public init(directory: FileDescriptor, path: String, permissions: FilePermissions = [.ownerRead, .ownerWrite]) {
        self.directory = directory
        self.directoryPath = path
        self.permissions = permissions
    }

    /// The name of the temporary file a write of `name` by this process uses.
    public static func temporaryName(for name: String) -> String { "\(name).tmp-\(getpid())" }

    /// Replaces `name` with `bytes`: temporary file, `fsync`, `rename`, `fsync` of the directory. On a failure the
    /// target is as it was (or, when only the last `fsync` failed, already replaced) and no temporary is left.
    public func write(_ bytes: [UInt8], to name: String) throws(SystemCallError) {
        let temporary = Self.temporaryName(for: name)
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(
                temporary, in: directory, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec, .noFollow],
                permissions: permissions)
        } catch {
            throw SystemCallError("open \(temporary)", error)
        }
        do throws(SystemCallError) {
            do { try file.writeAll(bytes) } catch { throw SystemCallError("write \(temporary)", error) }
            do { try file.sync() } catch { throw SystemCallError("fsync \(temporary)", error) }
        } catch {
            try? file.close()
            try? directory.removeEntry(temporary)
            throw error
        }
        try? file.close()
        do { try directory.renameEntry(temporary, to: name) } catch {
            try? directory.removeEntry(temporary)
            throw SystemCallError("rename \(temporary) to \(name)", error)
        }
        do { try directory.sync() } catch { throw SystemCallError("fsync \(directoryPath)", error) }
    }

    /// Why ``replaceFile(at:with:permissions:)`` wrote nothing.
    public enum ReplaceError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A symbolic link is at the path: it is neither followed nor replaced.
        case symbolicLink(path: String)
        /// Something other than a regular file is at the path (a directory, a device, a FIFO).
        case notARegularFile(path: String)
        case system(path: String, SystemCallError)

        public var description: String {
            switch self {
            case .symbolicLink(let path):
                "\(path) is a symbolic link: it is neither followed nor replaced (remove it, or name the file it points to)"
            case .notARegularFile(let path): "\(path) exists and is not a regular file"
            case .system(let path, let error): "\(path): \(error)"
            }
        }
    }

    /// Replaces the file at `path`, a path a user named (a tool's output), as ``write(_:to:)`` replaces a file: a
    /// new file beside it, then a rename. What is at `path` must be nothing or a regular file: a symbolic link
    /// there is refused, neither followed nor replaced (another user may have planted it in a shared directory,
    /// pointing at a file of ours; or it is `/dev/stdout`, which a rename would destroy), and so is a directory or
    /// a device. A regular file is replaced, not written into: a hard link to it keeps the old content. Not made
    /// durable beyond the rename's own `fsync`s.
    public static func replaceFile(at path: String, with bytes: [UInt8], permissions: FilePermissions) throws(ReplaceError) {
        let file = FilePath(path)
        guard let last = file.lastComponent, last.kind == .regular else { throw .notARegularFile(path: path) }
        let parent = file.removingLastComponent()
        let directoryPath = parent.isEmpty ? "." : parent.string
        let directory: FileDescriptor
        do {
            directory = try FileDescriptor.open(atPath: directoryPath, .readOnly, options: [.directory, .closeOnExec])
        } catch {
            throw .system(path: path, SystemCallError("open \(directoryPath)", error))
        }
        defer { try? directory.close() }
        let name = last.string
        if directory.hasEntry(name) {
            let existing: Stat
            do { existing = try directory.statEntry(name) } catch { throw .system(path: path, SystemCallError("stat \(name)", error)) }
            switch existing.type {
            case .regular: break
            case .symbolicLink: throw .symbolicLink(path: path)
            default: throw .notARegularFile(path: path)
            }
        }
        do throws(SystemCallError) {
            try AtomicFileWriter(directory: directory, path: directoryPath, permissions: permissions).write(bytes, to: name)
        } catch {
            throw .system(path: path, error)
        }
    }

    /// Removes the temporaries of `name` that writers killed mid-write left behind (any process's). Only while no
    /// other process writes here: the owner holds a lock on the directory.
    public func removeStaleTemporaries(of name: String) {
        guard let entries = try? directory.entries() else { return }
        for entry in entries where entry.hasPrefix("\(name).tmp-") {
            try? directory.removeEntry(entry)
        }
    }
}
