public import EdgeSwipeTOML

/// The `[overlay]` table of `session.toml`: the feedback drawn under the finger (``Overlay``).
///
/// ```toml
/// [overlay]
/// enabled = true       # where the compositor offers zwlr_layer_shell_v1
/// output = "auto"      # "auto": the output the touch device drives, else every output; "all"; or an output's name
/// accent = "#0a84ff"   # the colour of an indicator whose release would finish
/// ```
public struct OverlaySettings: Hashable, Sendable {
    /// Which outputs the overlay draws on.
    public enum Outputs: Hashable, Sendable, CustomStringConvertible {
        /// The output the gesture's device drives (device info's `output`), else every output.
        case auto
        /// Every output.
        case all
        /// This output only (its `wl_output` name: `eDP-1`, `HEADLESS-1`).
        case named(String)

        public var description: String {
            switch self {
            case .auto: "on the output the touch device drives, else on every output"
            case .all: "on every output"
            case .named(let name): "on \(name) only"
            }
        }
    }

    public var enabled: Bool
    public var outputs: Outputs
    /// Red, green, blue, each 0...1.
    public var accent: RGB

    /// An sRGB colour, each channel 0...1.
    public struct RGB: Hashable, Sendable {
        public var red, green, blue: Double
        public init(red: Double, green: Double, blue: Double) {
            (self.red, self.green, self.blue) = (red, green, blue)
        }
    }

    public init(enabled: Bool = true, outputs: Outputs = .auto, accent: RGB = Self.defaultAccent) {
        self.enabled = enabled
        self.outputs = outputs
        self.accent = accent
    }

    /// iOS's system blue.
    public static let defaultAccent = RGB(red: 0x0a / 255.0, green: 0x84 / 255.0, blue: 0xff / 255.0)

    /// On, on the gesture's own output, in the system blue.
    public static let defaults = OverlaySettings()

    /// Reads `[overlay]` (absent: the defaults); errors name the file and the line.
    public static func parse(_ s: Section) throws(ConfigError) -> OverlaySettings {
        try s.only(["enabled", "output", "accent"])
        var settings = OverlaySettings.defaults
        settings.enabled = try s.bool("enabled", default: settings.enabled) ?? settings.enabled
        switch try s.string("output", default: "auto", nonEmpty: true) ?? "auto" {
        case "auto": settings.outputs = .auto
        case "all": settings.outputs = .all
        case let name: settings.outputs = .named(name)
        }
        if let hex = try s.string("accent", default: nil) {
            guard let rgb = RGB(hex: hex) else {
                throw s.error("accent", "'accent' must be a colour as #rrggbb (got \"\(hex)\")")
            }
            settings.accent = rgb
        }
        return settings
    }
}

extension OverlaySettings.RGB {
    /// `#rrggbb` (or `rrggbb`), case-insensitive.
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
        self.init(
            red: Double((value >> 16) & 0xff) / 255, green: Double((value >> 8) & 0xff) / 255, blue: Double(value & 0xff) / 255)
    }
}
