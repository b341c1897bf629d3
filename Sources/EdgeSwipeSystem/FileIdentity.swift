import Glibc
public import SystemPackage

/// A file by identity (its device and inode): how the daemon tells the socket file it created from whatever may
/// take its path later, so that it removes or re-creates only its own.
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    public init(_ stat: Stat) {
        self.init(device: UInt64(stat.rawValue.st_dev), inode: UInt64(stat.rawValue.st_ino))
    }

    /// What is at `path` now, without following a symbolic link there; `nil` when nothing is (or it cannot be
    /// looked at).
    public static func of(_ path: String) -> (identity: FileIdentity, type: FileType)? {
        guard let stat = try? Stat(FilePath(path), followTargetSymlink: false) else { return nil }
        return (FileIdentity(stat), stat.type)
    }

    /// Removes the file at `path` if it is still this one. Async-signal-safe (one `lstat`, one `unlink`, nothing
    /// allocated), so that a fatal-signal handler can call it.
    public func removeFile(at path: UnsafePointer<CChar>) {
        var st = stat()
        if lstat(path, &st) == 0, UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode {
            unlink(path)
        }
    }

    /// Removes the file at `path` if it is still this one.
    public func removeFile(at path: String) {
        path.withCString { removeFile(at: $0) }
    }
}
