// The evdev constants EdgeSwipe needs, in pure Swift.
//
// They are the kernel's ABI (`linux/input-event-codes.h`, `linux/input.h`) and never change, so the decoder and
// the recording parsers can work without C headers, and the tests can build event streams from names.

/// The evdev event types (`EV_*`).
public enum EvdevType {
    public static let syn: UInt16 = 0x00
    public static let key: UInt16 = 0x01
    public static let rel: UInt16 = 0x02
    public static let abs: UInt16 = 0x03
    public static let msc: UInt16 = 0x04
    public static let sw: UInt16 = 0x05
    public static let led: UInt16 = 0x11
    public static let snd: UInt16 = 0x12
    public static let rep: UInt16 = 0x14
    public static let ff: UInt16 = 0x15
    /// One past the largest type (`EV_CNT`).
    public static let count: UInt16 = 0x20
}

/// `EV_SYN` codes.
public enum EvdevSyn {
    /// Ends a frame: everything since the previous report happened at once.
    public static let report: UInt16 = 0
    public static let config: UInt16 = 1
    /// Ends one contact of an MT protocol A frame.
    public static let mtReport: UInt16 = 2
    /// The kernel's buffer overran: events were lost, and everything up to the next `report` must be discarded.
    public static let dropped: UInt16 = 3
}

/// `EV_ABS` axis codes.
public enum EvdevAbs {
    public static let x: UInt16 = 0x00
    public static let y: UInt16 = 0x01
    public static let pressure: UInt16 = 0x18
    public static let distance: UInt16 = 0x19
    public static let toolWidth: UInt16 = 0x1c
    /// Selects the slot that the following MT events describe (protocol B).
    public static let mtSlot: UInt16 = 0x2f
    public static let mtTouchMajor: UInt16 = 0x30
    public static let mtTouchMinor: UInt16 = 0x31
    public static let mtWidthMajor: UInt16 = 0x32
    public static let mtWidthMinor: UInt16 = 0x33
    public static let mtOrientation: UInt16 = 0x34
    public static let mtPositionX: UInt16 = 0x35
    public static let mtPositionY: UInt16 = 0x36
    public static let mtToolType: UInt16 = 0x37
    public static let mtBlobID: UInt16 = 0x38
    /// A contact's identity; -1 ends the contact in the current slot (protocol B).
    public static let mtTrackingID: UInt16 = 0x39
    public static let mtPressure: UInt16 = 0x3a
    public static let mtDistance: UInt16 = 0x3b
    public static let mtToolX: UInt16 = 0x3c
    public static let mtToolY: UInt16 = 0x3d
    /// One past the largest axis (`ABS_CNT`).
    public static let count: UInt16 = 0x40
}

/// `EV_KEY` codes that classify a device.
public enum EvdevKey {
    public static let keyEscape: UInt16 = 1
    public static let keyA: UInt16 = 30
    public static let keyQ: UInt16 = 16
    public static let keyZ: UInt16 = 44
    public static let keySpace: UInt16 = 57
    public static let btnMisc: UInt16 = 0x100
    public static let btnLeft: UInt16 = 0x110
    public static let btnRight: UInt16 = 0x111
    public static let btnMiddle: UInt16 = 0x112
    public static let btnJoystick: UInt16 = 0x120
    public static let btnGamepad: UInt16 = 0x130
    public static let btnToolPen: UInt16 = 0x140
    public static let btnToolRubber: UInt16 = 0x141
    public static let btnToolFinger: UInt16 = 0x145
    public static let btnToolMouse: UInt16 = 0x146
    public static let btnToolQuintTap: UInt16 = 0x148
    public static let btnTouch: UInt16 = 0x14a
    public static let btnStylus: UInt16 = 0x14b
    public static let btnToolDoubleTap: UInt16 = 0x14d
    public static let btnToolTripleTap: UInt16 = 0x14e
    public static let btnToolQuadTap: UInt16 = 0x14f
    /// One past the largest key (`KEY_CNT`).
    public static let count: UInt16 = 0x300
}

/// `INPUT_PROP_*`: what the kernel says a device is, as a bit set.
public struct InputProperties: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The property numbered `bit` (`INPUT_PROP_*`); bits past 31 are not properties the kernel defines.
    public init?(bit: Int) {
        guard (0..<32).contains(bit) else { return nil }
        self.init(rawValue: 1 << UInt32(bit))
    }

    /// Needs a pointer on screen: a touchpad.
    public static let pointer = InputProperties(rawValue: 1 << 0)
    /// Touches land where the content is: a touchscreen.
    public static let direct = InputProperties(rawValue: 1 << 1)
    /// The whole surface is a button: a clickpad.
    public static let buttonPad = InputProperties(rawValue: 1 << 2)
    /// The slots carry a bounding box of the fingers, not their positions.
    public static let semiMultitouch = InputProperties(rawValue: 1 << 3)
    public static let topButtonPad = InputProperties(rawValue: 1 << 4)
    public static let pointingStick = InputProperties(rawValue: 1 << 5)
    public static let accelerometer = InputProperties(rawValue: 1 << 6)

    private static let names: [(InputProperties, String)] = [
        (.pointer, "INPUT_PROP_POINTER"), (.direct, "INPUT_PROP_DIRECT"), (.buttonPad, "INPUT_PROP_BUTTONPAD"),
        (.semiMultitouch, "INPUT_PROP_SEMI_MT"), (.topButtonPad, "INPUT_PROP_TOPBUTTONPAD"),
        (.pointingStick, "INPUT_PROP_POINTING_STICK"), (.accelerometer, "INPUT_PROP_ACCELEROMETER"),
    ]

    public var description: String {
        let known = Self.names.filter { contains($0.0) }.map(\.1)
        return known.isEmpty ? "none" : known.joined(separator: "|")
    }
}

/// Names for logs and error messages: `EV_ABS / ABS_MT_SLOT`, as evemu and libinput print them.
public enum EvdevNames {
    public static func type(_ type: UInt16) -> String {
        switch type {
        case EvdevType.syn: "EV_SYN"
        case EvdevType.key: "EV_KEY"
        case EvdevType.rel: "EV_REL"
        case EvdevType.abs: "EV_ABS"
        case EvdevType.msc: "EV_MSC"
        case EvdevType.sw: "EV_SW"
        case EvdevType.led: "EV_LED"
        default: "EV_\(hex(type))"
        }
    }

    public static func code(_ code: UInt16, type: UInt16) -> String {
        switch (type, code) {
        case (EvdevType.syn, EvdevSyn.report): "SYN_REPORT"
        case (EvdevType.syn, EvdevSyn.mtReport): "SYN_MT_REPORT"
        case (EvdevType.syn, EvdevSyn.dropped): "SYN_DROPPED"
        case (EvdevType.abs, EvdevAbs.x): "ABS_X"
        case (EvdevType.abs, EvdevAbs.y): "ABS_Y"
        case (EvdevType.abs, EvdevAbs.mtSlot): "ABS_MT_SLOT"
        case (EvdevType.abs, EvdevAbs.mtPositionX): "ABS_MT_POSITION_X"
        case (EvdevType.abs, EvdevAbs.mtPositionY): "ABS_MT_POSITION_Y"
        case (EvdevType.abs, EvdevAbs.mtTrackingID): "ABS_MT_TRACKING_ID"
        case (EvdevType.key, EvdevKey.btnTouch): "BTN_TOUCH"
        case (EvdevType.key, EvdevKey.btnToolFinger): "BTN_TOOL_FINGER"
        case (EvdevType.key, EvdevKey.btnToolPen): "BTN_TOOL_PEN"
        default: "\(Self.type(type)) code \(hex(code))"
        }
    }

    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 2 - digits.count)) + digits
    }
}
