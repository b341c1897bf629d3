import EdgeSwipeCore
public import EdgeSwipeInput

// The pure half of the libevdev touchpad path: libevdev's read protocol as a value that touches no C, so it is
// unit-tested with scripted reads (this machine has no devices). Libevdev.swift makes the calls.

/// What one `libevdev_next_event` call returned.
public enum EvdevRead: Hashable, Sendable {
    /// `LIBEVDEV_READ_STATUS_SUCCESS`.
    case event(EvdevEvent)
    /// `LIBEVDEV_READ_STATUS_SYNC`: `SYN_DROPPED`, or one of the events that resynchronise after it.
    case sync(EvdevEvent)
    /// `-EAGAIN`: nothing more for now (in sync mode: the resync is complete).
    case again
    /// Any other negative errno; `ENODEV` means the device is gone.
    case failed(errno: Int32)
}

/// libevdev's read protocol, as a value: read in normal mode until `-EAGAIN`; on `SYN_DROPPED` switch to sync
/// mode (`LIBEVDEV_READ_FLAG_SYNC`) until `-EAGAIN`, handing those events to ``EvdevFrameDecoder/feedResync(_:)``.
public struct EvdevReadLoop: Sendable {
    /// How a drain ended.
    public enum Outcome: Hashable, Sendable {
        /// Everything available was read.
        case drained
        /// The device failed (unplugged: `ENODEV`); it must be closed.
        case failed(errno: Int32)
    }

    /// Whether the next read must use `LIBEVDEV_READ_FLAG_SYNC`.
    public private(set) var syncing = false

    public init() {}

    /// Reads with `read(syncing)` until nothing is left, handing each decoded input to `handle` at once (so the
    /// decoder's frame buffer is free again before the next frame).
    public mutating func drain(
        decoder: inout EvdevFrameDecoder, read: (_ sync: Bool) -> EvdevRead, handle: (InputStep) -> Void
    ) -> Outcome {
        while true {
            switch read(syncing) {
            case .event(let e):
                // libevdev only returns normal events once the sync queue is empty.
                syncing = false
                deliver(decoder.feed(e), to: handle)
            case .sync(let e):
                syncing = true
                deliver(decoder.feedResync(e), to: handle)
            case .again:
                if syncing {
                    syncing = false
                    continue
                }
                return .drained
            case .failed(let code):
                syncing = false
                return .failed(errno: code)
            }
        }
    }

    private func deliver(_ output: EvdevFrameDecoder.Output?, to handle: (InputStep) -> Void) {
        switch output {
        case .frame(let frame)?: handle(InputStep(time: frame.time, input: .frame(frame)))
        case .eventsLost(let id, let time)?: handle(InputStep(time: time, input: .eventsLost(id)))
        case nil: break
        }
    }
}
