public import EdgeSwipeCore
public import Logging

// The pure halves of the live paths: everything that turns what libinput and libevdev report into engine
// inputs, without touching C, so that it is unit-tested with constructed values (this machine has no devices).

/// Collects libinput's per-touch events (down, motion, up, cancel) into one frame per `TOUCH_FRAME`.
///
/// libinput gives coordinates only on down and motion; an up or a cancel is placed where its touch last was.
/// The frame buffer is reused, as in ``EvdevFrameDecoder``.
public struct TouchFrameAssembler: Sendable {
    private var frame: TouchFrame
    private var last: [Int32: (position: NormalizedPoint, mm: MillimeterVector?)] = [:]

    /// An assembler for one device; its frames carry `device`.
    public init(device: DeviceID) {
        frame = TouchFrame(device: device, time: .zero, touches: [])
        frame.touches.reserveCapacity(10)
    }

    /// Touches down now, by slot.
    public var touchesDown: Int { last.count }

    /// A touch event. `position` is libinput's `get_x/y_transformed(…, 1)` (calibration and rotation applied by
    /// libinput's matrix); `mm` is the position in millimetres in the user's orientation. Both are ignored for
    /// up and cancel.
    public mutating func touch(_ phase: TouchPhase, slot: Int32, position: NormalizedPoint?, mm: MillimeterVector?) {
        switch phase {
        case .down, .motion:
            guard let position else { return }
            // A motion for a touch never seen down (it landed before the device was added) is not trusted.
            if phase == .motion && last[slot] == nil { return }
            let touch = Touch(id: slot, phase: phase, position: position, positionMM: mm)
            last[slot] = (touch.position, mm)
            frame.touches.append(touch)
        case .up, .cancel:
            guard let previous = last.removeValue(forKey: slot) else { return }
            frame.touches.append(Touch(id: slot, phase: phase, position: previous.position, positionMM: previous.mm))
        }
    }

    /// `TOUCH_FRAME`: the touches since the last frame, if any changed.
    public mutating func endFrame(at time: MonotonicInstant) -> TouchFrame? {
        defer { frame.touches.removeAll(keepingCapacity: true) }
        guard !frame.touches.isEmpty else { return nil }
        frame.time = time
        return frame
    }

    /// Forgets every touch (the device was removed, or its geometry changed).
    public mutating func reset() {
        last.removeAll()
        frame.touches.removeAll(keepingCapacity: true)
    }
}

/// Pure conversions for the libinput and libevdev paths.
public enum LiveMapping {
    /// The matrix libinput is given for a touchscreen: the calibration, then the rotation, as libinput's six
    /// floats. libinput applies it to normalized coordinates, so `get_x_transformed` is already in the user's
    /// orientation.
    public static func libinputMatrix(rotation: Rotation, calibration: CalibrationMatrix?) -> [Float] {
        (calibration ?? .identity).followed(by: rotation).values.map { Float($0) }
    }

    /// A position in millimetres from the device's top-left corner (libinput's `get_x/get_y`) in the user's
    /// orientation, for a device of `size` (in device orientation).
    public static func userMillimeters(x: Double, y: Double, deviceSize size: MillimeterSize, rotation: Rotation) -> MillimeterVector {
        let (w, h) = (size.width.value, size.height.value)
        switch rotation {
        case .degrees0: return MillimeterVector(x: x, y: y)
        case .degrees90: return MillimeterVector(x: h - y, y: x)
        case .degrees180: return MillimeterVector(x: w - x, y: h - y)
        case .degrees270: return MillimeterVector(x: y, y: w - x)
        }
    }

    /// libinput's log priorities (`LIBINPUT_LOG_PRIORITY_DEBUG` 10, `INFO` 20, `ERROR` 30) as log levels.
    public static func logLevel(libinputPriority priority: UInt32) -> Logger.Level {
        switch priority {
        case ..<20: .debug
        case 20..<30: .info
        default: .error
        }
    }

    /// The priority to ask libinput for, so that it does not format messages nobody will see.
    public static func libinputPriority(for level: Logger.Level) -> UInt32 {
        switch level {
        case .trace, .debug: 10
        case .info, .notice: 20
        case .warning, .error, .critical: 30
        }
    }

    /// A libinput message as one log line: its trailing newline removed.
    public static func logLine(_ message: String) -> String {
        var line = Substring(message)
        while let last = line.last, last == "\n" || last == "\r" { line = line.dropLast() }
        return String(line)
    }

    /// udev properties from `KEY=VALUE` strings (udev's list, `libinput record`'s `udev.properties`).
    public static func udevProperties(_ entries: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for entry in entries {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = parts.first, !key.isEmpty else { continue }
            result[String(key)] = parts.count > 1 ? String(parts[1]) : ""
        }
        return result
    }
}

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
