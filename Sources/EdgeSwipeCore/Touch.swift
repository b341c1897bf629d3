/// What happened to one touch in a frame. libinput's names: down, motion, up, cancel.
public enum TouchPhase: String, Hashable, Sendable, Codable {
    case down, motion, up, cancel
}

/// A raw position in device units, as evdev reported it.
public struct RawPoint: Hashable, Sendable, Codable {
    public var x: Int32
    public var y: Int32
    public init(x: Int32, y: Int32) { self.x = x; self.y = y }
}

/// One touch's change within a frame.
public struct Touch: Hashable, Sendable {
    /// The slot (MT protocol B) or libinput seat slot: unique among the touches down at once.
    public var id: Int32
    public var phase: TouchPhase
    /// The user-oriented position, clamped to 0...1.
    public var position: NormalizedPoint
    /// The position in device units, when it came from evdev.
    public var raw: RawPoint?
    /// The position in millimetres from the top-left corner, when the device size is known.
    public var positionMM: MillimeterVector?

    public init(id: Int32, phase: TouchPhase, position: NormalizedPoint, raw: RawPoint? = nil, positionMM: MillimeterVector? = nil) {
        self.id = id
        self.phase = phase
        self.position = position.clamped
        self.raw = raw
        self.positionMM = positionMM
    }

    /// A touch from raw device units, converted through the device's geometry.
    public init(id: Int32, phase: TouchPhase, raw: RawPoint, on device: TouchDevice) {
        let position = device.normalize(rawX: raw.x, rawY: raw.y)
        self.init(
            id: id, phase: phase, position: position, raw: raw,
            positionMM: device.hasPhysicalSize ? device.millimeters(position) : nil
        )
    }
}

/// The touches that changed together (one `SYN_REPORT`, or one libinput frame) at one instant.
public struct TouchFrame: Hashable, Sendable {
    public var device: DeviceID
    public var time: MonotonicInstant
    public var touches: [Touch]
    public init(device: DeviceID, time: MonotonicInstant, touches: [Touch]) {
        self.device = device
        self.time = time
        self.touches = touches
    }
}
