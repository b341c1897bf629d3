/// Lets a repeated event through at most once per interval and counts the ones it held back, so that a peer
/// repeating something (connecting past `max_clients`, deleting the socket file in a loop, a service on the system
/// bus sending malformed values) can neither flood the journal nor make the daemon repeat work as fast as it likes.
///
/// One home for every process and module that logs what a peer controls: the server, the daemon's socket watcher,
/// the seat watcher. A value: whoever shares one between threads keeps it under a lock.
public struct LogThrottle: Sendable {
    /// The shortest time between two events let through, in microseconds.
    public let intervalMicroseconds: UInt64
    private var last: UInt64?
    private var held = 0

    public init(interval: Duration) {
        let (seconds, attoseconds) = interval.components
        intervalMicroseconds = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds / 1_000_000_000_000))
    }

    /// Whether the event at `now` (monotonic microseconds) goes through, and how many were held back since the
    /// last one that did.
    public mutating func admit(now: UInt64) -> (allowed: Bool, held: Int) {
        if let last, now < last &+ intervalMicroseconds {
            held += 1
            return (false, held)
        }
        defer { held = 0 }
        last = now
        return (true, held)
    }

    /// The same, now (``MonotonicClock``).
    public mutating func admit() -> (allowed: Bool, held: Int) {
        admit(now: MonotonicClock.now().microseconds)
    }

    /// When the next event would go through (monotonic microseconds); `nil` if it would now.
    public func nextAllowed(now: UInt64) -> UInt64? {
        guard let last, now < last &+ intervalMicroseconds else { return nil }
        return last &+ intervalMicroseconds
    }
}
