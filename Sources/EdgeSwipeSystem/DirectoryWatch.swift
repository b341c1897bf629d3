import Glibc
public import SystemPackage

/// Changes to the entries of one directory (`inotify(7)`), read from a descriptor to wait on: how the daemon learns
/// at once that its socket file was deleted or replaced, without waking while nothing happens.
public final class DirectoryWatch: Sendable {
    /// What a read reports.
    public enum Event: Hashable, Sendable {
        /// An entry was created, deleted or renamed (to or from this name).
        case entryChanged(String)
        /// The directory itself was deleted or moved: nothing more will be reported.
        case directoryGone
        /// The kernel's queue overflowed: events were lost, and any entry may have changed.
        case eventsLost
    }

    /// Readable when events are pending; non-blocking.
    public let descriptor: FileDescriptor

    public init(directory: String) throws(SystemCallError) {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw SystemCallError("inotify_init1", Errno(rawValue: errno)) }
        let mask = UInt32(IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let code = errno
            close(fd)
            throw SystemCallError("inotify_add_watch", Errno(rawValue: code))
        }
        descriptor = FileDescriptor(rawValue: fd)
    }

    deinit { try? descriptor.close() }

    /// The events pending now (empty when there are none).
    public func read() -> [Event] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        guard let n = try? descriptor.read(into: &buffer, from: 0), n > 0 else { return [] }
        var events: [Event] = []
        var offset = 0
        // struct inotify_event: wd (4), mask (4), cookie (4), len (4), then len bytes of NUL-padded name.
        while offset + 16 <= n {
            let (mask, length) = buffer.withUnsafeBytes { raw -> (UInt32, Int) in
                (raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                 Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
            }
            let nameBytes = buffer[(offset + 16)..<min(n, offset + 16 + length)].prefix(while: { $0 != 0 })
            offset += 16 + length
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                events.append(.directoryGone)
            } else if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                events.append(.eventsLost)
            } else {
                events.append(.entryChanged(String(decoding: nameBytes, as: UTF8.self)))
            }
        }
        return events
    }
}
