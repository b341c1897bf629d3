public import EdgeSwipeCore

/// What is known about an input device before it is opened: its name, its event node and udev's properties.
public struct DeviceCandidate: Hashable, Sendable {
    /// The kernel's name of the device (`EVIOCGNAME`).
    public var name: String
    /// The event node, `/dev/input/eventN`.
    public var path: String
    /// udev properties (`ID_INPUT_TOUCHSCREEN=1`, `DEVLINKS=...`, `EDGESWIPE_IGNORE=1`).
    public var properties: [String: String]

    public init(name: String, path: String, properties: [String: String]) {
        self.name = name
        self.path = path
        self.properties = properties
    }

    /// The touch surface udev's input_id builtin says this is (`ID_INPUT_TOUCHSCREEN`, `ID_INPUT_TOUCHPAD`), if any.
    public var touchKind: DeviceKind? {
        if properties["ID_INPUT_TOUCHSCREEN"] == "1" { return .touchscreen }
        if properties["ID_INPUT_TOUCHPAD"] == "1" { return .touchpad }
        return nil
    }

    /// The node and its udev symlinks (`/dev/input/by-id/...`), any of which a path rule may name.
    public var paths: [String] {
        [path] + (properties["DEVLINKS"]?.split(separator: " ").map(String.init) ?? [])
    }
}

/// Which devices EdgeSwipe opens. Keyboards, mice, pens and joysticks are never opened, whatever the lists say;
/// a device tagged `EDGESWIPE_IGNORE=1` in udev never is either. Of the touchscreens and touchpads, a device
/// matching a deny rule is left alone, and when the allow list is not empty only the devices it matches are
/// opened.
public struct DeviceFilter: Hashable, Sendable {
    /// One way of naming devices. Names and paths may use `*` and `?` wildcards.
    public enum Rule: Hashable, Sendable, CustomStringConvertible {
        case name(String)
        case path(String)
        /// A udev property, with a value, or set to anything when the value is `nil`.
        case property(String, value: String?)

        /// `name:PATTERN`, `path:PATTERN` or `property:KEY[=VALUE]`.
        public init(parsing text: String) throws(DeviceFilterError) {
            guard let colon = text.firstIndex(of: ":") else { throw .badRule(text) }
            let kind = text[..<colon]
            let rest = String(text[text.index(after: colon)...])
            guard !rest.isEmpty else { throw .badRule(text) }
            switch kind {
            case "name": self = .name(rest)
            case "path": self = .path(rest)
            case "property":
                let parts = rest.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = parts.first, !key.isEmpty else { throw .badRule(text) }
                self = .property(String(key), value: parts.count > 1 ? String(parts[1]) : nil)
            default: throw .badRule(text)
            }
        }

        /// Whether the rule names this device (by its name, its node or a udev symlink, or a property).
        public func matches(_ candidate: DeviceCandidate) -> Bool {
            switch self {
            case .name(let pattern): Glob.matches(pattern, candidate.name)
            case .path(let pattern): candidate.paths.contains { Glob.matches(pattern, $0) }
            case .property(let key, let value): value.map { candidate.properties[key] == $0 } ?? (candidate.properties[key] != nil)
            }
        }

        public var description: String {
            switch self {
            case .name(let pattern): "name:\(pattern)"
            case .path(let pattern): "path:\(pattern)"
            case .property(let key, let value): "property:\(key)" + (value.map { "=\($0)" } ?? "")
            }
        }
    }

    /// Open the device as this kind, or leave it alone for this reason.
    public enum Decision: Hashable, Sendable {
        case accept(DeviceKind)
        case reject(String)
    }

    /// The udev property that keeps EdgeSwipe away from a device.
    public static let ignoreProperty = "EDGESWIPE_IGNORE"

    /// When not empty, only the devices that match one of these rules.
    public var allow: [Rule]
    /// Devices never opened.
    public var deny: [Rule]

    public init(allow: [Rule] = [], deny: [Rule] = []) {
        self.allow = allow
        self.deny = deny
    }

    /// The configuration's `allow` and `deny` lists, each entry `name:PATTERN`, `path:PATTERN` or
    /// `property:KEY[=VALUE]`.
    public init(parsingAllow allow: [String], deny: [String]) throws(DeviceFilterError) {
        var allowRules: [Rule] = []
        var denyRules: [Rule] = []
        for a in allow { allowRules.append(try Rule(parsing: a)) }
        for d in deny { denyRules.append(try Rule(parsing: d)) }
        self.init(allow: allowRules, deny: denyRules)
    }

    /// Whether to open the device, as which kind, or why not.
    public func decide(_ candidate: DeviceCandidate) -> Decision {
        let p = candidate.properties
        if p[Self.ignoreProperty] == "1" { return .reject("\(Self.ignoreProperty)=1") }
        // udev's input_id builtin decides what a device is; anything that types or points is never opened.
        if p["ID_INPUT_KEYBOARD"] == "1" { return .reject("a keyboard") }
        if p["ID_INPUT_MOUSE"] == "1" { return .reject("a mouse") }
        if p["ID_INPUT_POINTINGSTICK"] == "1" { return .reject("a pointing stick") }
        if p["ID_INPUT_JOYSTICK"] == "1" { return .reject("a joystick") }
        // libwacom tags a tablet's finger device ID_INPUT_TABLET and ID_INPUT_TOUCHPAD (or TOUCHSCREEN): that one is
        // a touch surface; only a tablet with neither is a pen.
        if p["ID_INPUT_TABLET"] == "1" && p["ID_INPUT_TOUCHSCREEN"] != "1" && p["ID_INPUT_TOUCHPAD"] != "1" {
            return .reject("a pen tablet")
        }
        guard let kind = candidate.touchKind else { return .reject("not a touchscreen or touchpad") }
        if let rule = deny.first(where: { $0.matches(candidate) }) { return .reject("denied by \(rule)") }
        if !allow.isEmpty && !allow.contains(where: { $0.matches(candidate) }) { return .reject("not in the allow list") }
        return .accept(kind)
    }
}

/// A device rule from the configuration that cannot be read.
public enum DeviceFilterError: Error, Hashable, Sendable, CustomStringConvertible {
    case badRule(String)

    public var description: String {
        switch self {
        case .badRule(let text): "device rule '\(text)' must be name:PATTERN, path:PATTERN or property:KEY[=VALUE]"
        }
    }
}

/// Shell-style wildcards: `*` any run of characters, `?` one character, everything else itself.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern)
        let t = Array(text)
        var (pi, ti) = (0, 0)
        var star: (p: Int, t: Int)? = nil
        while ti < t.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) {
                pi += 1
                ti += 1
            } else if pi < p.count && p[pi] == "*" {
                star = (pi, ti)
                pi += 1
            } else if let s = star {
                // Let the last star swallow one more character and try again.
                pi = s.p + 1
                ti = s.t + 1
                star = (s.p, s.t + 1)
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
