import EdgeSwipeCore
import Glibc

/// The one place the daemon reads the clock: `CLOCK_MONOTONIC`, the clock evdev and libinput stamp events with.
enum MonotonicClock {
    static func now() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(microseconds: UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000)
    }
}
