import EdgeSwipeCore
import EdgeSwipeTOML

extension EdgeSwipeSettings {
    /// The effective configuration as TOML: every key with the value in force, defaults included. Parsing the
    /// output gives these settings back (`edgeswiped --check-config` prints it).
    public func renderTOML() -> String {
        var out = "# Effective EdgeSwipe configuration\nversion = 1\n"
        // No [[containers]] or [[bindings]] at all reads as the defaults: a file that turned them all off
        // (`bindings = []`) says so, before the first table (found by `scripts/fuzz.sh config`).
        if engine.containers.isEmpty { out += "containers = []\n" }
        if engine.bindings.isEmpty { out += "bindings = []\n" }
        out += "\n[daemon]\n"
        out += "tick_hz = \(daemon.tickHz)\nseat = \(q(daemon.seat))\nmax_clients = \(daemon.maxClients)\n"
        out += "max_clients_per_user = \(daemon.maxClientsPerUser)\n"
        out += "stall_timeout_s = \(daemon.stallTimeoutSeconds)\n\n[transition]\n"
        out += "threshold = \(n(engine.touchscreen.decision.threshold.value))\n"
        out += "flick_velocity = \(n(engine.touchscreen.decision.flickVelocity.value))\n"
        out += "completion_speed = \(n(engine.completionSpeed))\n"
        out += "completion_curve = \(q(engine.completionCurve.name))\n"
        out += "spring_response_ms = \(n(springMS))\n"
        switch engine.overscroll {
        case .none:
            out += "overscroll = \"none\"\n"
        case .rubberBand(let band):
            out += "overscroll = \"rubber-band\"\nrubber_band_stiffness = \(n(band.stiffness))\n"
            out += "rubber_band_limit = \(n(band.limit.value))\n"
        }
        out += "\n[transition.animator]\n"
        out += animatorKeys(engine.animator)
        for (kind, s) in [(DeviceKind.touchscreen, engine.touchscreen), (.touchpad, engine.touchpad)] {
            out += "\n[\(kind.rawValue)]\n"
            out += "edge_zone_mm = \(n(s.recognizer.zone.value))\nedge_zone_fraction = \(n(s.recognizer.zoneFraction))\n"
            out += "hysteresis_mm = \(n(s.recognizer.hysteresis.value))\n"
            out += "angle_tolerance_deg = \(n(s.recognizer.angleToleranceDegrees))\n"
            out += "scroll_edges = \(list(s.recognizer.scrollEdges.members.map(\.rawValue)))\n"
            out += "velocity_window_ms = \(n(s.recognizer.velocityWindow.seconds * 1000))\n"
            out += "threshold = \(n(s.decision.threshold.value))\nflick_velocity = \(n(s.decision.flickVelocity.value))\n"
            out += "deceleration = \(n(s.decision.deceleration))\n"
            out += referenceKeys(s.reference)
            out += "assumed_width_mm = \(n(s.assumedSize.width.value))\nassumed_height_mm = \(n(s.assumedSize.height.value))\n"
        }
        for c in engine.containers {
            out += "\n[[containers]]\nname = \(q(c.name))\nkind = \(q(c.content.kind))\n"
            switch c.content {
            case .navigation(let stack): out += "stack = \(list(stack))\n"
            case .tabs(let tabs, let selected): out += "tabs = \(list(tabs))\nselected = \(selected)\n"
            case .modal(let base, _): out += "base = \(q(base))\n"
            case .custom(let children, let active): out += "children = \(list(children))\nactive = \(active)\n"
            }
        }
        for b in engine.bindings {
            switch b.trigger {
            case .edge(let edge):
                out += "\n[[bindings]]\nedge = \(q(edge.rawValue))\n"
            case .swipe(let direction):
                out += "\n[[bindings]]\ngesture = \"swipe\"\ndirection = \(q(direction.rawValue))\n"
            }
            if !b.deviceKinds.isEmpty { out += "devices = \(list(b.deviceKinds.map(\.rawValue)))\n" }
            if b.fingers != (b.direction == nil ? 1...10 : 3...3) {
                out += "fingers = [\(b.fingers.lowerBound), \(b.fingers.upperBound)]\n"
            }
            out += "container = \(q(b.container))\n"
            switch b.operation {
            case .push(let scene): out += "action = \"push\"\nscene = \(q(scene))\n"
            case .pop: out += "action = \"pop\"\n"
            case .popToRoot: out += "action = \"pop-to-root\"\n"
            case .selectTab(let index): out += "action = \"select-tab\"\ntab = \(index)\n"
            case .nextTab: out += "action = \"next-tab\"\n"
            case .previousTab: out += "action = \"previous-tab\"\n"
            case .present(let scene, let style, let frame):
                out += "action = \"present\"\nscene = \(q(scene))\nstyle = \(q(style.rawValue))\n"
                if let f = frame { out += "frame = [\(n(f.x)), \(n(f.y)), \(n(f.width)), \(n(f.height))]\n" }
            case .dismiss: out += "action = \"dismiss\"\n"
            case .show(let child): out += "action = \"show\"\nscene = \(q(child))\n"
            }
            if let r = b.reference { out += referenceKeys(r) }
            if let d = b.decision { out += "threshold = \(n(d.threshold.value))\nflick_velocity = \(n(d.flickVelocity.value))\n" }
            if let a = b.animator {
                out += "animator = { " + animatorKeys(a).split(separator: "\n").joined(separator: ", ") + " }\n"
            }
        }
        out += "\n[devices]\nallow = \(list(devices.allow))\ndeny = \(list(devices.deny))\n"
        for o in devices.overrides {
            out += "\n[[devices.override]]\nmatch = \(q(o.match))\n"
            if o.followsAccelerometer { out += "rotation = \"auto\"\n" } else if let r = o.rotation { out += "rotation = \(r.rawValue)\n" }
            if let output = o.output { out += "output = \(q(output))\n" }
            if let c = o.calibration { out += "calibration = [\(c.values.map(n).joined(separator: ", "))]\n" }
        }
        out += "\n[access]\nread = \(list(access.read.map(\.rawValue)))\ncontrol = \(list(access.control.map(\.rawValue)))\n"
        out += "read_uids = \(ids(access.readUIDs))\nread_gids = \(ids(access.readGIDs))\n"
        out += "control_uids = \(ids(access.controlUIDs))\ncontrol_gids = \(ids(access.controlGIDs))\n"
        return out
    }

    private var springMS: Double {
        for c in [engine.completionCurve, engine.animator.curve] { if case .spring(let r) = c { return r.seconds * 1000 } }
        if case .rubberBand(let band) = engine.overscroll { return band.springResponse.seconds * 1000 }
        return 300
    }

    private func animatorKeys(_ a: Animator) -> String {
        "style = \(q(a.style.rawValue))\nduration_ms = \(n(a.duration.seconds * 1000))\ncurve = \(q(a.curve.name))\ndimming_alpha = \(n(a.dimmingAlpha))\n"
    }

    private func referenceKeys(_ r: PercentReference) -> String {
        switch r {
        case .extent(let cap): "reference = \"extent\"\nreference_cap_mm = \(n(cap ?? 0))\n"
        case .millimeters(let mm): "reference = \"mm\"\nreference_mm = \(n(mm))\n"
        case .fraction(let f): "reference = \"fraction\"\nreference_fraction = \(n(f))\n"
        }
    }

    private func q(_ s: String) -> String { TOMLValue.quoted(s) }
    private func n(_ x: Double) -> String { "\(x)" }
    private func list(_ items: [String]) -> String { "[" + items.map(q).joined(separator: ", ") + "]" }
    private func ids(_ items: [UInt32]) -> String { "[" + items.map(String.init).joined(separator: ", ") + "]" }
}
