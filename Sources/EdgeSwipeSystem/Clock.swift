public import EdgeSwipeVocabulary
import Glibc

/// The process's one clock: `CLOCK_MONOTONIC`, the clock the kernel stamps evdev events with and libinput reports
/// touches on (libevdev is told to use it: ``clockID``). Every `MonotonicInstant` the daemon, the server, the
/// bench and the tools make comes from here, so that an input's time and the time a message is read compare.
///
/// The core reads no clock: it is handed instants. This is the only place that reads this one.
public enum MonotonicClock {
    /// `CLOCK_MONOTONIC`, for C libraries that must stamp events on the same clock (`libevdev_set_clock_id`).
    public static let clockID: Int32 = CLOCK_MONOTONIC

    /// Now, in microseconds since an arbitrary point (the boot, on Linux), never going backwards.
    public static func now() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(microseconds: UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000)
    }

    /// `CLOCK_MONOTONIC_RAW`: what some compositors stamp `wp_presentation` times with (headless weston, and sway
    /// nested in it, say clock 4).
    public static let rawClockID: Int32 = CLOCK_MONOTONIC_RAW

    /// A recent instant on ``rawClockID``, in microseconds, as an instant on this clock: by its age, read on both
    /// clocks at once. They count the same ticks and differ only by NTP's slewing of this one (at most 500 ppm), so an
    /// instant milliseconds old lands within a microsecond; one from the future counts as now.
    public static func microseconds(fromRaw raw: UInt64) -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_RAW, &ts)
        let rawNow = UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
        let now = now().microseconds
        return now - min(now, rawNow - min(rawNow, raw))
    }
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): what benchmarks divide work by, so that a
/// loaded machine, which delays the thread without making it slower, does not distort a rate.
public enum ThreadCPUClock {
    /// Seconds of CPU this thread has used since it started.
    public static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
