public import EdgeSwipeCore

// The pure half of the libinput touchscreen path: it touches no C, so it is unit-tested with constructed values
// (this machine has no devices). LiveTouchInput feeds it libinput's events.

/// Collects libinput's per-touch events (down, motion, up, cancel) into one frame per `TOUCH_FRAME`.
///
/// libinput gives coordinates only on down and motion; an up or a cancel is placed where its touch last was.
/// The frame buffer is reused, as in ``EvdevFrameDecoder``.
public struct TouchFrameAssembler: Sendable {
    private var frame: TouchFrame
    /// Where each touch down now last was, by slot.
    private var last: [Int32: NormalizedPoint] = [:]

    /// An assembler for one device; its frames carry `device`.
    public init(device: DeviceID) {
        frame = TouchFrame(device: device, time: .zero, touches: [])
        frame.touches.reserveCapacity(10)
    }

    /// Touches down now, by slot.
    public var touchesDown: Int { last.count }

    /// A touch event. `position` is libinput's `get_x/y_transformed(…, 1)` (calibration and rotation applied by
    /// libinput's matrix); it is ignored for up and cancel.
    public mutating func touch(_ phase: TouchPhase, slot: Int32, position: NormalizedPoint?) {
        switch phase {
        case .down, .motion:
            guard let position else { return }
            // A motion for a touch never seen down (it landed before the device was added) is not trusted.
            if phase == .motion && last[slot] == nil { return }
            let touch = Touch(id: slot, phase: phase, position: position)
            last[slot] = touch.position
            frame.touches.append(touch)
        case .up, .cancel:
            guard let previous = last.removeValue(forKey: slot) else { return }
            frame.touches.append(Touch(id: slot, phase: phase, position: previous))
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
