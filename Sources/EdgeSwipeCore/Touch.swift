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

    public init(id: Int32, phase: TouchPhase, position: NormalizedPoint) {
        self.id = id
        self.phase = phase
        self.position = position.clamped
    }

    /// A touch from raw device units, converted through the device's geometry.
    public init(id: Int32, phase: TouchPhase, raw: RawPoint, on device: TouchDevice) {
        self.init(id: id, phase: phase, position: device.normalize(rawX: raw.x, rawY: raw.y))
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
