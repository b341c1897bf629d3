// The devices, as the engine and the wire both name them: a device's id and kind, the rotations it may be
// mounted or turned at, the `set-rotation` request's setting and target, and what became of a device.

/// Identifies a device for the lifetime of the engine. Hosts assign them; the engine never reuses them.
public struct DeviceID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "device \(rawValue)" }
}

/// The two kinds of surface EdgeSwipe reads. Their zones, reference lengths and decision tuning differ.
public enum DeviceKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// A direct-touch screen (`INPUT_PROP_DIRECT`): the finger is where the content is.
    case touchscreen
    /// An indirect surface (`INPUT_PROP_POINTER` or a button pad): read through libevdev.
    case touchpad
}

/// How a device is mounted relative to the user, clockwise in degrees.
public enum Rotation: Int, Hashable, Sendable, Codable, CaseIterable {
    case degrees0 = 0, degrees90 = 90, degrees180 = 180, degrees270 = 270

    /// Maps a displacement in device orientation to the user's orientation (as ``apply(_:)-(NormalizedPoint)``
    /// moves the points at its ends; millimetres are the same on both axes).
    @inlinable public func apply(_ v: MillimeterVector) -> MillimeterVector {
        switch self {
        case .degrees0: return v
        case .degrees90: return MillimeterVector(x: -v.y, y: v.x)
        case .degrees180: return MillimeterVector(x: -v.x, y: -v.y)
        case .degrees270: return MillimeterVector(x: v.y, y: -v.x)
        }
    }

    /// Maps a point in device orientation to the user's orientation.
    @inlinable public func apply(_ p: NormalizedPoint) -> NormalizedPoint {
        switch self {
        case .degrees0: return p
        case .degrees90: return NormalizedPoint(x: 1 - p.y, y: p.x)
        case .degrees180: return NormalizedPoint(x: 1 - p.x, y: 1 - p.y)
        case .degrees270: return NormalizedPoint(x: p.y, y: 1 - p.x)
        }
    }

    public var swapsAxes: Bool { self == .degrees90 || self == .degrees270 }
}

/// A rotation asked for while the daemon runs (a shell's `set-rotation`).
public enum RotationSetting: Hashable, Sendable, CustomStringConvertible {
    /// This rotation, until the next request.
    case fixed(Rotation)
    /// What the configuration says: the accelerometer's reading for a device with `rotation = "auto"`, the
    /// configured rotation for the others.
    case automatic

    public var description: String {
        switch self {
        case .fixed(let r): "\(r.rawValue)"
        case .automatic: "auto"
        }
    }
}

/// Which devices a `set-rotation` names.
public enum RotationTarget: Hashable, Sendable, CustomStringConvertible {
    /// Every touchscreen present now.
    case allTouchscreens
    case device(DeviceID)
    /// The touchscreens that drive this output (`WL_OUTPUT`, or the configuration's `output`).
    case output(String)

    public var description: String {
        switch self {
        case .allTouchscreens: "every touchscreen"
        case .device(let id): "device \(id.rawValue)"
        case .output(let name): "the touchscreens of output \"\(name)\""
        }
    }
}

extension Rotation {
    /// The rotation that, applied after `other`, gives this one (both clockwise).
    public func relative(to other: Rotation) -> Rotation {
        Rotation(rawValue: (rawValue - other.rawValue + 360) % 360) ?? .degrees0
    }
}

/// What became of a device (a `device` message's `change`).
public enum DeviceChange: String, Hashable, Sendable, Codable, CaseIterable {
    case added, changed, removed
}
