public import EdgeSwipeCore
public import EdgeSwipeInput

/// Evdev events as data: each frame is a list of events, closed by a `SYN_REPORT` 10 ms after the previous one.
public enum Ev: Sendable {
    case slot(Int32)
    case id(Int32)
    case x(Int32)
    case y(Int32)
    case absX(Int32)
    case absY(Int32)
    case key(UInt16, Int32)
    case mtReport
    case dropped
    case other(UInt16, UInt16, Int32)

    public func event(at time: MonotonicInstant) -> EvdevEvent {
        switch self {
        case .slot(let v): .abs(EvdevAbs.mtSlot, v, at: time)
        case .id(let v): .abs(EvdevAbs.mtTrackingID, v, at: time)
        case .x(let v): .abs(EvdevAbs.mtPositionX, v, at: time)
        case .y(let v): .abs(EvdevAbs.mtPositionY, v, at: time)
        case .absX(let v): .abs(EvdevAbs.x, v, at: time)
        case .absY(let v): .abs(EvdevAbs.y, v, at: time)
        case .key(let code, let v): .key(code, v, at: time)
        case .mtReport: EvdevEvent(time: time, type: EvdevType.syn, code: EvdevSyn.mtReport, value: 0)
        case .dropped: EvdevEvent(time: time, type: EvdevType.syn, code: EvdevSyn.dropped, value: 0)
        case .other(let type, let code, let v): EvdevEvent(time: time, type: type, code: code, value: v)
        }
    }
}

/// Frames of events, each closed by a `SYN_REPORT`, 10 ms apart from t = 10 ms.
public func events(_ frames: [[Ev]], intervalMS: UInt64 = 10) -> [EvdevEvent] {
    var result: [EvdevEvent] = []
    for (i, frame) in frames.enumerated() {
        let t = MonotonicInstant(microseconds: UInt64(i + 1) * intervalMS * 1000)
        for e in frame { result.append(e.event(at: t)) }
        result.append(.report(at: t))
    }
    return result
}

/// A readable line per decoder output: `down 0 @100,200`, `motion 1 @5,6`, `up 0 @5,6`, `lost`. Positions are
/// given back in the device's units (the test devices are mounted upright and uncalibrated, so a position is the
/// raw value's fraction of its axis; values past the axis show clamped).
public func describe(_ output: EvdevFrameDecoder.Output, on device: TouchDevice) -> [String] {
    switch output {
    case .eventsLost: return ["lost"]
    case .frame(let frame):
        return frame.touches.map { t in
            let raw = device.raw(t.position)
            return "\(t.phase.rawValue) \(t.id) @\(raw.x),\(raw.y)"
        }
    }
}

extension TouchDevice {
    /// The device units of a position on an upright, uncalibrated device.
    public func raw(_ p: NormalizedPoint) -> RawPoint {
        RawPoint(
            x: Int32((Double(x.minimum) + p.x * x.span).rounded()), y: Int32((Double(y.minimum) + p.y * y.span).rounded()))
    }
}

/// Feeds every event and returns the readable lines of all outputs, in order.
public func decode(_ events: [EvdevEvent], with decoder: inout EvdevFrameDecoder) -> [String] {
    var lines: [String] = []
    for e in events {
        if let output = decoder.feed(e) { lines += describe(output, on: decoder.device) }
    }
    return lines
}

/// Small devices modelled on real ones (`devices/libinput-test-devices.json`, evemu-devices descs).
public enum TestDevices {
    /// A touchscreen with 0..1000 on both axes and no resolution: raw values read as per-mille.
    public static func screen(id: UInt32 = 1, slots: Int = 10) -> TouchDevice {
        TouchDevice(
            id: DeviceID(id), name: "test screen", kind: .touchscreen,
            x: AxisRange(minimum: 0, maximum: 1000), y: AxisRange(minimum: 0, maximum: 1000))
    }

    public static func decoder(_ touchProtocol: TouchProtocol, device: TouchDevice = screen(), hasTouchKey: Bool = true) -> EvdevFrameDecoder {
        do {
            return try EvdevFrameDecoder(protocol: touchProtocol, device: device, hasTouchKey: hasTouchKey)
        } catch {
            fatalError("test decoder: \(error)")
        }
    }

    /// The ELAN touchscreen of `devices/evemu-devices/ELAN Touchscreen.desc`: DIRECT, MT-B with 10 slots,
    /// 0..3312 x 0..1872 at 10 units/mm.
    public static let elanTouchscreen = EvdevDeviceDescription(
        name: "ELAN Touchscreen", id: InputID(bus: 3, vendor: 0x04f3, product: 0x010c, version: 0x0110),
        properties: .direct, keys: [EvdevKey.btnTouch],
        absInfo: [
            EvdevAbs.x: AbsInfo(minimum: 0, maximum: 3312, resolution: 10),
            EvdevAbs.y: AbsInfo(minimum: 0, maximum: 1872, resolution: 10),
            EvdevAbs.mtSlot: AbsInfo(minimum: 0, maximum: 9),
            EvdevAbs.mtPositionX: AbsInfo(minimum: 0, maximum: 3312, resolution: 10),
            EvdevAbs.mtPositionY: AbsInfo(minimum: 0, maximum: 1872, resolution: 10),
            EvdevAbs.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
        ])

    /// The Apple bcm5974 of `bcm5974.three-finger-click.events`: BUTTONPAD, MT protocol A, negative minimums.
    public static let bcm5974 = EvdevDeviceDescription(
        name: "bcm5974", id: InputID(bus: 3, vendor: 0x05ac, product: 0x0249, version: 1),
        properties: .buttonPad,
        keys: [EvdevKey.btnLeft, EvdevKey.btnToolFinger, EvdevKey.btnTouch, EvdevKey.btnToolDoubleTap, EvdevKey.btnToolTripleTap],
        absInfo: [
            EvdevAbs.x: AbsInfo(minimum: 0, maximum: 1280, fuzz: 5),
            EvdevAbs.y: AbsInfo(minimum: 0, maximum: 800, fuzz: 3),
            EvdevAbs.mtPositionX: AbsInfo(minimum: -4620, maximum: 5140),
            EvdevAbs.mtPositionY: AbsInfo(minimum: -150, maximum: 6600),
        ])

    /// The Cypress trackpad of `CyPS2 Cypress Trackpad.three_finger_press.events`: BUTTONPAD | SEMI_MT.
    public static let cypress = EvdevDeviceDescription(
        name: "CyPS/2 Cypress Trackpad", properties: [.buttonPad, .semiMultitouch],
        keys: [EvdevKey.btnLeft, EvdevKey.btnToolFinger, EvdevKey.btnTouch, EvdevKey.btnToolTripleTap],
        absInfo: [
            EvdevAbs.x: AbsInfo(minimum: 0, maximum: 1600, resolution: 16),
            EvdevAbs.y: AbsInfo(minimum: 0, maximum: 900, resolution: 15),
            EvdevAbs.mtSlot: AbsInfo(minimum: 0, maximum: 1),
            EvdevAbs.mtPositionX: AbsInfo(minimum: 0, maximum: 1600, resolution: 16),
            EvdevAbs.mtPositionY: AbsInfo(minimum: 0, maximum: 900, resolution: 15),
            EvdevAbs.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
        ])
}
