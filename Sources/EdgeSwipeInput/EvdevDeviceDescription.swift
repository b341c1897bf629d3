public import EdgeSwipeCore

/// One absolute axis as evdev describes it (`struct input_absinfo`, without the current value).
public struct AbsInfo: Hashable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    /// The kernel's noise filter, in units.
    public var fuzz: Int32
    /// The dead zone around the centre (joysticks).
    public var flat: Int32
    /// Units per millimetre; 0 when the device does not say.
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    public var axisRange: AxisRange { AxisRange(minimum: minimum, maximum: maximum, resolution: resolution) }
}

/// `struct input_id`.
public struct InputID: Hashable, Sendable, CustomStringConvertible {
    public var bus: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16

    public init(bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0) {
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
    }

    public var description: String {
        [bus, vendor, product, version].map { EvdevNames.hex($0) }.joined(separator: ":")
    }
}

/// How a device reports its contacts.
public enum TouchProtocol: Hashable, Sendable, CustomStringConvertible {
    /// Slots with tracking ids (`ABS_MT_SLOT`): the modern protocol, and the only one libinput supports.
    case multitouchB(slots: Int)
    /// Anonymous contacts, one per `SYN_MT_REPORT`, every frame: identities must be inferred.
    case multitouchA
    /// `INPUT_PROP_SEMI_MT`: the slots carry the bounding box of the fingers, not where they are.
    case semiMultitouch
    /// One contact from `ABS_X`/`ABS_Y`, down while `BTN_TOUCH` (or `BTN_TOOL_FINGER`) is set.
    case singleTouch

    public var description: String {
        switch self {
        case .multitouchB(let slots): "MT protocol B (\(slots) slots)"
        case .multitouchA: "MT protocol A"
        case .semiMultitouch: "semi-multitouch"
        case .singleTouch: "single-touch"
        }
    }
}

/// Why a device is not read as a touch surface at all.
public enum NotTouchReason: String, Hashable, Sendable, CustomStringConvertible {
    case keyboard
    case mouse
    case pen = "pen tablet"
    case joystick
    case pointingStick = "pointing stick"
    case accelerometer
    /// Absolute axes without a contact key: an absolute pointer (a VM tablet), not a touch surface.
    case absolutePointer = "absolute pointer without BTN_TOUCH"
    case noPositionAxes = "no absolute position axes"

    public var description: String { rawValue }
}

/// What a device description says the device is.
public enum TouchClassification: Hashable, Sendable {
    case touch(DeviceKind, TouchProtocol)
    case notTouch(NotTouchReason)
}

/// Why a device cannot be read as a touch surface. Every case names the device.
public enum TouchDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    case notATouchDevice(name: String, reason: NotTouchReason)
    /// A bounding box is not finger positions: reading it as such would invent swipes.
    case semiMultitouch(name: String)
    /// An axis whose maximum is not above its minimum.
    case invalidAxis(name: String, axis: String, minimum: Int32, maximum: Int32)

    public var description: String {
        switch self {
        case .notATouchDevice(let name, let reason):
            "\"\(name)\": not a touch device (\(reason))"
        case .semiMultitouch(let name):
            "\"\(name)\": rejected: semi-multitouch (INPUT_PROP_SEMI_MT) reports a bounding box of the fingers, "
                + "not their positions"
        case .invalidAxis(let name, let axis, let minimum, let maximum):
            "\"\(name)\": rejected: \(axis) range \(minimum)..\(maximum) is empty"
        }
    }
}

/// Everything evdev says about a device: the facts an evemu `.desc`, a `libinput record` header, or libevdev
/// give, and all that classification and decoding need.
public struct EvdevDeviceDescription: Hashable, Sendable {
    public var name: String
    public var id: InputID
    /// `INPUT_PROP_*`; empty in old recordings, which are classified from their capabilities.
    public var properties: InputProperties
    /// The event types the device sends (`EV_*`).
    public var eventTypes: Set<UInt16>
    /// The `EV_KEY` codes the device has.
    public var keys: Set<UInt16>
    /// The absolute axes, by `ABS_*` code.
    public var absInfo: [UInt16: AbsInfo]
    /// udev properties, where known (`ID_INPUT_TOUCHPAD=1`, `EDGESWIPE_IGNORE=1`).
    public var udevProperties: [String: String]
    /// The kernel's physical path and unique id (`EVIOCGPHYS`, `EVIOCGUNIQ`), for live devices that report them.
    public var phys: String?
    public var uniq: String?

    /// What the device is, whatever node it has.
    public var identity: DeviceIdentity {
        DeviceIdentity(name: name, bus: id.bus, vendor: id.vendor, product: id.product, phys: phys, uniq: uniq)
    }

    public init(
        name: String, id: InputID = InputID(), properties: InputProperties = [], eventTypes: Set<UInt16> = [],
        keys: Set<UInt16> = [], absInfo: [UInt16: AbsInfo] = [:], udevProperties: [String: String] = [:]
    ) {
        self.name = name
        self.id = id
        self.properties = properties
        self.keys = keys
        self.absInfo = absInfo
        self.udevProperties = udevProperties
        var types = eventTypes
        if !keys.isEmpty { types.insert(EvdevType.key) }
        if !absInfo.isEmpty { types.insert(EvdevType.abs) }
        self.eventTypes = types
    }

    /// Whether the device has the `EV_KEY` code.
    public func hasKey(_ code: UInt16) -> Bool { keys.contains(code) }
    /// Whether the device has the `EV_ABS` axis.
    public func hasAxis(_ code: UInt16) -> Bool { absInfo[code] != nil }

    // MARK: - Classification

    /// What the device is, following the rules of udev's `input_id` builtin: the kernel's `INPUT_PROP_*` bits
    /// first, and for old devices (and old recordings) that set none, the capabilities (`BTN_TOOL_FINGER`
    /// without `INPUT_PROP_DIRECT` is a touchpad; MT positions without it are a touchscreen).
    public var classification: TouchClassification {
        let hasAbsXY = hasAxis(EvdevAbs.x) && hasAxis(EvdevAbs.y)
        let hasMTXY = hasAxis(EvdevAbs.mtPositionX) && hasAxis(EvdevAbs.mtPositionY)
        if properties.contains(.accelerometer) { return .notTouch(.accelerometer) }
        if properties.contains(.pointingStick) { return .notTouch(.pointingStick) }
        guard hasAbsXY || hasMTXY else {
            if hasKey(EvdevKey.keyA) || hasKey(EvdevKey.keyQ) || hasKey(EvdevKey.keySpace) { return .notTouch(.keyboard) }
            if eventTypes.contains(EvdevType.rel) || hasKey(EvdevKey.btnLeft) { return .notTouch(.mouse) }
            return .notTouch(.noPositionAxes)
        }
        let hasFinger = hasKey(EvdevKey.btnToolFinger)
        if (hasKey(EvdevKey.btnToolPen) || hasKey(EvdevKey.btnStylus)) && !hasFinger { return .notTouch(.pen) }
        if hasKey(EvdevKey.btnJoystick) || hasKey(EvdevKey.btnGamepad) { return .notTouch(.joystick) }

        let kind: DeviceKind
        if properties.contains(.direct) {
            kind = .touchscreen
        } else if properties.contains(.pointer) || properties.contains(.buttonPad) || hasFinger {
            kind = .touchpad
        } else if hasMTXY || hasKey(EvdevKey.btnTouch) {
            kind = .touchscreen
        } else {
            return .notTouch(.absolutePointer)
        }

        if properties.contains(.semiMultitouch) { return .touch(kind, .semiMultitouch) }
        if hasMTXY, let slot = absInfo[EvdevAbs.mtSlot] {
            let count = Int(slot.maximum) - Int(slot.minimum) + 1
            return .touch(kind, .multitouchB(slots: min(EvdevFrameDecoder.maximumSlots, max(1, count))))
        }
        if hasMTXY { return .touch(kind, .multitouchA) }
        guard hasKey(EvdevKey.btnTouch) || hasFinger else { return .notTouch(.absolutePointer) }
        return .touch(kind, .singleTouch)
    }

    /// The kind and protocol of a device EdgeSwipe can read; throws for everything else, semi-MT included.
    public func touchCapabilities() throws(TouchDeviceError) -> (kind: DeviceKind, protocol: TouchProtocol) {
        switch classification {
        case .notTouch(let reason):
            throw .notATouchDevice(name: name, reason: reason)
        case .touch(_, .semiMultitouch):
            throw .semiMultitouch(name: name)
        case .touch(let kind, let touchProtocol):
            return (kind, touchProtocol)
        }
    }

    /// The axes that carry contact positions: the MT axes for multitouch, `ABS_X`/`ABS_Y` for single-touch.
    ///
    /// An MT axis without a resolution borrows the one of the matching single-touch axis when both cover the same
    /// range, because some drivers only fill in the legacy axis.
    public func positionAxes(for touchProtocol: TouchProtocol) throws(TouchDeviceError) -> (x: AxisRange, y: AxisRange) {
        let codes: (UInt16, UInt16, String, String) =
            switch touchProtocol {
            case .singleTouch: (EvdevAbs.x, EvdevAbs.y, "ABS_X", "ABS_Y")
            case .multitouchA, .multitouchB, .semiMultitouch:
                (EvdevAbs.mtPositionX, EvdevAbs.mtPositionY, "ABS_MT_POSITION_X", "ABS_MT_POSITION_Y")
            }
        func axis(_ code: UInt16, legacy: UInt16, named axisName: String) throws(TouchDeviceError) -> AxisRange {
            guard var info = absInfo[code] ?? absInfo[legacy] else {
                throw .notATouchDevice(name: name, reason: .noPositionAxes)
            }
            guard info.maximum > info.minimum else {
                throw .invalidAxis(name: name, axis: axisName, minimum: info.minimum, maximum: info.maximum)
            }
            if info.resolution <= 0, let other = absInfo[legacy], other.resolution > 0,
                other.minimum == info.minimum, other.maximum == info.maximum
            {
                info.resolution = other.resolution
            }
            return info.axisRange
        }
        return (
            try axis(codes.0, legacy: EvdevAbs.x, named: codes.2),
            try axis(codes.1, legacy: EvdevAbs.y, named: codes.3)
        )
    }

    /// The core's view of this device: kind, position axes (negative minimums and resolution 0 as they are; the
    /// core clamps and falls back to the assumed size) and the host's mounting.
    public func touchDevice(id: DeviceID, path: String, setup: DeviceSetup = DeviceSetup()) throws(TouchDeviceError) -> TouchDevice {
        let (kind, touchProtocol) = try touchCapabilities()
        let axes = try positionAxes(for: touchProtocol)
        return TouchDevice(
            id: id, name: name, kind: kind, x: axes.x, y: axes.y, rotation: setup.rotation,
            calibration: setup.calibration, assumedSize: setup.assumedSize, reportedSize: setup.reportedSize,
            path: path, identity: identity, output: setup.output ?? udevProperties["WL_OUTPUT"],
            followsAccelerometer: setup.followsAccelerometer)
    }
}
