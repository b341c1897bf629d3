import EdgeSwipeCore
public import EdgeSwipeTOML

/// Reads EdgeSwipe's TOML configuration (`config/default.toml` documents every key).
///
/// ``TOMLReader`` reads the syntax (and says where each key was written); this type checks the meaning. Every
/// error names the file and the line of the key at fault (a syntax error also the column), and says what was
/// expected, so `edgeswiped --check-config` can point at the problem.
public enum ConfigParser {
    /// Reads and parses the file at `path`.
    public static func load(path: String) throws(ConfigError) -> EdgeSwipeSettings {
        try parse(ConfigFile.readText(path), file: path)
    }

    /// Parses configuration text; `file` is only used in error messages.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> EdgeSwipeSettings {
        let root = try ConfigFile.readTOML(text, file: file)
        let top = Section(table: root, path: "", file: file, line: nil)
        try top.only(["version", "daemon", "transition", "touchscreen", "touchpad", "containers", "bindings", "devices", "access"])
        if let version = try top.int("version", default: nil), version != 1 {
            throw top.error("version", "unsupported configuration version \(version); this edgeswiped reads version 1")
        }

        let daemonSection = try top.section("daemon")
        try daemonSection.only(["tick_hz", "seat", "max_clients", "max_clients_per_user", "stall_timeout_s"])
        let seat = try daemonSection.string("seat", default: "seat0", nonEmpty: true) ?? "seat0"
        if let problem = DaemonSettings.seatNameProblem(seat) { throw daemonSection.error("seat", "'seat' \(problem) (got \"\(seat)\")") }
        let daemon = DaemonSettings(
            tickHz: try daemonSection.int("tick_hz", default: 120, in: 1...1000) ?? 120,
            seat: seat,
            maxClients: try daemonSection.int("max_clients", default: 1024, in: 1...65536) ?? 1024,
            maxClientsPerUser: try daemonSection.int("max_clients_per_user", default: 64, in: 1...65536) ?? 64,
            stallTimeoutSeconds: try daemonSection.int("stall_timeout_s", default: 30, in: 1...3600) ?? 30)

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
        let stateSize = StateLimits.size(of: containers)
        if stateSize > StateLimits.maxStateBytes {
            throw ConfigError(
                file: file, line: root["containers"]?.array?.first?.table?.position.line,
                message: "the containers' initial state measures \(stateSize) bytes, over the \(StateLimits.maxStateBytes) the daemon keeps (fewer or shorter names)")
        }
        let bindings: [Binding]
        if top.value("bindings") == nil {
            var kept: [Binding] = []
            for b in defaults.bindings {
                guard let index = containers.firstIndex(where: { $0.name == b.container }) else {
                    throw ConfigError(
                        file: file, line: nil,
                        message: "the default bindings use container '\(b.container)', which this file's [[containers]] do not define; add [[bindings]] for your containers")
                }
                // A default binding the file's container cannot carry out (it made 'app' a tabs container: the
                // default left-edge 'pop' on it) is left out, said once: the file still loads, as it did, and
                // what is in effect is what its rendering says (found by `scripts/fuzz.sh config`: the rendering
                // round trip refused the 'pop' the reader had kept).
                let container = containers[index]
                guard container.content.accepts(b.operation) else {
                    warnings.append(ConfigWarning(
                        file: file, line: root["containers"]?.array?[index].table?.position.line,
                        message: "the default binding '\(b.operation.name)' on container '\(b.container)' is left out: this file makes it a \(container.content.kind) container; add [[bindings]] for your containers"))
                    continue
                }
                kept.append(b)
            }
            bindings = kept
        } else {
            bindings = try top.bindings(containers: containers, animator: animator, springResponseMS: springMS, warnings: &warnings)
        }

        let devicesSection = try top.section("devices")
        try devicesSection.only(["allow", "deny", "override"])
        let devices = DeviceSelection(
            allow: try devicesSection.strings("allow") ?? [],
            deny: try devicesSection.strings("deny") ?? [],
            overrides: try devicesSection.overrides())

        let accessSection = try top.section("access")
        try accessSection.only(["read", "control", "read_uids", "read_gids", "control_uids", "control_gids"])
        let access = AccessSettings(
            readUIDs: try accessSection.ids("read_uids"), readGIDs: try accessSection.ids("read_gids"),
            controlUIDs: try accessSection.ids("control_uids"), controlGIDs: try accessSection.ids("control_gids"),
            read: try accessSection.accessKeywords("read"), control: try accessSection.accessKeywords("control"))

        let engine = EngineConfiguration(
            containers: containers, bindings: bindings, touchscreen: touchscreen, touchpad: touchpad,
            animator: animator, completionSpeed: completionSpeed, completionCurve: completionCurve,
            tickInterval: Microseconds(Int64(1_000_000 / daemon.tickHz)), overscroll: overscroll)
        return EdgeSwipeSettings(engine: engine, daemon: daemon, devices: devices, access: access, warnings: warnings)
    }
}
