public import EdgeSwipeCore
public import EdgeSwipeTOML

// The daemon's configuration, read from its tables through `Section`'s typed helpers (EdgeSwipeTOML): names within
// the state's limits, edges, the access lists, and every domain value `ConfigParser` builds (curves, animators, each
// kind of device's settings, references, containers, bindings, device overrides).
extension Section {
    /// A scene, tab, child or container name, within ``StateLimits``' rules for names.
    func requiredName(_ k: String) throws(ConfigError) -> String {
        let s = try required(k)
        if let problem = StateLimits.nameProblem(s) { throw error(k, "'\(k)' \(problem)") }
        return s
    }

    /// A list of names, each within ``StateLimits``' rules, and at most `limit` of them.
    func names(_ k: String, limit: Int, of what: String) throws(ConfigError) -> [String]? {
        guard let list = try strings(k) else { return nil }
        guard list.count <= limit else { throw error(k, "'\(k)' holds \(list.count) \(what); at most \(limit) are allowed") }
        for (i, name) in list.enumerated() {
            if let problem = StateLimits.nameProblem(name) { throw error(k, "'\(k)'[\(i)] \(problem)") }
        }
        return list
    }

    /// A list of edge names (`["right"]`), each at most once.
    public func edges(_ k: String) throws(ConfigError) -> Edges? {
        guard let names = try strings(k) else { return nil }
        var edges: Edges = []
        for name in names {
            guard let edge = Edge(rawValue: name) else {
                throw error(k, "'\(k)' entries must be \"left\", \"right\", \"top\" or \"bottom\" (got \"\(name)\")")
            }
            guard !edges.contains(edge.edges) else { throw error(k, "'\(k)' names \"\(name)\" twice") }
            edges.insert(edge.edges)
        }
        return edges
    }

    func ids(_ k: String) throws(ConfigError) -> [UInt32] {
        guard let a = try array(k) else { return [] }
        var out: [UInt32] = []
        for item in a {
            guard let x = item.int, x >= 0, x <= Int(UInt32.max) else {
                throw error(k, "'\(k)' must hold uids/gids from 0 to 4294967295 (got \(item))")
            }
            out.append(UInt32(x))
        }
        return out
    }

    /// `read = ["active-session", "socket-group"]`: each entry a known keyword, at most once.
    func accessKeywords(_ k: String) throws(ConfigError) -> [AccessKeyword] {
        guard let names = try strings(k) else { return [] }
        var out: [AccessKeyword] = []
        for name in names {
            guard let keyword = AccessKeyword(rawValue: name) else {
                let known = AccessKeyword.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw error(k, "'\(k)' entries must be \(known) (got \"\(name)\"); numeric ids go in '\(k)_uids' and '\(k)_gids'")
            }
            guard !out.contains(keyword) else { throw error(k, "'\(k)' names \"\(name)\" twice") }
            out.append(keyword)
        }
        return out
    }

    static let curves: [(String, CompletionCurve)] = [
        ("linear", .linear), ("ease-in", .easeIn), ("ease-out", .easeOut), ("ease-in-out", .easeInOut),
        ("spring", .spring(response: .milliseconds(300))),
    ]

    func curve(_ k: String, default d: CompletionCurve, springResponseMS: Double) throws(ConfigError) -> CompletionCurve {
        let c = try choice(k, default: d, Self.curves) ?? d
        if case .spring = c { return .spring(response: .seconds(springResponseMS / 1000)) }
        return c
    }

    func animator(_ s: Section, base: Animator, springResponseMS: Double) throws(ConfigError) -> Animator {
        try s.only(["style", "duration_ms", "curve", "dimming_alpha"])
        var a = base
        a.style = try s.choice("style", default: base.style, Animator.Style.allCases.map { ($0.rawValue, $0) }) ?? base.style
        if let ms = try s.optionalDouble("duration_ms", in: 0...10_000) { a.duration = .seconds(ms / 1000) }
        a.curve = try s.curve("curve", default: base.curve, springResponseMS: springResponseMS)
        a.dimmingAlpha = try s.double("dimming_alpha", default: base.dimmingAlpha, in: 0...1)
        return a
    }

    func kindSettings(
        _ kind: DeviceKind, threshold: Double, flick: Double, warnings: inout [ConfigWarning]
    ) throws(ConfigError) -> DeviceKindSettings {
        let s = try section(kind.rawValue)
        try s.only([
            "edge_zone_mm", "edge_zone_fraction", "hysteresis_mm", "angle_tolerance_deg", "scroll_edges",
            "corner_along_deg", "velocity_window_ms", "deceleration", "threshold", "flick_velocity", "reference",
            "reference_mm", "reference_fraction", "reference_cap_mm", "assumed_width_mm", "assumed_height_mm",
        ])
        let d = DeviceKindSettings.defaults(for: kind)
        // Still read (a value of the wrong type is still an error), so that files written for the old corner
        // rule keep loading; it has no effect since the corner rule judges each edge's normal on its own.
        if try s.optionalDouble("corner_along_deg", in: 0...44) != nil {
            warnings.append(s.warning(
                "corner_along_deg",
                "'corner_along_deg' is deprecated and has no effect: in a corner a motion within angle_tolerance_deg of an edge's inward normal begins on that edge, and a slide along a scroll edge (scroll_edges) fails as edge scrolling; remove the key"))
        }
        let recognizer = EdgeRecognizerSettings(
            zone: Millimeters(try s.double("edge_zone_mm", default: d.recognizer.zone.value, in: 0.5...30)),
            zoneFraction: try s.double("edge_zone_fraction", default: d.recognizer.zoneFraction, in: 0.001...0.5),
            hysteresis: Millimeters(try s.double("hysteresis_mm", default: d.recognizer.hysteresis.value, in: 0...20)),
            angleToleranceDegrees: try s.double("angle_tolerance_deg", default: d.recognizer.angleToleranceDegrees, in: 1...89),
            scrollEdges: try s.edges("scroll_edges") ?? d.recognizer.scrollEdges,
            velocityWindow: .seconds(try s.double("velocity_window_ms", default: d.recognizer.velocityWindow.seconds * 1000, in: 10...1000) / 1000))
        let decision = ReleaseDecision(
            threshold: Percent(try s.double("threshold", default: threshold, in: 0.05...0.95)),
            flickVelocity: PercentPerSecond(try s.double("flick_velocity", default: flick, in: 0...100)),
            deceleration: try s.double("deceleration", default: d.decision.deceleration, in: 0...0.9999))
        let reference = try s.reference(default: d.reference) ?? d.reference
        let size = MillimeterSize(
            widthMM: try s.double("assumed_width_mm", default: d.assumedSize.width.value, in: 10...2000),
            heightMM: try s.double("assumed_height_mm", default: d.assumedSize.height.value, in: 10...2000))
        return DeviceKindSettings(recognizer: recognizer, decision: decision, reference: reference, assumedSize: size, swipe: d.swipe)
    }

    func reference(default d: PercentReference?) throws(ConfigError) -> PercentReference? {
        let kind = try choice("reference", default: nil as String?, [("extent", "extent"), ("mm", "mm"), ("fraction", "fraction")])
        switch kind {
        case nil:
            if value("reference_mm") != nil || value("reference_fraction") != nil || value("reference_cap_mm") != nil {
                throw error("reference", "set 'reference' to \"extent\", \"mm\" or \"fraction\" to use reference_* keys")
            }
            return d
        case "extent":
            let cap = try optionalDouble("reference_cap_mm", in: 0...10_000)
            return .extent(capMM: cap == 0 ? nil : cap)
        case "mm":
            guard let mm = try optionalDouble("reference_mm", in: 1...1000) else {
                throw error("reference", "reference = \"mm\" needs 'reference_mm' (1 to 1000)")
            }
            return .millimeters(mm)
        default:
            guard let f = try optionalDouble("reference_fraction", in: 0.01...2) else {
                throw error("reference", "reference = \"fraction\" needs 'reference_fraction' (0.01 to 2)")
            }
            return .fraction(f)
        }
    }

    func containers() throws(ConfigError) -> [Container] {
        var out: [Container] = []
        for c in try tables("containers", limit: StateLimits.maxContainers) {
            try c.only(["name", "kind", "stack", "tabs", "selected", "base", "children", "active"])
            let name = try c.requiredName("name")
            if out.contains(where: { $0.name == name }) { throw c.error("name", "a container named '\(name)' already exists") }
            let kind = try c.choice("kind", default: nil as String?, [
                ("navigation", "navigation"), ("tabs", "tabs"), ("modal", "modal"), ("custom", "custom"),
            ])
            switch kind {
            case "navigation":
                let stack = try c.names("stack", limit: StateLimits.maxStackDepth, of: "scenes") ?? []
                if stack.isEmpty { throw c.error("stack", "navigation container '\(name)' needs a non-empty 'stack' (root first)") }
                out.append(Container(name: name, content: .navigation(stack: stack)))
            case "tabs":
                let tabs = try c.names("tabs", limit: StateLimits.maxChoices, of: "tabs") ?? []
                if tabs.isEmpty { throw c.error("tabs", "tabs container '\(name)' needs a non-empty 'tabs' list") }
                out.append(Container(name: name, content: .tabs(tabs: tabs, selected: try c.index("selected", in: tabs))))
            case "modal":
                out.append(Container(name: name, content: .modal(base: try c.requiredName("base"), presented: [])))
            case "custom":
                let children = try c.names("children", limit: StateLimits.maxChoices, of: "children") ?? []
                if children.isEmpty { throw c.error("children", "custom container '\(name)' needs a non-empty 'children' list") }
                out.append(Container(name: name, content: .custom(children: children, active: try c.index("active", in: children))))
            default:
                throw ConfigError(file: file, line: c.line, message: "container '\(name)' needs 'kind' (navigation, tabs, modal or custom)")
            }
        }
        return out
    }

    /// A position in `list`, given by name or by index; 0 when absent.
    func index(_ k: String, in list: [String]) throws(ConfigError) -> Int {
        guard let v = value(k) else { return 0 }
        if let i = v.int {
            guard list.indices.contains(i) else { throw error(k, "'\(k)' index \(i) is out of range 0...\(list.count - 1)") }
            return i
        }
        if let s = v.string, let i = list.firstIndex(of: s) { return i }
        throw error(k, "'\(k)' must name one of \(list.joined(separator: ", ")) or be an index (got \(v))")
    }

    func bindings(
        containers: [Container], animator defaultAnimator: Animator, springResponseMS: Double, warnings: inout [ConfigWarning]
    ) throws(ConfigError) -> [Binding] {
        var out: [Binding] = []
        for b in try tables("bindings", limit: StateLimits.maxBindings) {
            try b.only([
                "gesture", "edge", "direction", "devices", "fingers", "container", "action", "scene", "tab", "style", "frame",
                "animator", "reference", "reference_mm", "reference_fraction", "reference_cap_mm", "threshold", "flick_velocity",
            ])
            let gesture = try b.choice("gesture", default: .edge, GestureKind.allCases.map { ($0.rawValue, $0) }) ?? .edge
            var kinds: [DeviceKind] = []
            for k in try b.strings("devices") ?? [] {
                guard let kind = DeviceKind(rawValue: k) else { throw b.error("devices", "'devices' entries must be \"touchscreen\" or \"touchpad\" (got \"\(k)\")") }
                kinds.append(kind)
            }
            let trigger: GestureTrigger
            let fingers: ClosedRange<Int>
            switch gesture {
            case .edge:
                if b.value("direction") != nil {
                    throw b.error("direction", "an edge binding has no 'direction' (a multi-finger swipe binding needs gesture = \"swipe\")")
                }
                guard let edge = try b.choice("edge", default: nil, Edge.allCases.map { ($0.rawValue, $0) }) else {
                    throw ConfigError(file: file, line: b.line, message: "[[bindings]] needs 'edge' (left, right, top or bottom), or gesture = \"swipe\" and a 'direction'")
                }
                trigger = .edge(edge)
                fingers = try b.fingers()
            case .swipe:
                if b.value("edge") != nil {
                    throw b.error("edge", "a swipe binding has no 'edge': multi-finger swipes start anywhere (use 'direction')")
                }
                guard let direction = try b.choice("direction", default: nil, SwipeDirection.allCases.map { ($0.rawValue, $0) }) else {
                    throw ConfigError(file: file, line: b.line, message: "a swipe binding needs 'direction' (left, right, up or down)")
                }
                trigger = .swipe(direction)
                fingers = try b.fingers(swipe: true)
                if fingers.upperBound < 3, kinds.isEmpty || kinds.contains(.touchpad) {
                    warnings.append(b.warning(
                        "fingers", "libinput makes two fingers on a touchpad scroll, never swipe: this binding applies to touchscreens only"))
                }
            }
            let containerName = try b.required("container")
            guard let container = containers.first(where: { $0.name == containerName }) else {
                throw b.error("container", "no container named '\(containerName)' (known: \(containers.map(\.name).joined(separator: ", ")))")
            }
            let operation = try b.operation(for: container)
            var bindingAnimator: Animator? = nil
            if let v = b.value("animator") {
                if let name = v.string {
                    guard let style = Animator.Style(rawValue: name) else {
                        throw b.error("animator", "'animator' must be slide, cover or fade, or a table (got \"\(name)\")")
                    }
                    bindingAnimator = defaultAnimator
                    bindingAnimator?.style = style
                } else {
                    bindingAnimator = try animator(try b.section("animator"), base: defaultAnimator, springResponseMS: springResponseMS)
                }
            }
            let decisionOverride = b.value("threshold") != nil || b.value("flick_velocity") != nil
            var decision: ReleaseDecision? = nil
            if decisionOverride {
                decision = ReleaseDecision(
                    threshold: Percent(try b.double("threshold", default: 0.5, in: 0.05...0.95)),
                    flickVelocity: PercentPerSecond(try b.double("flick_velocity", default: 0.3, in: 0...100)),
                    deceleration: kinds == [.touchpad] ? 0.997 : 0.998)
            }
            out.append(Binding(
                trigger: trigger, deviceKinds: kinds, fingers: fingers, container: containerName, operation: operation,
                animator: bindingAnimator, reference: try b.reference(default: nil), decision: decision))
        }
        return out
    }

    /// An edge binding's finger range (1...10, all by default); a swipe binding's (2...5: libinput reports swipes
    /// of up to five fingers; 3 by default, as GNOME Shell's `GESTURE_FINGER_COUNT`).
    func fingers(swipe: Bool = false) throws(ConfigError) -> ClosedRange<Int> {
        let allowed = swipe ? 2...5 : 1...10
        let kind = swipe ? "a swipe binding's 'fingers'" : "'fingers'"
        guard let v = value("fingers") else { return swipe ? 3...3 : 1...10 }
        if let n = v.int {
            guard allowed.contains(n) else {
                throw error("fingers", "\(kind) must be from \(allowed.lowerBound) to \(allowed.upperBound) (got \(n))")
            }
            return n...n
        }
        if let a = v.array, a.count == 2, let lo = a[0].int, let hi = a[1].int, allowed.lowerBound <= lo, lo <= hi, hi <= allowed.upperBound {
            return lo...hi
        }
        throw error("fingers", "\(kind) must be a count (\(swipe ? 3 : 1)) or a range [min, max] within \(allowed.lowerBound)...\(allowed.upperBound) (got \(v))")
    }

    func operation(for container: Container) throws(ConfigError) -> TransitionOperation {
        let action = try required("action")
        let op: TransitionOperation
        switch action {
        case "pop": op = .pop
        case "pop-to-root": op = .popToRoot
        case "push": op = .push(scene: try requiredName("scene"))
        case "next-tab": op = .nextTab
        case "previous-tab": op = .previousTab
        case "select-tab":
            guard case .tabs(let tabs, _) = container.content else { op = .selectTab(index: 0); break }
            op = .selectTab(index: try index("tab", in: tabs))
        case "present":
            let style = try choice("style", default: .fullScreen, PresentationStyle.allCases.map { ($0.rawValue, $0) }) ?? .fullScreen
            var frame: NormalizedRect? = nil
            if let f = try numbers("frame") {
                guard f.count == 4 else { throw error("frame", "'frame' must be [x, y, width, height] in the container's unit square") }
                let rect = NormalizedRect(x: f[0], y: f[1], width: f[2], height: f[3])
                if let problem = rect.validationProblem { throw error("frame", "'frame': \(problem)") }
                frame = rect
            }
            op = .present(scene: try requiredName("scene"), style: style, frame: frame)
        case "dismiss": op = .dismiss
        case "show": op = .show(child: try requiredName("scene"))
        default:
            throw error("action", "'action' must be one of pop, pop-to-root, push, next-tab, previous-tab, select-tab, present, dismiss, show (got \"\(action)\")")
        }
        if !container.content.accepts(op) {
            throw error("action", "a \(container.content.kind) container ('\(container.name)') cannot '\(action)'")
        }
        if case .show(let child) = op, case .custom(let children, _) = container.content, !children.contains(child) {
            throw error("scene", "custom container '\(container.name)' has no child '\(child)'")
        }
        return op
    }

    func overrides() throws(ConfigError) -> [DeviceOverride] {
        var out: [DeviceOverride] = []
        for o in try tables("override") {
            try o.only(["match", "rotation", "calibration", "output"])
            var rotation: Rotation? = nil
            var auto = false
            if let value = o.value("rotation") {
                if value.string == "auto" {
                    auto = true
                } else if let degrees = value.int, let r = Rotation(rawValue: degrees) {
                    rotation = r
                } else {
                    throw o.error("rotation", "'rotation' must be 0, 90, 180, 270 or \"auto\" (got \(value))")
                }
            }
            let output = try o.string("output", default: nil, nonEmpty: true)
            if let output, let problem = StateLimits.nameProblem(output) { throw o.error("output", "'output' \(problem)") }
            var calibration: CalibrationMatrix? = nil
            if let values = try o.numbers("calibration") {
                guard let m = CalibrationMatrix(values: values) else {
                    throw o.error("calibration", "'calibration' must be 6 numbers [a, b, c, d, e, f] (got \(values.count))")
                }
                calibration = m
            }
            out.append(DeviceOverride(
                match: try o.required("match"), rotation: rotation, followsAccelerometer: auto, calibration: calibration,
                output: output))
        }
        return out
    }
}
