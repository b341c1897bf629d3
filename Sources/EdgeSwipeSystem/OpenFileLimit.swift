import Glibc

/// The process's limit on open descriptors (`RLIMIT_NOFILE`).
///
/// systemd starts services with a soft limit of 1024 and a hard limit far above it, and asks programs that never
/// use `select(2)` to raise the soft limit themselves (systemd.exec(5), `LimitNOFILE=`). The daemon holds two
/// descriptors per client (NIO's and the publisher's duplicate for direct writes), so at the default soft limit
/// it would run out at about 500 clients, below `max_clients`.
public enum OpenFileLimit {
    /// Raises the soft limit to the hard limit; returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
