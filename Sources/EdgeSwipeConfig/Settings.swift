public import EdgeSwipeCore
public import EdgeSwipeTOML

/// Everything a configuration file says: the engine's configuration plus the daemon's own settings.
public struct EdgeSwipeSettings: Hashable, Sendable {
    public var engine: EngineConfiguration
    public var daemon: DaemonSettings
    public var devices: DeviceSelection
    public var access: AccessSettings
    /// What the file says that still loads but deserves a word: deprecated keys. Hosts print or log them.
    public var warnings: [ConfigWarning]

    public init(
        engine: EngineConfiguration, daemon: DaemonSettings = DaemonSettings(), devices: DeviceSelection = DeviceSelection(),
        access: AccessSettings = AccessSettings(), warnings: [ConfigWarning] = []
    ) {
        self.engine = engine
        self.daemon = daemon
        self.devices = devices
        self.access = access
        self.warnings = warnings
    }

    /// The embedded default (`config/default.toml`).
    public static var `default`: EdgeSwipeSettings {
        // The embedded text is validated by the test suite, so this cannot fail in a shipped build; should it
        // ever, falling back to the core's own default keeps the daemon usable.
        (try? ConfigParser.parse(DefaultConfiguration.toml, file: "<embedded default>"))
            ?? EdgeSwipeSettings(engine: .default)
    }
}

public struct DaemonSettings: Hashable, Sendable {
    public var tickHz: Int = 120
    /// libinput's udev seat and the logind seat whose active session `active-session` admits: a name
    /// ``seatNameProblem(_:)`` accepts.
    public var seat: String = "seat0"
    /// Clients connected at once; past it a newcomer gets `goodbye` `too-many-clients`.
    public var maxClients: Int = 1024
    /// Clients one user may have connected at once (the daemon's own user is not counted); past it that user's
    /// next gets `goodbye` `too-many-clients`.
    public var maxClientsPerUser: Int = 64
    /// Seconds a client may read nothing while messages wait before it is disconnected.
    public var stallTimeoutSeconds: Int = 30
    public init(tickHz: Int = 120, seat: String = "seat0", maxClients: Int = 1024, maxClientsPerUser: Int = 64, stallTimeoutSeconds: Int = 30) {
        self.tickHz = tickHz
        self.seat = seat
        self.maxClients = maxClients
        self.maxClientsPerUser = maxClientsPerUser
        self.stallTimeoutSeconds = stallTimeoutSeconds
    }

    /// What is wrong with `name` as a seat, or `nil`: logind's rule (`seat_name_is_valid`), `seat` and then at
    /// least one ASCII letter, digit, `-` or `_`, at most 255 bytes in all, which is what udev's `ID_SEAT` and
    /// `loginctl attach` can hold. The per-seat units pass their instance name as the seat and build the socket's
    /// and the state directory's paths from it, so a name that is not a seat (`..`, `edgeswipe`, one with `/` or
    /// dots) is refused here, before it can name a path that escapes or collides with another daemon's.
    public static func seatNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        let prefix = Array("seat".utf8)
        let allowed: (UInt8) -> Bool = { b in
            (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
                || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
        }
        guard bytes.count > prefix.count, bytes.starts(with: prefix), bytes.allSatisfy(allowed) else {
            return "is not a seat name: a seat is 'seat' followed by letters, digits, '-' or '_' (seat0, seat1, seat-kiosk)"
        }
        guard bytes.count <= maxSeatNameBytes else {
            return "is not a seat name: \(bytes.count) characters, where a seat has at most \(maxSeatNameBytes)"
        }
        return nil
    }

    /// logind's limit on a seat name's length.
    public static let maxSeatNameBytes = 255
}

/// Which devices are opened. Entries match a device's name, its event-node path, or a udev property given as
/// `NAME=value`.
public struct DeviceSelection: Hashable, Sendable {
    public var allow: [String] = []
    public var deny: [String] = []
    public var overrides: [DeviceOverride] = []
    public init(allow: [String] = [], deny: [String] = [], overrides: [DeviceOverride] = []) {
        self.allow = allow
        self.deny = deny
        self.overrides = overrides
    }

    /// Whether `pattern` names this device: its exact name, its path, or `PROPERTY=value`.
    public static func matches(_ pattern: String, name: String, path: String, properties: [String: String]) -> Bool {
        if pattern == name || pattern == path { return true }
        if let eq = pattern.firstIndex(of: "=") {
            let key = String(pattern[..<eq]), value = String(pattern[pattern.index(after: eq)...])
            return properties[key] == value
        }
        return false
    }
}

extension DeviceSelection {
    /// Whether an override has `rotation = "auto"`: the daemon then follows the accelerometer.
    public var followsAccelerometer: Bool { overrides.contains { $0.followsAccelerometer } }
}

public struct DeviceOverride: Hashable, Sendable {
    public var match: String
    public var rotation: Rotation?
    /// `rotation = "auto"`: follow the accelerometer (iio-sensor-proxy); ``rotation`` is then `nil`.
    public var followsAccelerometer: Bool
    public var calibration: CalibrationMatrix?
    /// The output (monitor) the device drives, by the compositor's name for it, instead of udev's `WL_OUTPUT`.
    public var output: String?
    public init(
        match: String, rotation: Rotation? = nil, followsAccelerometer: Bool = false,
        calibration: CalibrationMatrix? = nil, output: String? = nil
    ) {
        self.match = match
        self.rotation = rotation
        self.followsAccelerometer = followsAccelerometer
        self.calibration = calibration
        self.output = output
    }
}

/// Who an access list admits besides numeric uids and gids: the `read` and `control` keys of `[access]`.
public enum AccessKeyword: String, Hashable, Sendable, CaseIterable {
    /// The user of the session that is active on the daemon's seat now (logind), whoever that is at the moment.
    case activeSession = "active-session"
    /// The daemon's own user.
    case owner
    /// The group that owns the socket (the system service's `edgeswipe`).
    case socketGroup = "socket-group"
}

/// Who may connect to the socket and who may request transitions. Empty lists mean the defaults the daemon
/// fills in: its own uid and the socket's group.
public struct AccessSettings: Hashable, Sendable {
    public var readUIDs: [UInt32] = []
    public var readGIDs: [UInt32] = []
    public var controlUIDs: [UInt32] = []
    public var controlGIDs: [UInt32] = []
    /// `read = ["active-session", "socket-group"]`: who may read besides the listed ids.
    public var read: [AccessKeyword] = []
    /// `control = [...]`: who may control besides the listed ids.
    public var control: [AccessKeyword] = []
    public init(
        readUIDs: [UInt32] = [], readGIDs: [UInt32] = [], controlUIDs: [UInt32] = [], controlGIDs: [UInt32] = [],
        read: [AccessKeyword] = [], control: [AccessKeyword] = []
    ) {
        self.readUIDs = readUIDs
        self.readGIDs = readGIDs
        self.controlUIDs = controlUIDs
        self.controlGIDs = controlGIDs
        self.read = read
        self.control = control
    }

    /// Whether a list admits the seat's active session: the daemon then follows logind.
    public var followsActiveSession: Bool { read.contains(.activeSession) || control.contains(.activeSession) }
}
