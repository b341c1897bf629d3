import Glibc
public import SystemPackage

/// Replaces files in one directory atomically and durably: whoever reads the file (a restart after a crash, a
/// `SIGKILL` or a power cut included) finds the old content or the new, whole, never a mix or nothing.
///
/// ``write(_:to:)`` writes a temporary file beside the target (`NAME.tmp-PID`, created with ``permissions``,
/// never through a symbolic link), `fsync`s it, renames it over the target and `fsync`s the directory, so that the
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
                temporary, in: directory, .writeOnly, options: [.create, .truncate, .closeOnExec, .noFollow],
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

    /// Removes the temporaries of `name` that writers killed mid-write left behind (any process's). Only while no
    /// other process writes here: the owner holds a lock on the directory.
    public func removeStaleTemporaries(of name: String) {
        guard let entries = try? directory.entries() else { return }
        for entry in entries where entry.hasPrefix("\(name).tmp-") {
            try? directory.removeEntry(entry)
        }
    }
}
