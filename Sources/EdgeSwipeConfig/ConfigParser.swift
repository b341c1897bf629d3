import EdgeSwipeCore
import Foundation
import TOMLKit

/// Reads EdgeSwipe's TOML configuration (`config/default.toml` documents every key).
///
/// TOMLKit parses the syntax; this type checks the meaning. Every error names the file and the line of the
/// key at fault, and says what was expected, so `edgeswiped --check-config` can point at the problem.
public enum ConfigParser {
    /// Reads and parses the file at `path`.
    public static func load(path: String) throws(ConfigError) -> EdgeSwipeSettings {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(file: path, line: nil, message: "cannot read the file: \(error.localizedDescription)")
        }
        return try parse(text, file: path)
    }

    /// Parses configuration text; `file` is only used in error messages.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> EdgeSwipeSettings {
        // Text that toml++ cannot be handed safely is refused first (TOMLPrecheck.swift).
        do throws(TOMLPrecheck.Problem) {
            try TOMLPrecheck.check(text)
        } catch {
            throw ConfigError(file: file, line: error.line, message: error.message)
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(file: file, line: error.source.begin.line, message: "TOML syntax: \(error.description)")
        } catch {
            throw ConfigError(file: file, line: nil, message: "TOML syntax: \(error)")
        }
        let map = SourceMap(text: text)
        let top = Section(table: root, path: "", file: file, map: map)
        try top.only(["version", "daemon", "transition", "touchscreen", "touchpad", "containers", "bindings", "devices", "access"])
        if let version = try top.int("version", default: nil), version != 1 {
            throw top.error("version", "unsupported configuration version \(version); this edgeswiped reads version 1")
        }

        let daemonSection = try top.section("daemon")
        try daemonSection.only(["tick_hz", "seat"])
        let daemon = DaemonSettings(
            tickHz: try daemonSection.int("tick_hz", default: 120, in: 1...1000) ?? 120,
            seat: try daemonSection.string("seat", default: "seat0", nonEmpty: true) ?? "seat0")

        let transition = try top.section("transition")
        try transition.only([
            "threshold", "flick_velocity", "completion_speed", "completion_curve", "spring_response_ms", "animator",
            "overscroll", "rubber_band_stiffness", "rubber_band_limit",
        ])
        let threshold = try transition.double("threshold", default: 0.5, in: 0.05...0.95)
        let flick = try transition.double("flick_velocity", default: 0.3, in: 0...100)
        let completionSpeed = try transition.double("completion_speed", default: 1, in: 0.05...20)
        let springMS = try transition.double("spring_response_ms", default: 300, in: 10...5000)
        let completionCurve = try transition.curve("completion_curve", default: .easeInOut, springResponseMS: springMS)
        let animator = try transition.animator(try transition.section("animator"), base: Animator.slide, springResponseMS: springMS)
        let band = RubberBand(
            stiffness: try transition.double("rubber_band_stiffness", default: RubberBand.niri.stiffness, in: 0.01...10),
            limit: Percent(try transition.double("rubber_band_limit", default: RubberBand.niri.limit.value, in: 0.001...1)),
            springResponse: .seconds(springMS / 1000))
        let overscroll = try transition.choice(
            "overscroll", default: Overscroll.rubberBand(band), [("none", .none), ("rubber-band", .rubberBand(band))])
            ?? .rubberBand(band)

        var warnings: [ConfigWarning] = []
        let touchscreen = try top.kindSettings(.touchscreen, threshold: threshold, flick: flick, warnings: &warnings)
        let touchpad = try top.kindSettings(.touchpad, threshold: threshold, flick: flick, warnings: &warnings)

        // The scene graph and the bindings are replaced as a whole when a file gives them, and otherwise are
        // the defaults, so a file that only tunes a zone keeps working edges.
        let defaults = EngineConfiguration.default
        let containers = top.value("containers") == nil ? defaults.containers : try top.containers()
        let bindings: [Binding]
        if top.value("bindings") == nil {
            bindings = defaults.bindings
            for b in bindings where !containers.contains(where: { $0.name == b.container }) {
                throw ConfigError(
                    file: file, line: nil,
                    message: "the default bindings use container '\(b.container)', which this file's [[containers]] do not define; add [[bindings]] for your containers")
            }
        } else {
            bindings = try top.bindings(containers: containers, animator: animator, springResponseMS: springMS)
        }

        let devicesSection = try top.section("devices")
        try devicesSection.only(["allow", "deny", "override"])
        let devices = DeviceSelection(
            allow: try devicesSection.strings("allow") ?? [],
            deny: try devicesSection.strings("deny") ?? [],
            overrides: try devicesSection.overrides())

        let accessSection = try top.section("access")
        try accessSection.only(["read_uids", "read_gids", "control_uids", "control_gids"])
        let access = AccessSettings(
            readUIDs: try accessSection.ids("read_uids"), readGIDs: try accessSection.ids("read_gids"),
            controlUIDs: try accessSection.ids("control_uids"), controlGIDs: try accessSection.ids("control_gids"))

        let engine = EngineConfiguration(
            containers: containers, bindings: bindings, touchscreen: touchscreen, touchpad: touchpad,
            animator: animator, completionSpeed: completionSpeed, completionCurve: completionCurve,
            tickInterval: Microseconds(Int64(1_000_000 / daemon.tickHz)), overscroll: overscroll)
        return EdgeSwipeSettings(engine: engine, daemon: daemon, devices: devices, access: access, warnings: warnings)
    }
}

/// Line numbers of keys and table headers, found by reading the text the way TOML lays it out, because TOMLKit
/// does not expose where a value came from.
struct SourceMap {
    private var lines: [String: Int] = [:]

    init(text: String) {
        var path = ""
        var arrayCounts: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[[") {
                let name = Self.header(line, open: "[[", close: "]]")
                let i = arrayCounts[name, default: 0]
                arrayCounts[name] = i + 1
                path = "\(name)[\(i)]"
                lines[path] = index + 1
            } else if line.hasPrefix("[") {
                path = Self.header(line, open: "[", close: "]")
                lines[path] = index + 1
            } else if let eq = line.firstIndex(of: "=") {
                let key = line[..<eq].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                lines[path.isEmpty ? key : "\(path).\(key)"] = index + 1
            }
        }
    }

    private static func header(_ line: String, open: String, close: String) -> String {
        var s = line.dropFirst(open.count)
        if let end = s.range(of: close) { s = s[..<end.lowerBound] }
        return s.trimmingCharacters(in: .whitespaces)
    }

    /// The line of `path`, or of the nearest enclosing table that has one.
    func line(of path: String) -> Int? {
        var p = path
        while !p.isEmpty {
            if let l = lines[p] { return l }
            guard let dot = p.lastIndex(of: ".") else { break }
            p = String(p[..<dot])
        }
        return nil
    }
}
