import EdgeSwipeCore
import Foundation
import Testing
@testable import EdgeSwipeConfig
import EdgeSwipeTOML

@Suite("Configuration")
struct ConfigTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the embedded default is config/default.toml, and is the core's default")
    func embeddedDefault() throws {
        let shipped = try String(contentsOf: Self.packageRoot.appendingPathComponent("config/default.toml"), encoding: .utf8)
        #expect(DefaultConfiguration.toml + "\n" == shipped, "run scripts/embed-default-config.sh")
        let settings = try ConfigParser.parse(DefaultConfiguration.toml, file: "default.toml")
        #expect(settings.engine == EngineConfiguration.default)
        #expect(settings.daemon == DaemonSettings())
        #expect(EdgeSwipeSettings.default == settings)
    }

    @Test("the effective configuration round-trips through its TOML rendering")
    func roundTrip() throws {
        let text = DefaultConfiguration.toml + """

            [[devices.override]]
            match = "Wacom ISDv4 E6 Finger"
            rotation = 90
            calibration = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]

            [[containers]]
            name = "pages"
            kind = "custom"
            children = ["a", "b"]
            active = "b"

            [[bindings]]
            edge = "right"
            devices = ["touchpad"]
            fingers = [2, 3]
            container = "pages"
            action = "show"
            scene = "a"
            reference = "fraction"
            reference_fraction = 0.4
            threshold = 0.4
            animator = { style = "fade", duration_ms = 200, curve = "spring" }
            """
        let settings = try ConfigParser.parse(text, file: "x.toml")
        let rendered = settings.renderTOML()
        let again = try ConfigParser.parse(rendered, file: "rendered.toml")
        #expect(again == settings)
        #expect(settings.devices.overrides.first?.rotation == .degrees90)
        let last = try #require(settings.engine.bindings.last)
        #expect(last.fingers == 2...3)
        #expect(last.deviceKinds == [.touchpad])
        #expect(last.animator?.style == .fade)
        #expect(last.reference == .fraction(0.4))
    }

    @Test("strings with control characters render as TOML reads them again, DEL included", arguments: ["a\\u007fb", "tab\\there", "line\\nbreak", "quote\\\" and \\\\"])
    func renderedStringsParseAgain(_ escaped: String) throws {
        let text = "version = 1\n[[devices.override]]\nmatch = \"\(escaped)\"\nrotation = 90\n[devices]\nallow = [\"\(escaped)\"]\n"
        let settings = try ConfigParser.parse(text, file: "x.toml")
        let again = try ConfigParser.parse(settings.renderTOML(), file: "rendered.toml")
        #expect(again == settings)
    }

    @Test("device overrides reach the input layer's setup: by name or udev property, later ones winning")
    func deviceSetup() throws {
        let settings = try ConfigParser.parse("""
            version = 1
            [touchpad]
            assumed_width_mm = 90.0
            [[devices.override]]
            match = "Wacom ISDv4 E6 Finger"
            rotation = 90
            [[devices.override]]
            match = "ID_BUS=usb"
            calibration = [0.9, 0.0, 0.05, 0.0, 0.9, 0.05]
            [[devices.override]]
            match = "ID_BUS=usb"
            rotation = 180
            """, file: "user.toml")
        let setup = settings.devices.setup(for: settings.engine)
        let wacom = setup("Wacom ISDv4 E6 Finger", [:], .touchscreen)
        #expect(wacom.rotation == .degrees90 && wacom.calibration == nil)
        #expect(wacom.assumedSize == settings.engine.touchscreen.assumedSize)
        let usb = setup("ELAN Touchscreen", ["ID_BUS": "usb"], .touchpad)
        #expect(usb.rotation == .degrees180)
        #expect(usb.calibration?.values == [0.9, 0.0, 0.05, 0.0, 0.9, 0.05])
        #expect(usb.assumedSize == MillimeterSize(widthMM: 90, heightMM: 60))
        #expect(setup("Other", ["ID_BUS": "i2c"], .touchscreen) == DeviceSetup(assumedSize: settings.engine.touchscreen.assumedSize))
    }

    @Test("a user's larger zone and other overrides are read", arguments: [
        ("[touchscreen]\nedge_zone_fraction = 0.06", { @Sendable (s: EdgeSwipeSettings) in s.engine.touchscreen.recognizer.zoneFraction == 0.06 }),
        ("[daemon]\ntick_hz = 60", { @Sendable (s: EdgeSwipeSettings) in s.engine.tickInterval == Microseconds(16666) && s.daemon.tickHz == 60 }),
        ("[transition]\nthreshold = 0.4", { @Sendable (s: EdgeSwipeSettings) in s.engine.touchpad.decision.threshold == Percent(0.4) }),
        ("[transition]\ncompletion_curve = \"spring\"\nspring_response_ms = 250", { @Sendable (s: EdgeSwipeSettings) in s.engine.completionCurve == .spring(response: .milliseconds(250)) }),
        ("[access]\ncontrol_uids = [1000]", { @Sendable (s: EdgeSwipeSettings) in s.access.controlUIDs == [1000] }),
        ("[touchpad]\nscroll_edges = []", { @Sendable (s: EdgeSwipeSettings) in s.engine.touchpad.recognizer.scrollEdges == [] }),
        ("[touchscreen]\nscroll_edges = [\"right\", \"bottom\"]", { @Sendable (s: EdgeSwipeSettings) in s.engine.touchscreen.recognizer.scrollEdges == [.right, .bottom] }),
        ("[transition]\noverscroll = \"none\"", { @Sendable (s: EdgeSwipeSettings) in s.engine.overscroll == Overscroll.none }),
        ("[transition]\nrubber_band_limit = 0.1\nrubber_band_stiffness = 1.0\nspring_response_ms = 200", { @Sendable (s: EdgeSwipeSettings) in
            s.engine.overscroll == .rubberBand(RubberBand(stiffness: 1, limit: Percent(0.1), springResponse: .milliseconds(200)))
        }),
        ("[daemon]\nmax_clients = 8\nstall_timeout_s = 5", { @Sendable (s: EdgeSwipeSettings) in s.daemon.maxClients == 8 && s.daemon.stallTimeoutSeconds == 5 }),
        ("[daemon]\nmax_clients_per_user = 5", { @Sendable (s: EdgeSwipeSettings) in s.daemon.maxClientsPerUser == 5 }),
        ("", { @Sendable (s: EdgeSwipeSettings) in
            s.daemon.maxClients == 1024 && s.daemon.maxClientsPerUser == 64 && s.daemon.stallTimeoutSeconds == 30
        }),
    ] as [(String, @Sendable (EdgeSwipeSettings) -> Bool)])
    func overrides(_ text: String, _ check: @Sendable (EdgeSwipeSettings) -> Bool) throws {
        let settings = try ConfigParser.parse(text, file: "user.toml")
        #expect(check(settings))
    }

    @Test("bad configurations name the line and the reason", arguments: [
        ("[touchscreen]\nedge_zone_mm = 45\n", "user.toml:2: 'edge_zone_mm' must be between 0.5 and 30 (got 45)"),
        ("version = 2\n", "user.toml:1: unsupported configuration version 2; this edgeswiped reads version 1"),
        ("[touchscreen]\nzone = 3\n", "user.toml:2: unknown key 'zone' in [touchscreen]"),
        ("[[bindings]]\nedge = \"left\"\ncontainer = \"nope\"\naction = \"pop\"\n", "user.toml:3: no container named 'nope'"),
        ("[[bindings]]\nedge = \"left\"\ncontainer = \"shell\"\naction = \"pop\"\n", "user.toml:4: a tabs container ('shell') cannot 'pop'"),
        ("[[bindings]]\nedge = \"sideways\"\n", "user.toml:2: 'edge' must be one of"),
        ("[[bindings]]\ncontainer = \"app\"\n", "user.toml:1: [[bindings]] needs 'edge'"),
        ("[daemon]\ntick_hz = \"fast\"\n", "user.toml:2: 'tick_hz' must be a whole number"),
        ("[daemon]\nmax_clients = 0\n", "user.toml:2: 'max_clients' must be between 1 and 65536 (got 0)"),
        ("[daemon]\nmax_clients_per_user = 0\n", "user.toml:2: 'max_clients_per_user' must be between 1 and 65536 (got 0)"),
        ("[daemon]\nstall_timeout_s = 0\n", "user.toml:2: 'stall_timeout_s' must be between 1 and 3600 (got 0)"),
        ("[[devices.override]]\nmatch = \"x\"\nrotation = 45\n", "user.toml:3: 'rotation' must be 0, 90, 180, 270 or \"auto\" (got 45)"),
        ("[[devices.override]]\nmatch = \"x\"\nrotation = \"sideways\"\n", "user.toml:3: 'rotation' must be 0, 90, 180, 270 or \"auto\""),
        ("[[devices.override]]\nmatch = \"x\"\noutput = \"\"\n", "user.toml:3: 'output' must not be empty"),
        ("[access]\nread = [\"everyone\"]\n", "user.toml:2: 'read' entries must be \"active-session\", \"owner\", \"socket-group\" (got \"everyone\")"),
        ("[access]\ncontrol = [\"owner\", \"owner\"]\n", "user.toml:2: 'control' names \"owner\" twice"),
        ("[[devices.override]]\nmatch = \"x\"\ncalibration = [1, 2]\n", "user.toml:3: 'calibration' must be 6 numbers"),
        ("[touchscreen\n", "user.toml:1:13: TOML syntax: expected ']' to close the table header, found a line break"),
        ("[daemon]\ntick_hz = 60\ntick_hz = 30\n", "user.toml:3:1: TOML syntax: a key can be defined only once: 'tick_hz' (first at line 2, column 1)"),
        ("[daemon]\ntick_hz = 1979-05-27\n", "user.toml:2: 'tick_hz' must be a whole number (got 1979-05-27)"),
        ("[transition]\nthreshold = 07:32:00\n", "user.toml:2: 'threshold' must be a number (got 07:32:00)"),
        ("[daemon]\nseat = 1979-05-27T07:32:00Z\n", "user.toml:2: 'seat' must be a string (got 1979-05-27T07:32:00Z)"),
        ("[access]\nread_uids = [1979-05-27]\n", "user.toml:2: 'read_uids' must hold uids/gids from 0 to 4294967295 (got 1979-05-27)"),
        ("[[containers]]\nname = \"a\"\nkind = \"tabs\"\ntabs = [\"x\"]\n[[containers]]\nname = \"a\"\n", "user.toml:6: a container named 'a' already exists"),
        ("[[containers]]\nname = \"x\"\nkind = \"navigation\"\nstack = []\n", "user.toml:4: navigation container 'x' needs a non-empty 'stack'"),
        ("[[containers]]\nname = \"x\"\nkind = \"navigation\"\nstack = [\"a\"]\n", "user.toml: the default bindings use container"),
        ("[touchpad]\nreference = \"mm\"\n", "user.toml:2: reference = \"mm\" needs 'reference_mm'"),
        ("[access]\nread_uids = [-1]\n", "user.toml:2: 'read_uids' must hold uids/gids"),
        ("[[bindings]]\nedge = \"top\"\ncontainer = \"overlay\"\naction = \"present\"\n", "user.toml:1: [[bindings]] #1 needs 'scene'"),
        ("[touchpad]\nscroll_edges = [\"middle\"]\n", "user.toml:2: 'scroll_edges' entries must be \"left\", \"right\", \"top\" or \"bottom\" (got \"middle\")"),
        ("[touchpad]\nscroll_edges = [\"right\", \"right\"]\n", "user.toml:2: 'scroll_edges' names \"right\" twice"),
        ("[transition]\noverscroll = \"bounce\"\n", "user.toml:2: 'overscroll' must be one of \"none\", \"rubber-band\""),
        ("[transition]\nrubber_band_limit = 0\n", "user.toml:2: 'rubber_band_limit' must be between 0.001 and 1"),
        ("[touchscreen]\ncorner_along_deg = 60\n", "user.toml:2: 'corner_along_deg' must be between 0 and 44"),
        // Multi-finger swipes.
        ("[[bindings]]\ngesture = \"swipe\"\nedge = \"left\"\ndirection = \"left\"\n", "user.toml:3: a swipe binding has no 'edge'"),
        ("[[bindings]]\nedge = \"left\"\ndirection = \"left\"\n", "user.toml:3: an edge binding has no 'direction'"),
        ("[[bindings]]\ngesture = \"swipe\"\ncontainer = \"shell\"\naction = \"next-tab\"\n", "user.toml:1: a swipe binding needs 'direction' (left, right, up or down)"),
        ("[[bindings]]\ngesture = \"swipe\"\ndirection = \"sideways\"\n", "user.toml:3: 'direction' must be one of \"left\", \"right\", \"up\", \"down\""),
        ("[[bindings]]\ngesture = \"pinch\"\n", "user.toml:2: 'gesture' must be one of \"edge\", \"swipe\""),
        ("[[bindings]]\ngesture = \"swipe\"\ndirection = \"left\"\nfingers = 1\n", "user.toml:4: a swipe binding's 'fingers' must be from 2 to 5 (got 1)"),
        ("[[bindings]]\ngesture = \"swipe\"\ndirection = \"left\"\nfingers = [3, 6]\n", "user.toml:4: a swipe binding's 'fingers' must be a count (3) or a range [min, max] within 2...5"),
        ("[[bindings]]\nedge = \"left\"\nfingers = 11\n", "user.toml:3: 'fingers' must be from 1 to 10 (got 11)"),
        ("[[bindings]]\ngesture = \"swipe\"\ndirection = \"up\"\ncontainer = \"app\"\naction = \"next-tab\"\n", "user.toml:5: a navigation container ('app') cannot 'next-tab'"),
    ])
    func errors(_ text: String, _ expected: String) {
        do {
            _ = try ConfigParser.parse(text, file: "user.toml")
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }

    @Test("swipe bindings are read and rendered: direction, fingers (3 by default), devices, reference")
    func swipeBindings() throws {
        let text = """
            version = 1
            [[bindings]]
            gesture = "swipe"
            direction = "up"
            container = "overlay"
            action = "present"
            scene = "overview"

            [[bindings]]
            gesture = "swipe"
            direction = "left"
            fingers = [3, 4]
            devices = ["touchpad"]
            container = "shell"
            action = "next-tab"
            reference = "mm"
            reference_mm = 40.0

            [[bindings]]
            gesture = "swipe"
            direction = "right"
            fingers = 2
            devices = ["touchscreen"]
            container = "shell"
            action = "previous-tab"

            [[bindings]]
            gesture = "edge"
            edge = "left"
            container = "app"
            action = "pop"
            """
        let settings = try ConfigParser.parse(text, file: "swipes.toml")
        let b = settings.engine.bindings
        #expect(b.map(\.trigger) == [.swipe(.up), .swipe(.left), .swipe(.right), .edge(.left)])
        #expect(b.map(\.fingers) == [3...3, 3...4, 2...2, 1...10])
        #expect(b[1].deviceKinds == [.touchpad] && b[1].reference == .millimeters(40))
        #expect(settings.warnings.isEmpty, "a 2-finger swipe on touchscreens only is fine")
        let again = try ConfigParser.parse(settings.renderTOML(), file: "rendered.toml")
        #expect(again.engine == settings.engine)
    }

    @Test("a 2-finger swipe binding that listens to touchpads is warned about: libinput makes two fingers scroll")
    func twoFingerTouchpadSwipe() throws {
        let text = "version = 1\n[[bindings]]\ngesture = \"swipe\"\ndirection = \"left\"\nfingers = 2\ncontainer = \"shell\"\naction = \"next-tab\"\n"
        let settings = try ConfigParser.parse(text, file: "two.toml")
        #expect(settings.warnings.map(\.line) == [5])
        #expect(settings.warnings.first?.description.hasPrefix("two.toml:5: warning: libinput makes two fingers on a touchpad scroll") == true)
        // The warning is about what the binding means, so the effective configuration (`--check-config`'s output)
        // earns it again, at the rendered binding's line, with the same settings (found by `scripts/fuzz.sh config`,
        // whose round trip expected every warning to go; it now expects no new one).
        let rendered = settings.renderTOML()
        let again = try ConfigParser.parse(rendered, file: "rendered.toml")
        #expect(again.engine == settings.engine)
        #expect(again.warnings.map(\.problem.message) == settings.warnings.map(\.problem.message))
        let bindingLine = rendered.split(separator: "\n", omittingEmptySubsequences: false).firstIndex(of: "fingers = [2, 2]").map { $0 + 1 }
        #expect(again.warnings.map(\.line) == [bindingLine], "\(again.warnings)")
    }

    /// Found by the config fuzz target's rendering round trip (Fuzz/Regressions/config/default-binding-on-wrong-kind.toml):
    /// the reader kept the default left-edge 'pop' on an 'app' the file made a modal, which the rendering then refused.
    @Test("a default binding the file's containers cannot carry out is left out with a warning at the container's line; the rest stay, and the rendering reads back the same")
    func defaultBindingOnAnotherKind() throws {
        let text = "[[containers]]\nname = \"shell\"\nkind = \"tabs\"\ntabs = [\"launcher\", \"settings\"]\n[[containers]]\nname = \"overlay\"\nkind = \"modal\"\nbase = \"shell\"\n"
            + "[[containers]]\nname = \"app\"\nkind = \"modal\"\nbase = \"shell\"\n"
        let settings = try ConfigParser.parse(text, file: "user.toml")
        let defaults = EngineConfiguration.default.bindings
        #expect(settings.engine.bindings == defaults.filter { $0.container != "app" })
        #expect(settings.warnings.map(\.description) == [
            "user.toml:9: warning: the default binding 'pop' on container 'app' is left out: this file makes it a modal container; add [[bindings]] for your containers",
        ])
        let again = try ConfigParser.parse(settings.renderTOML(), file: "rendered.toml")
        #expect(again.engine == settings.engine)
        #expect(again.warnings.isEmpty)
    }

    /// Found by the config fuzz target's rendering round trip (Fuzz/Regressions/config/no-bindings.toml): a file
    /// that turns every binding off rendered no [[bindings]], which reads back as the default ones.
    @Test("a file with no bindings, or no containers, renders so that it reads back the same", arguments: [
        ("bindings = []\n", 3, 0), ("bindings=[]", 3, 0), ("containers = []\nbindings = []\n", 0, 0),
        ("[[containers]]\nname = \"app\"\nkind = \"navigation\"\nstack = [\"home\"]\n[[bindings]]\nedge = \"left\"\ncontainer = \"app\"\naction = \"pop\"\n", 1, 1),
    ])
    func emptyLists(_ text: String, _ containers: Int, _ bindings: Int) throws {
        let settings = try ConfigParser.parse(text, file: "user.toml")
        #expect(settings.engine.containers.count == containers && settings.engine.bindings.count == bindings)
        let rendered = settings.renderTOML()
        let again = try ConfigParser.parse(rendered, file: "rendered.toml")
        #expect(again == settings, "\(rendered)")
        #expect(rendered.contains("\nbindings = []\n") == (bindings == 0))
        #expect(rendered.contains("\ncontainers = []\n") == (containers == 0))
    }

    @Test("[access] keywords, rotation = \"auto\" and output are read, and rendered so that they read again")
    func seatKeys() throws {
        let text = "[access]\nread = [\"active-session\", \"socket-group\"]\ncontrol = [\"active-session\"]\n"
            + "[[devices.override]]\nmatch = \"Panel\"\nrotation = \"auto\"\noutput = \"DSI-1\"\n"
        let settings = try ConfigParser.parse(text, file: "user.toml")
        #expect(settings.access.read == [.activeSession, .socketGroup])
        #expect(settings.access.control == [.activeSession])
        #expect(settings.access.followsActiveSession)
        #expect(settings.devices.overrides == [DeviceOverride(match: "Panel", followsAccelerometer: true, output: "DSI-1")])
        #expect(settings.devices.followsAccelerometer)
        let setup = settings.devices.setup(for: settings.engine)("Panel", [:], .touchscreen)
        #expect(setup.followsAccelerometer && setup.output == "DSI-1")
        let again = try ConfigParser.parse(settings.renderTOML(), file: "rendered.toml")
        #expect(again.access == settings.access && again.devices == settings.devices)
    }

    @Test("corner_along_deg is still read, and has no effect: a deprecation warning names its line")
    func deprecatedCornerAlong() throws {
        let text = "version = 1\n[touchscreen]\nangle_tolerance_deg = 30.0\ncorner_along_deg = 15.0\n[touchpad]\ncorner_along_deg = 10\n"
        let settings = try ConfigParser.parse(text, file: "old.toml")
        #expect(settings.engine == EngineConfiguration.default)
        #expect(settings.warnings.map(\.line) == [4, 6])
        #expect(settings.warnings.first?.description.hasPrefix("old.toml:4: warning: 'corner_along_deg' is deprecated and has no effect") == true)
        #expect(try ConfigParser.parse(DefaultConfiguration.toml, file: "default.toml").warnings.isEmpty)
        #expect(!settings.renderTOML().contains("corner_along_deg"), "the effective configuration no longer lists it")
        // What `--check-config` prints reads back to the same settings, without the warnings (the fuzzer's
        // round-trip check first compared the warnings too, and stopped on a seed with the old key).
        let again = try ConfigParser.parse(settings.renderTOML(), file: "rendered.toml")
        var effective = settings
        effective.warnings = []
        #expect(again == effective && again.warnings.isEmpty)
    }

    @Test("a missing file is reported with its path")
    func missingFile() {
        #expect(throws: ConfigError.self) { try ConfigParser.load(path: "/nonexistent/edgeswipe.toml") }
        do { _ = try ConfigParser.load(path: "/nonexistent/edgeswipe.toml") } catch {
            #expect(error.description.hasPrefix("/nonexistent/edgeswipe.toml: cannot read the file"))
        }
    }
}

/// The configuration is where the initial state enters: it is held to the same limits as requests.
@Suite("Configuration limits")
struct ConfigLimitsTests {
    static let binding = "[[bindings]]\nedge = \"left\"\ncontainer = \"c0\"\naction = \"pop\"\n"

    static func navigation(_ name: String, stack: [String]) -> String {
        "[[containers]]\nname = \"\(name)\"\nkind = \"navigation\"\nstack = [\(stack.map { "\"\($0)\"" }.joined(separator: ", "))]\n"
    }

    static func parse(_ text: String) -> Result<EdgeSwipeSettings, ConfigError> {
        do { return .success(try ConfigParser.parse(text, file: "limits.toml")) } catch { return .failure(error) }
    }

    static func expectError(_ text: String, _ message: String, line: Int? = nil) {
        switch parse(text) {
        case .success: Issue.record("accepted: \(text.prefix(200))")
        case .failure(let e):
            #expect(e.description.contains(message), "\(e.description)")
            if let line { #expect(e.line == line, "\(e.description)") }
        }
    }

    @Test("64 containers are accepted, 65 are not")
    func containers() {
        let text = { (n: Int) in (0..<n).map { Self.navigation("c\($0)", stack: ["home"]) }.joined(separator: "\n") + Self.binding }
        #expect((try? Self.parse(text(64)).get())?.engine.containers.count == 64)
        Self.expectError(text(65), "65 [[containers]]; at most 64 are allowed", line: 64 * 5 + 1)
    }

    @Test("256 bindings are accepted, 257 are not")
    func bindings() {
        let text = { (n: Int) in Self.navigation("c0", stack: ["home"]) + String(repeating: "\n" + Self.binding, count: n) }
        #expect((try? Self.parse(text(256)).get())?.engine.bindings.count == 256)
        Self.expectError(text(257), "257 [[bindings]]; at most 256 are allowed")
    }

    @Test("a stack of 256 scenes and names of 256 bytes are accepted; 257 of either are not; nor control characters")
    func stackAndNames() {
        let ok256 = (0..<256).map { "s\($0)" }
        #expect((try? Self.parse(Self.navigation("c0", stack: ok256) + Self.binding).get()) != nil)
        Self.expectError(Self.navigation("c0", stack: ok256 + ["one-more"]) + Self.binding, "'stack' holds 257 scenes; at most 256 are allowed", line: 4)
        let long = String(repeating: "n", count: 256)
        #expect((try? Self.parse(Self.navigation("c0", stack: [long]) + Self.binding).get()) != nil)
        Self.expectError(Self.navigation("c0", stack: [long + "n"]) + Self.binding, "'stack'[0] is 257 bytes long; a name holds at most 256 bytes", line: 4)
        Self.expectError(Self.navigation(long + "n", stack: ["home"]) + Self.binding, "'name' is 257 bytes long", line: 2)
        Self.expectError(Self.navigation("c0", stack: ["a\\u0001b"]) + Self.binding, "'stack'[0] contains the control character U+0001", line: 4)
        Self.expectError(
            Self.navigation("c0", stack: ["home"]) + "[[bindings]]\nedge = \"left\"\ncontainer = \"c0\"\naction = \"push\"\nscene = \"\(long)n\"\n",
            "'scene' is 257 bytes long", line: 9)
    }

    @Test("the initial state's size: at the limit it is accepted, past it refused")
    func stateSize() {
        // Stacks of 255 names of 240 bytes (each counts 256 with its allowance), then one stack sized to land
        // exactly on the limit.
        func stack(_ prefix: String, _ n: Int) -> [String] { (0..<n).map { "\(prefix)\($0)-" + String(repeating: "x", count: 240 - "\(prefix)\($0)-".utf8.count) } }
        var containers = (0..<4).map { Container(name: "c\($0)", content: .navigation(stack: stack("c\($0)", 255))) }
        let used = StateLimits.size(of: containers) + StateLimits.size(of: Container(name: "c4", content: .navigation(stack: [])))
        let room = StateLimits.maxStateBytes - used
        let full = room / 256
        let rest = room - full * 256 - 16
        #expect(rest > 0 && full < 255, "room \(room)")
        var last = stack("c4", full)
        last.append(String(repeating: "y", count: rest))
        containers.append(Container(name: "c4", content: .navigation(stack: last)))
        #expect(StateLimits.size(of: containers) == StateLimits.maxStateBytes)
        func text(_ cs: [Container]) -> String {
            cs.map { c in
                guard case .navigation(let s) = c.content else { return "" }
                return Self.navigation(c.name, stack: s)
            }.joined(separator: "\n") + Self.binding
        }
        #expect((try? Self.parse(text(containers)).get()) != nil, "at the limit")
        containers[4].content = .navigation(stack: last + ["z"])
        Self.expectError(text(containers), "the containers' initial state measures \(StateLimits.maxStateBytes + 17) bytes, over the \(StateLimits.maxStateBytes)", line: 1)
    }

    @Test("a binding's frame is held to the frame limits", arguments: [
        ("[0, 0.5, 1, 0.5]", nil),
        ("[1e308, 0, 1, 1]", "'frame': x must be between -10 and 10"),
        ("[0, 0, 1, 1e-308]", "'frame': height must be between 0.001 and 10"),
        ("[0, 0, 1]", "'frame' must be [x, y, width, height]"),
    ] as [(String, String?)])
    func frames(_ frame: String, _ problem: String?) {
        let text = "[[containers]]\nname = \"m\"\nkind = \"modal\"\nbase = \"b\"\n\n[[bindings]]\nedge = \"top\"\ncontainer = \"m\"\naction = \"present\"\nscene = \"card\"\nframe = \(frame)\n"
        if let problem { Self.expectError(text, problem, line: 11) } else { #expect((try? Self.parse(text).get()) != nil) }
    }
}
