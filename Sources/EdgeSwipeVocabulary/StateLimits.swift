/// The bounds on the containers' state, defined once.
///
/// State enters the daemon in three places: the configuration (the initial state), requests (push, present, ...)
/// and the saved state file at start-up. All three are checked against these numbers, and the state file and the
/// `hello` are sized from them, so that the daemon restores whatever it saved and every `hello` fits in what
/// clients are told to accept (1 MiB). A request or a configuration that would pass a limit gets an error that
/// names it; nothing is cut silently.
public enum StateLimits {
    /// Bytes of UTF-8 in a name: a scene, a tab, a child or a container.
    public static let maxNameBytes = 256
    /// Scenes on a navigation stack, its root included.
    public static let maxStackDepth = 256
    /// Scenes presented at once in one modal container.
    public static let maxPresented = 64
    /// Tabs of a tabs container, children of a custom container.
    public static let maxChoices = 256
    /// Containers in a configuration.
    public static let maxContainers = 64
    /// Bindings in a configuration.
    public static let maxBindings = 256
    /// Devices whose runtime rotation (`set-rotation`) the state remembers: more than any machine has touch
    /// devices, few enough to keep the state file small. The one set longest ago is forgotten first.
    public static let maxRememberedRotations = 64
    /// The whole state, measured by the core's `StateLimits.size(of:)`: every name's bytes and a fixed allowance
    /// for what surrounds it. At most twice this (JSON escapes a `"` or a `\` as two bytes; names hold no control
    /// characters), plus a few hundred bytes, is the size of the state in a `hello`, a `status` reply or the state
    /// file.
    public static let maxStateBytes = 256 * 1024
    /// The largest state file the daemon reads: room for the largest state it can write (at most
    /// `2 * maxStateBytes` and a header), and for nothing that is not a state file.
    public static let maxStateFileBytes = 1 << 20

    /// Why `name` cannot name a scene, tab, child or container, or `nil`: names are non-empty printable text of at
    /// most ``maxNameBytes`` bytes of UTF-8.
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        let bytes = name.utf8.count
        if bytes > maxNameBytes { return "is \(bytes) bytes long; a name holds at most \(maxNameBytes) bytes" }
        if let c = name.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "contains the control character U+\(String(c.value, radix: 16, uppercase: true).leftPadded(to: 4)); a name is printable text"
        }
        return nil
    }

    /// `name` cut to at most ``maxNameBytes`` bytes at a character boundary: for names the daemon does not
    /// choose and must still report, such as a device's.
    public static func truncatedName(_ name: String) -> String {
        guard name.utf8.count > maxNameBytes else { return name }
        var out = ""
        var bytes = 0
        for c in name {
            bytes += c.utf8.count
            guard bytes <= maxNameBytes else { break }
            out.append(c)
        }
        return out
    }
}

extension NormalizedRect {
    /// Origins lie within this many container sizes of the container, on either side.
    public static let maxOriginMagnitude = 10.0
    /// Widths and heights lie in this range: a frame smaller than a thousandth of its container is nothing a user
    /// sees (and rounds towards zero on the wire, which writes six decimals), one larger than ten containers
    /// nothing a container shows.
    public static let sizeRange = 0.001...10.0

    /// Why this cannot be a presented scene's frame, or `nil`: every number finite, the origin within
    /// ``maxOriginMagnitude`` and the size within ``sizeRange``.
    public var validationProblem: String? {
        for (name, v) in [("x", x), ("y", y), ("width", width), ("height", height)] where !v.isFinite {
            return "\(name) must be a finite number (got \(v))"
        }
        for (name, v) in [("x", x), ("y", y)] where abs(v) > Self.maxOriginMagnitude {
            return "\(name) must be between -\(Int(Self.maxOriginMagnitude)) and \(Int(Self.maxOriginMagnitude)) (got \(v))"
        }
        for (name, v) in [("width", width), ("height", height)] where !Self.sizeRange.contains(v) {
            return "\(name) must be between \(Self.sizeRange.lowerBound) and \(Int(Self.sizeRange.upperBound)) (got \(v))"
        }
        return nil
    }
}

extension String {
    /// Zero-padded on the left to `width` characters: hex codes in messages (`U+0003`), TOML dates and times.
    public func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
