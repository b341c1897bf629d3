/// One absolute axis as evdev describes it (`struct input_absinfo`).
public struct AxisRange: Hashable, Sendable, Codable {
    public var minimum: Int32
    public var maximum: Int32
    /// Device units per millimetre; 0 when the device does not say (common on old touchscreens).
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.resolution = max(0, resolution)
    }

    /// Units from minimum to maximum; never below 1, so that a degenerate axis cannot divide by zero.
    public var span: Double { max(1, Double(Int64(maximum) - Int64(minimum))) }

    /// The physical length of the axis, when the resolution is known.
    public var length: Millimeters? { resolution > 0 ? Millimeters(span / Double(resolution)) : nil }

    /// A raw value as a fraction of the axis; out-of-range values are clamped, never trusted.
    @inlinable public func fraction(of raw: Int32) -> Double {
        NormalizedPoint.clampUnit((Double(raw) - Double(minimum)) / span)
    }
}

/// A 3x2 affine matrix over normalized coordinates, as `libinput_device_config_calibration_set_matrix` takes
/// it: `x' = a*x + b*y + c`, `y' = d*x + e*y + f`.
public struct CalibrationMatrix: Hashable, Sendable, Codable {
    public var a, b, c, d, e, f: Double
    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }
    public init?(values: [Double]) {
        guard values.count == 6, values.allSatisfy(\.isFinite) else { return nil }
        self.init(values[0], values[1], values[2], values[3], values[4], values[5])
    }
    public static let identity = CalibrationMatrix(1, 0, 0, 0, 1, 0)
    public var values: [Double] { [a, b, c, d, e, f] }

    @inlinable public func apply(_ p: NormalizedPoint) -> NormalizedPoint {
        NormalizedPoint(x: a * p.x + b * p.y + c, y: d * p.x + e * p.y + f)
    }

    /// This matrix followed by a rotation, as one matrix (what libinput is given for touchscreens).
    public func followed(by rotation: Rotation) -> CalibrationMatrix {
        switch rotation {
        case .degrees0: return self
        case .degrees90: return CalibrationMatrix(-d, -e, 1 - f, a, b, c)
        case .degrees180: return CalibrationMatrix(-a, -b, 1 - c, -d, -e, 1 - f)
        case .degrees270: return CalibrationMatrix(d, e, f, -a, -b, 1 - c)
        }
    }
}

/// What a device is, whatever node it has now: its name, its bus, vendor and product ids, and where it is plugged
/// in (`phys`) and its serial (`uniq`) when the kernel reports them.
///
/// Event nodes are handed out in the order devices appear, so a touch controller that re-enumerates on resume,
/// or a screen plugged into another port, can come back as another `/dev/input/eventN`; a device id lasts only
/// while the device is there. The identity is how a device that comes back is recognized: its runtime rotation
/// follows it, and the state file remembers it by this. Two identical devices on the same port are one identity.
public struct DeviceIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    public var name: String
    public var bus: UInt16
    public var vendor: UInt16
    public var product: UInt16
    /// The kernel's physical path (`usb-0000:00:14.0-8/input0`), when known.
    public var phys: String?
    /// The kernel's unique id (a serial number), when the device has one.
    public var uniq: String?

    public init(name: String, bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, phys: String? = nil, uniq: String? = nil) {
        self.name = StateLimits.truncatedName(name)
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.phys = phys.flatMap { $0.isEmpty ? nil : StateLimits.truncatedName($0) }
        self.uniq = uniq.flatMap { $0.isEmpty ? nil : StateLimits.truncatedName($0) }
    }

    /// `"Wacom ISDv4 E6 Finger" 0003:056a:00e6 usb-…/input0`, for logs.
    public var description: String {
        func hex(_ v: UInt16) -> String { String(v, radix: 16).leftPadded(to: 4) }
        var s = "\"\(name)\" \(hex(bus)):\(hex(vendor)):\(hex(product))"
        if let phys { s += " \(phys)" }
        if let uniq { s += " uniq \(uniq)" }
        return s
    }
}

/// Everything the engine needs to know about a touch surface.
public struct TouchDevice: Hashable, Sendable, Codable {
    public var id: DeviceID
    public var name: String
    public var kind: DeviceKind
    public var x: AxisRange
    public var y: AxisRange
    public var rotation: Rotation
    /// Applied before the rotation; `nil` is the identity.
    public var calibration: CalibrationMatrix?
    /// The size (in device orientation) used when the axes give no resolution.
    public var assumedSize: MillimeterSize
    /// The size reported by the host when it knows better than absinfo (libinput's `get_size`).
    public var reportedSize: MillimeterSize?
    /// Where the device was found: an event node, a recording path, or a synthetic name.
    public var path: String
    /// What the device is, whatever its node (a device that comes back is recognized by it).
    public var identity: DeviceIdentity
    /// The output (monitor) a touchscreen drives, by the compositor's name for it (udev's `WL_OUTPUT`, or the
    /// configuration's), when known.
    public var output: String?
    /// The rotation follows the accelerometer (`rotation = "auto"`): ``rotation`` is its latest reading.
    public var followsAccelerometer: Bool

    public init(
        id: DeviceID, name: String, kind: DeviceKind, x: AxisRange, y: AxisRange,
        rotation: Rotation = .degrees0, calibration: CalibrationMatrix? = nil,
        assumedSize: MillimeterSize? = nil, reportedSize: MillimeterSize? = nil, path: String = "",
        identity: DeviceIdentity? = nil, output: String? = nil, followsAccelerometer: Bool = false
    ) {
        self.id = id
        // Names come from drivers and recordings; each device's name goes into every hello.
        self.name = StateLimits.truncatedName(name)
        self.kind = kind
        self.x = x
        self.y = y
        self.rotation = rotation
        self.calibration = calibration
        self.assumedSize = assumedSize ?? TouchDevice.defaultAssumedSize(for: kind)
        self.reportedSize = reportedSize
        self.path = path
        self.identity = identity ?? DeviceIdentity(name: name)
        self.output = output.flatMap { $0.isEmpty ? nil : StateLimits.truncatedName($0) }
        self.followsAccelerometer = followsAccelerometer
    }

    /// A 10" tablet for screens and a laptop pad for touchpads: only used when a device hides its size.
    public static func defaultAssumedSize(for kind: DeviceKind) -> MillimeterSize {
        switch kind {
        case .touchscreen: return MillimeterSize(widthMM: 220, heightMM: 140)
        case .touchpad: return MillimeterSize(widthMM: 100, heightMM: 60)
        }
    }

    /// Whether the device's physical size is known rather than assumed.
    public var hasPhysicalSize: Bool { usableReportedSize != nil || (x.length != nil && y.length != nil) }

    /// The physical size in device orientation, real where known and assumed otherwise. A size that is not a
    /// positive finite number (a host's bad report, or a zero-width axis) is never used: zones, hysteresis and
    /// percent would divide by it.
    public var deviceSize: MillimeterSize {
        if let reportedSize = usableReportedSize { return reportedSize }
        if let w = x.length, let h = y.length { return MillimeterSize(width: w, height: h) }
        return assumedSize.isUsable ? assumedSize : TouchDevice.defaultAssumedSize(for: kind)
    }

    private var usableReportedSize: MillimeterSize? { reportedSize.flatMap { $0.isUsable ? $0 : nil } }

    /// The size as the user sees it, after the rotation.
    public var size: MillimeterSize { rotation.swapsAxes ? deviceSize.transposed : deviceSize }

    /// Raw device units to the user's normalized coordinates: clamp, calibrate, rotate, clamp again.
    @inlinable public func normalize(rawX: Int32, rawY: Int32) -> NormalizedPoint {
        normalize(NormalizedPoint(x: x.fraction(of: rawX), y: y.fraction(of: rawY)))
    }

    /// Device-orientation fractions to the user's normalized coordinates.
    @inlinable public func normalize(_ deviceFraction: NormalizedPoint) -> NormalizedPoint {
        var p = deviceFraction.clamped
        if let calibration { p = calibration.apply(p) }
        return rotation.apply(p).clamped
    }
}

/// How a touch device is mounted and sized: what the host knows that the kernel does not.
public struct DeviceSetup: Hashable, Sendable {
    /// How the device is mounted, clockwise.
    public var rotation: Rotation
    /// Applied before the rotation; `nil` is the identity.
    public var calibration: CalibrationMatrix?
    /// Used when the axes have no resolution; `nil` uses the core's default for the kind.
    public var assumedSize: MillimeterSize?
    /// A size the host knows better than absinfo (libinput's `get_size`, udev's `ID_INPUT_WIDTH_MM`).
    public var reportedSize: MillimeterSize?
    /// The output the device drives, named by hand (the configuration's `output`); udev's `WL_OUTPUT` otherwise.
    public var output: String?
    /// Follow the accelerometer rather than a fixed ``rotation`` (the configuration's `rotation = "auto"`).
    public var followsAccelerometer: Bool

    public init(
        rotation: Rotation = .degrees0, calibration: CalibrationMatrix? = nil, assumedSize: MillimeterSize? = nil,
        reportedSize: MillimeterSize? = nil, output: String? = nil, followsAccelerometer: Bool = false
    ) {
        self.rotation = rotation
        self.calibration = calibration
        self.assumedSize = assumedSize
        self.reportedSize = reportedSize
        self.output = output
        self.followsAccelerometer = followsAccelerometer
    }
}

/// How the host says how each device is mounted: asked with the device's kernel name and udev properties (empty
/// for most recordings) and the kind it was classified as, when the input layer opens the device or a recording
/// names it. The configuration's `[[devices.override]]` tables are one such answer.
public typealias DeviceSetupProvider =
    @Sendable (_ name: String, _ udevProperties: [String: String], _ kind: DeviceKind) -> DeviceSetup
