public import EdgeSwipeCore

/// One input event as the kernel delivers it (`struct input_event`), with its timestamp in microseconds.
public struct EvdevEvent: Hashable, Sendable {
    public var time: MonotonicInstant
    /// `EV_*` (see ``EvdevType``).
    public var type: UInt16
    /// The code within the type (`ABS_MT_SLOT`, `BTN_TOUCH`...).
    public var code: UInt16
    /// The new value: a coordinate, a slot, a tracking id, 1/0 for a key.
    public var value: Int32

    public init(time: MonotonicInstant, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    /// `EV_SYN / SYN_REPORT`: the end of a frame.
    public static func report(at time: MonotonicInstant) -> EvdevEvent {
        EvdevEvent(time: time, type: EvdevType.syn, code: EvdevSyn.report, value: 0)
    }

    /// An `EV_ABS` event.
    public static func abs(_ code: UInt16, _ value: Int32, at time: MonotonicInstant) -> EvdevEvent {
        EvdevEvent(time: time, type: EvdevType.abs, code: code, value: value)
    }

    /// An `EV_KEY` event.
    public static func key(_ code: UInt16, _ value: Int32, at time: MonotonicInstant) -> EvdevEvent {
        EvdevEvent(time: time, type: EvdevType.key, code: code, value: value)
    }
}
