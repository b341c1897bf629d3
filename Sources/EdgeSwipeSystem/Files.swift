import Glibc
public import SystemPackage

// File calls swift-system does not make: whole-file reads, fsync, the calls relative to a directory descriptor
// (openat, fstatat, renameat, unlinkat, faccessat), fchmod, flock, descriptor flags, listing and creating
// directories. Each is wrapped here once; errors are `Errno`.

extension FileDescriptor {
    /// Opens `path` (swift-system's `open`, with its error in the type).
    public static func open(
        atPath path: String, _ mode: AccessMode, options: OpenOptions = [], permissions: FilePermissions? = nil
    ) throws(Errno) -> FileDescriptor {
        try openat(AT_FDCWD, path, mode, options, permissions)
    }

    /// Opens `name` in the directory `directory` (`openat(2)`): a name, not a path, so that a directory opened
    /// once (and checked) is where the file is, whatever happens to the path meanwhile.
    public static func open(
        _ name: String, in directory: FileDescriptor, _ mode: AccessMode, options: OpenOptions = [],
        permissions: FilePermissions? = nil
    ) throws(Errno) -> FileDescriptor {
        try openat(directory.rawValue, name, mode, options, permissions)
    }

    private static func openat(
        _ directory: Int32, _ name: String, _ mode: AccessMode, _ options: OpenOptions, _ permissions: FilePermissions?
    ) throws(Errno) -> FileDescriptor {
        let flags = mode.rawValue | options.rawValue
        return FileDescriptor(rawValue: try check(retryingInterrupts: Glibc.openat(directory, name, flags, permissions?.rawValue ?? 0)))
    }

    /// `O_NOCTTY`, which swift-system has no name for: opening a terminal does not make it the controlling one.
    public static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)

    /// The bytes from the current offset to the end of the file, read `chunkSize` at a time; after each chunk
    /// `enough` may stop the reading early (then the bytes so far). `EINTR` is retried.
    public func readToEnd(
        chunkSize: Int = 1 << 16, reservingCapacity capacity: Int = 0, until enough: ([UInt8]) -> Bool = { _ in false }
    ) throws(Errno) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        var chunk = [UInt8](repeating: 0, count: max(1, chunkSize))
        while !enough(bytes) {
            let n = try read(into: &chunk, from: 0)
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Reads into `buffer` from index `offset` on: what the next `read(2)` gives, 0 at the end of the file.
    /// `EINTR` is retried.
    public func read(into buffer: inout [UInt8], from offset: Int) throws(Errno) -> Int {
        try typedErrno {
            try buffer.withUnsafeMutableBytes { raw in try read(into: UnsafeMutableRawBufferPointer(rebasing: raw[offset...])) }
        }
    }

    /// Writes every byte: `EINTR` retried, short writes continued.
    public func writeAll(_ bytes: [UInt8]) throws(Errno) {
        _ = try typedErrno { try writeAll(bytes[...]) }
    }

    /// `fsync(2)`: what was written is on the disk once this returns.
    public func sync() throws(Errno) {
        _ = try Self.check(retryingInterrupts: fsync(rawValue))
    }

    /// `fchmod(2)`. On a socket that is not bound yet, the mode the file `bind` creates will have (less the umask).
    public func setPermissions(_ permissions: FilePermissions) throws(Errno) {
        _ = try Self.check(fchmod(rawValue, permissions.rawValue))
    }

    /// Takes an exclusive `flock(2)` without waiting; fails with `EWOULDBLOCK` when another descriptor holds one.
    public func lockExclusively() throws(Errno) {
        _ = try Self.check(flock(rawValue, LOCK_EX | LOCK_NB))
    }

    /// Whether the descriptor is open.
    public var isOpen: Bool { fcntl(rawValue, F_GETFD) >= 0 }

    /// Sets `FD_CLOEXEC`, so that nothing the process runs inherits the descriptor.
    public func setCloseOnExec() {
        let flags = fcntl(rawValue, F_GETFD)
        if flags >= 0 { _ = fcntl(rawValue, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// A second descriptor for the same open file, with `FD_CLOEXEC` (`fcntl(F_DUPFD_CLOEXEC)`): whoever holds it
    /// keeps the file open, whatever happens to this one.
    public func duplicateCloseOnExec() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try Self.check(fcntl(rawValue, F_DUPFD_CLOEXEC, 0)))
    }

    /// Sets `O_NONBLOCK`.
    public func setNonBlocking() {
        let flags = fcntl(rawValue, F_GETFL)
        if flags >= 0 { _ = fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    // MARK: Entries of a directory descriptor

    /// What is at `name` in this directory, without following a symbolic link there (`fstatat(2)`).
    public func statEntry(_ name: String) throws(Errno) -> Stat {
        try FilePath(name).stat(relativeTo: self, flags: .symlinkNoFollow)
    }

    /// Whether anything (a dangling link included) is at `name` in this directory.
    public func hasEntry(_ name: String) -> Bool {
        faccessat(rawValue, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// Renames `name` to `newName` within this directory (`renameat(2)`), replacing what was there atomically.
    public func renameEntry(_ name: String, to newName: String) throws(Errno) {
        _ = try Self.check(renameat(rawValue, name, rawValue, newName))
    }

    /// The names in this directory (without `.` and `..`), in the order the file system gives them.
    public func entries() throws(Errno) -> [String] {
        // fdopendir takes the descriptor over (closedir closes it): give it a copy, read from the start.
        let copy = try Self.check(Glibc.dup(rawValue))
        guard let stream = fdopendir(copy) else {
            let code = errno
            Glibc.close(copy)
            throw Errno(rawValue: code)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes the file `name` of this directory (`unlinkat(2)`).
    public func removeEntry(_ name: String) throws(Errno) {
        _ = try Self.check(unlinkat(rawValue, name, 0))
    }
}

extension FilePath {
    /// The names in the directory (without `.` and `..`), in the order the file system gives them.
    public func directoryEntries() throws(Errno) -> [String] {
        let directory = try typedErrno { try FileDescriptor.open(self, .readOnly, options: [.directory, .closeOnExec]) }
        defer { try? directory.close() }
        return try directory.entries()
    }

    /// Creates the directory and any missing parents, each with exactly `permissions` (whatever the umask); a
    /// directory that exists is left as it is.
    public func createDirectories(permissions: FilePermissions) throws(Errno) {
        var path = FilePath(root: root)
        for component in components {
            path.append(component)
            let made = path.withPlatformString { mkdir($0, permissions.rawValue) }
            if made == 0 {
                _ = path.withPlatformString { chmod($0, permissions.rawValue) }
            } else if errno != EEXIST {
                throw Errno(rawValue: errno)
            }
        }
    }

    /// The same path made absolute against the working directory, with `.` and `..` resolved by their names (as
    /// Foundation's `URL(fileURLWithPath:)` makes it); symbolic links are left as they are.
    public var absolute: FilePath {
        guard !isAbsolute else { return lexicallyNormalized() }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return lexicallyNormalized() }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return FilePath(directory).pushing(self).lexicallyNormalized()
    }

    /// Whether this process may read the file (`access(2)` with `R_OK`).
    public var isReadable: Bool { withPlatformString { access($0, R_OK) } == 0 }
}
