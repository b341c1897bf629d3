import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeSystem

/// Draws ``PlotData`` as one SVG of four figures, each with a title, axes with units and a legend:
/// 1. the touches on each device, to scale, over its shaded edge zones;
/// 2. percent against time for every transition (threshold, release, projection, decision, run-out, re-grabs);
/// 3. release velocity against time;
/// 4. the swipes that were blocked or failed, with the reason.
///
/// Elements a test or a script may look for carry a class: `percent-curve` (one per transition, with
/// `data-transition`), `run-out`, `release`, `projection` (with `data-projected`, the engine's value at full
/// precision), `threshold`, `decision`, `regrab`, `finger`, `zone`, `attempt`.
public struct PlotRenderer {
    public var title: String
    public static let width = 1000.0

    public init(title: String) {
        self.title = title
    }

    static let finishColor = "#2a9d4b"
    static let cancelColor = "#d1495b"
    static let blockedColor = "#e07b00"
    static let fingerColors = ["#1f77b4", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"]
    static let muted = "#666"

    public func svg(_ data: PlotData) -> String {
        var w = SVGWriter(width: Self.width, height: 0)
        w.begin("defs")
        w.begin("marker", [("id", "arrow"), ("viewBox", "0 0 10 10"), ("refX", 9), ("refY", 5), ("markerWidth", 7), ("markerHeight", 7), ("orient", "auto-start-reverse")])
        w.element("path", [("d", "M0,0 L10,5 L0,10 z"), ("fill", "context-stroke")])
        w.end()
        w.end()
        w.element("rect", [("x", 0), ("y", 0), ("width", Self.width), ("height", "100%"), ("fill", "white")])
        var y = 30.0
        w.element("text", [("x", 20), ("y", y), ("font-size", 18), ("font-weight", "bold")], text: Self.fitted(title, width: Self.width - 40, fontSize: 18, bold: true))
        y += 20
        w.element("text", [("x", 20), ("y", y), ("fill", Self.muted)], text: summary(data))
        y += 20
        y = devices(data, into: &w, at: y)
        y = percents(data, into: &w, at: y)
        y = velocities(data, into: &w, at: y)
        y = attempts(data, into: &w, at: y)
        w.height = y + 20
        return w.document()
    }

    private func summary(_ data: PlotData) -> String {
        let completed = data.transitions.filter { $0.outcome == .completed }.count
        let cancelled = data.transitions.filter { $0.outcome == .cancelled }.count
        let seconds = duration(data)
        return "\(data.devices.count) device\(plural(data.devices.count)), \(fixed(seconds, 2)) s; "
            + "\(data.transitions.count) transition\(plural(data.transitions.count)) (\(completed) completed, \(cancelled) cancelled); "
            + "\(data.attempts.count) swipe\(plural(data.attempts.count)) blocked or failed"
    }

    private func duration(_ data: PlotData) -> Double {
        guard let s = data.start, let e = data.end else { return 0 }
        return (e - s).seconds
    }

    // MARK: - 1. The devices

    private func devices(_ data: PlotData, into w: inout SVGWriter, at top: Double) -> Double {
        var y = heading("1. Touches on each device, to scale, with the edge zones shaded", into: &w, at: top)
        y = legend([
            .swatch("#f4a261", 0.45, "edge zone (an edge with a binding)"),
            .line(Self.fingerColors[0], false, "finger path"),
            .marker(.landing, "#333", "landing"),
            .marker(.began, "#000", "gesture began"),
            .marker(.lift, "#333", "lift"),
            .marker(.cancel, "#333", "touch cancelled"),
            .marker(.attempt, Self.blockedColor, "blocked or failed (figure 4)"),
        ], into: &w, at: y)
        guard !data.devices.isEmpty else { return note("No touch device in the recording.", into: &w, at: y) }
        let panelWidth = (Self.width - 40) / Double(min(2, data.devices.count))
        var rowHeight = 0.0
        for (i, track) in data.devices.enumerated() {
            let column = i % 2
            if column == 0 && i > 0 {
                y += rowHeight
                rowHeight = 0
            }
            let h = device(track, attempts: data.attempts.filter { $0.device == track.device.id }, origin: data.start ?? .zero, into: &w, x: 20 + Double(column) * panelWidth, y: y, width: panelWidth)
            rowHeight = max(rowHeight, h)
        }
        return y + rowHeight + 10
    }

    private func device(
        _ track: PlotData.DeviceTrack, attempts: [PlotData.Attempt], origin: MonotonicInstant, into w: inout SVGWriter,
        x: Double, y: Double, width: Double
    ) -> Double {
        let d = track.device
        let known = d.hasPhysicalSize
        let size = d.size
        let aspect = size.height.value / max(size.width.value, 1e-9)
        let boxWidth = min(width - 90, 320 / max(aspect, 1e-3))
        let boxHeight = boxWidth * aspect
        let left = x + 60
        let topY = y + 36
        let sizeText = known
            ? "\(fixed(size.width.value, 1)) × \(fixed(size.height.value, 1)) mm"
            : "size unknown: axes are fractions of the surface (drawn at the assumed \(fixed(size.width.value, 0)) × \(fixed(size.height.value, 0)) mm)"
        w.element("text", [("x", x), ("y", y + 14), ("font-weight", "bold")], text: "\(d.name) (\(d.kind.rawValue), device \(d.id.rawValue))")
        w.element("text", [("x", x), ("y", y + 28), ("fill", Self.muted), ("font-size", 11)], text: sizeText)
        let xs = LinearScale(domain: 0...(known ? size.width.value : 1), range: left...(left + boxWidth))
        let ys = LinearScale(domain: 0...(known ? size.height.value : 1), range: topY...(topY + boxHeight))
        func px(_ p: NormalizedPoint) -> (Double, Double) { (left + p.x * boxWidth, topY + p.y * boxHeight) }

        w.begin("g", [("class", "device"), ("data-device", Double(d.id.rawValue))])
        w.element("rect", [("x", left), ("y", topY), ("width", boxWidth), ("height", boxHeight), ("fill", "#fafafa"), ("stroke", "#333")])
        for zone in track.zones {
            let f = zone.fraction
            let r: (Double, Double, Double, Double)
            switch zone.edge {
            case .left: r = (left, topY, f * boxWidth, boxHeight)
            case .right: r = (left + (1 - f) * boxWidth, topY, f * boxWidth, boxHeight)
            case .top: r = (left, topY, boxWidth, f * boxHeight)
            case .bottom: r = (left, topY + (1 - f) * boxHeight, boxWidth, f * boxHeight)
            }
            w.element("rect", [("class", "zone"), ("data-edge", zone.edge.rawValue), ("x", r.0), ("y", r.1), ("width", r.2), ("height", r.3), ("fill", "#f4a261"), ("fill-opacity", 0.45)])
        }
        axes(x: xs, y: ys, xLabel: known ? "x (mm)" : "x (fraction of width)", yLabel: known ? "y (mm, downward)" : "y (fraction, downward)", into: &w)
        for (i, finger) in track.fingers.enumerated() {
            let color = Self.fingerColors[i % Self.fingerColors.count]
            let points = finger.points.map(px)
            w.element("polyline", [("class", "finger"), ("points", SVGWriter.points(points)), ("fill", "none"), ("stroke", color), ("stroke-width", 1.5), ("stroke-opacity", 0.8)])
            if let first = points.first { marker(.landing, at: first, color: color, into: &w) }
            if let last = points.last, let lifted = finger.lifted {
                marker(lifted == .cancel ? .cancel : .lift, at: last, color: color, into: &w)
            }
        }
        for mark in track.began {
            w.begin("g", [("class", "began")])
            w.title("gesture began at \(fixed((mark.time - origin).seconds, 3)) s: \(mark.label)")
            marker(.began, at: px(mark.location), color: "#000", into: &w)
            w.end()
        }
        for a in attempts {
            marker(.attempt, at: px(a.location), color: color(for: a.outcome), into: &w)
        }
        w.end()
        return boxHeight + 36 + 50
    }

    // MARK: - 2. Percent against time

    private func percents(_ data: PlotData, into w: inout SVGWriter, at top: Double) -> Double {
        var y = heading("2. Percent against time, one panel per transition (time from its start)", into: &w, at: top)
        y = legend([
            .line("#1f77b4", false, "percent driven by the finger"),
            .line(Self.finishColor, true, "run-out (its animation spec)"),
            .line("#999", true, "threshold"),
            .marker(.release, "#000", "release"),
            .arrow("#000", "projected percent the decision used"),
            .marker(.regrab, "#000", "re-grab"),
        ], into: &w, at: y)
        guard !data.transitions.isEmpty else { return note("No transition ran.", into: &w, at: y) }
        let columns = 3
        let panelWidth = (Self.width - 40) / Double(columns)
        let panelHeight = 212.0
        for (i, t) in data.transitions.enumerated() {
            let col = i % columns
            let row = i / columns
            transition(t, origin: data.start ?? .zero, into: &w, x: 20 + Double(col) * panelWidth, y: y + Double(row) * panelHeight, width: panelWidth, height: panelHeight)
        }
        let rows = (data.transitions.count + columns - 1) / columns
        return y + Double(rows) * panelHeight + 10
    }

    private func transition(_ t: PlotData.TransitionTrack, origin start: MonotonicInstant, into w: inout SVGWriter, x: Double, y: Double, width: Double, height: Double) {
        let origin = t.began
        func ms(_ time: MonotonicInstant) -> Double { Double((time - origin).value) / 1000 }
        var lastTime = t.ended ?? origin
        for segment in t.segments { if let s = segment.last?.time, s > lastTime { lastTime = s } }
        for r in t.runOuts { lastTime = max(lastTime, MonotonicInstant(microseconds: r.animation.endTimeUS)) }
        var low = 0.0
        var high = 1.0
        for r in t.releases { if let j = r.judgement { low = min(low, j.projected.value); high = max(high, j.projected.value) } }
        low = max(-1, low - 0.05)
        high = min(2, high + 0.05)
        let plotLeft = x + 44
        let plotRight = x + width - 12
        // Three lines above the plot: what ran, what drove it and how it ended, and what the release decided. The
        // decision is said there, not beside its arrow, where it sat on the finger's curve and the run-out.
        let plotTop = y + 48
        let plotBottom = y + height - 40
        let xs = LinearScale(domain: 0...max(ms(lastTime) * 1.04, 10), range: plotLeft...plotRight)
        let ys = LinearScale(domain: low...high, range: plotTop...plotBottom, flipped: true)

        w.begin("g", [("class", "transition"), ("data-transition", Double(t.id.rawValue))])
        let outcome = t.outcome.map { $0.rawValue } ?? "still running at the end of the recording"
        w.begin("g")
        w.title("\(t.title) (\(t.trigger))")
        w.element("text", [("class", "panel-title"), ("x", x + 4), ("y", y + 14), ("font-size", 10.5), ("font-weight", "bold")], text: Self.fitted(t.title, width: width - 8, fontSize: 10.5, bold: true))
        w.end()
        w.element("text", [("x", x + 4), ("y", y + 27), ("font-size", 10.5), ("fill", t.outcome == .completed ? Self.finishColor : Self.cancelColor)],
                  text: Self.fitted("\(t.trigger) from \(fixed((t.began - start).seconds, 3)) s: \(outcome)", width: width - 8, fontSize: 10.5))
        let decisions = t.releases.map { r -> String in
            guard let j = r.judgement else { return "touch cancelled → cancel" }
            return "projected \(percent(j.projected.value)) \(j.finishes ? "≥" : "<") \(percent(j.threshold.value)) → \(j.finishes ? "finish" : "cancel")"
        }
        if !decisions.isEmpty {
            let finishes = t.releases.last?.judgement?.finishes ?? false
            w.element("text", [("class", "decision"), ("x", x + 4), ("y", y + 40), ("font-size", 10), ("fill", finishes ? Self.finishColor : Self.cancelColor)],
                      text: Self.fitted(decisions.joined(separator: "; then "), width: width - 8, fontSize: 10))
        }
        axes(x: xs, y: ys, xLabel: "time since start (ms)", yLabel: "percent", into: &w, yFormat: { "\(Int(($0 * 100).rounded()))%" }, tickCount: 4)
        for r in t.releases {
            guard let j = r.judgement else { continue }
            let ty = ys(j.threshold.value)
            w.element("line", [("class", "threshold"), ("x1", plotLeft), ("x2", plotRight), ("y1", ty), ("y2", ty), ("stroke", "#999"), ("stroke-dasharray", "4 3")])
            break
        }
        // The finger: one path per transition, a subpath per stretch the finger drove (a re-grab starts another).
        var d = ""
        for segment in t.segments where !segment.isEmpty {
            d += SVGWriter.points(segment.map { (xs(ms($0.time)), ys($0.percent.value)) }, path: true)
        }
        w.element("path", [("class", "percent-curve"), ("data-transition", Double(t.id.rawValue)), ("d", d.isEmpty ? "M0,0" : d), ("fill", "none"), ("stroke", "#1f77b4"), ("stroke-width", 2)])
        for run in t.runOuts {
            let a = run.animation
            let end = run.caught.map { min($0.microseconds, a.endTimeUS) } ?? a.endTimeUS
            let steps = 48
            var points: [(Double, Double)] = []
            for k in 0...steps {
                let us = a.startTimeUS + (end > a.startTimeUS ? (end - a.startTimeUS) * UInt64(k) / UInt64(steps) : 0)
                points.append((xs(ms(MonotonicInstant(microseconds: us))), ys(a.percent(atTimeUS: us))))
            }
            let color = a.toPercent >= 1 ? Self.finishColor : Self.cancelColor
            w.begin("g", [("class", "run-out")])
            w.title("run-out: \(a.curve) over \(a.durationUS / 1000) ms from \(percent(a.fromPercent)) to \(percent(a.toPercent))\(run.caught == nil ? "" : ", caught")")
            w.element("polyline", [("points", SVGWriter.points(points)), ("fill", "none"), ("stroke", color), ("stroke-width", 2), ("stroke-dasharray", "5 3")])
            w.end()
        }
        for r in t.releases {
            let p = (xs(ms(r.time)), ys(r.percent.value))
            if let j = r.judgement {
                let target = ys(j.projected.value)
                if abs(target - p.1) > 0.5 {
                    w.element("line", [("class", "projection"), ("data-projected", "\(j.projected.value)"), ("data-release", "\(r.percent.value)"), ("x1", p.0), ("y1", p.1), ("x2", p.0), ("y2", target), ("stroke", "#000"), ("stroke-width", 1.2), ("marker-end", "url(#arrow)")])
                } else {
                    w.element("line", [("class", "projection"), ("data-projected", "\(j.projected.value)"), ("data-release", "\(r.percent.value)"), ("x1", p.0), ("y1", p.1), ("x2", p.0), ("y2", target), ("stroke", "none")])
                }
            }
            w.begin("g", [("class", "release")])
            w.title("released at \(percent(r.percent.value)), \(fixed(r.velocity.value * 100, 0)) %/s")
            marker(.release, at: p, color: "#000", into: &w)
            w.end()
        }
        for g in t.regrabs {
            w.begin("g", [("class", "regrab")])
            w.title("re-grabbed at \(percent(g.percent.value))")
            marker(.regrab, at: (xs(ms(g.time)), ys(g.percent.value)), color: "#000", into: &w)
            w.end()
        }
        w.end()
    }

    // MARK: - 3. Release velocity

    private func velocities(_ data: PlotData, into w: inout SVGWriter, at top: Double) -> Double {
        var y = heading("3. Release velocity against time", into: &w, at: top)
        y = legend([
            .line("#9ab", false, "velocity while the finger drives a transition"),
            .marker(.release, Self.finishColor, "release that finished"),
            .marker(.release, Self.cancelColor, "release that cancelled"),
            .line("#999", true, "flick threshold (slower counts as at rest)"),
        ], into: &w, at: y)
        let releases = data.transitions.flatMap { t in t.releases.map { (t.id, $0) } }
        guard let start = data.start, !data.transitions.isEmpty else { return note("No transition ran.", into: &w, at: y) }
        func seconds(_ t: MonotonicInstant) -> Double { (t - start).seconds }
        var low = 0.0
        var high = 0.0
        for t in data.transitions { for v in t.velocities { low = min(low, v.velocity.value); high = max(high, v.velocity.value) } }
        var flicks: Set<Double> = []
        for (_, r) in releases {
            low = min(low, r.velocity.value)
            high = max(high, r.velocity.value)
            if let j = r.judgement { flicks.insert(j.flickVelocity.value) }
        }
        for f in flicks { low = min(low, -f); high = max(high, f) }
        let pad = max((high - low) * 0.08, 0.1)
        let height = 220.0
        let xs = LinearScale(domain: 0...max(duration(data), 0.1), range: 80...(Self.width - 30))
        let ys = LinearScale(domain: (low - pad)...(high + pad), range: y...(y + height), flipped: true)
        axes(x: xs, y: ys, xLabel: "time since the recording's start (s)", yLabel: "velocity (%/s)", into: &w, yFormat: { "\(Int(($0 * 100).rounded()))" })
        let zero = ys(0)
        w.element("line", [("x1", 80), ("x2", Self.width - 30), ("y1", zero), ("y2", zero), ("stroke", "#ccc")])
        for f in flicks.sorted() {
            for v in [f, -f] {
                w.element("line", [("class", "flick"), ("x1", 80), ("x2", Self.width - 30), ("y1", ys(v)), ("y2", ys(v)), ("stroke", "#999"), ("stroke-dasharray", "4 3")])
            }
        }
        for t in data.transitions where !t.velocities.isEmpty {
            w.element("polyline", [("class", "velocity"), ("points", SVGWriter.points(t.velocities.map { (xs(seconds($0.time)), ys($0.velocity.value)) })), ("fill", "none"), ("stroke", "#9ab"), ("stroke-width", 1.2)])
        }
        for (id, r) in releases {
            let color = (r.judgement?.finishes ?? false) ? Self.finishColor : Self.cancelColor
            let p = (xs(seconds(r.time)), ys(r.velocity.value))
            w.begin("g", [("class", "release-velocity")])
            w.title("#\(id.rawValue) released at \(fixed(seconds(r.time), 3)) s, \(fixed(r.velocity.value * 100, 0)) %/s")
            marker(.release, at: p, color: color, into: &w)
            w.element("text", [("x", p.0 + 5), ("y", p.1 - 5), ("font-size", 10), ("fill", color)], text: "#\(id.rawValue)")
            w.end()
        }
        return y + height + 50
    }

    // MARK: - 4. Swipes that went nowhere

    private func attempts(_ data: PlotData, into w: inout SVGWriter, at top: Double) -> Double {
        var y = heading("4. Swipes that were blocked or failed, and why", into: &w, at: top)
        guard !data.attempts.isEmpty else {
            return note("None: every touch that landed in an edge zone and moved drove a transition.", into: &w, at: y)
        }
        let start = data.start ?? .zero
        w.element("text", [("x", 20), ("y", y + 4), ("font-weight", "bold"), ("font-size", 11)], text: "time (s)")
        w.element("text", [("x", 90), ("y", y + 4), ("font-weight", "bold"), ("font-size", 11)], text: "device")
        w.element("text", [("x", 150), ("y", y + 4), ("font-weight", "bold"), ("font-size", 11)], text: "swipe")
        w.element("text", [("x", 300), ("y", y + 4), ("font-weight", "bold"), ("font-size", 11)], text: "what happened")
        y += 20
        for a in data.attempts {
            w.begin("g", [("class", "attempt"), ("data-outcome", a.outcome.kind)])
            marker(.attempt, at: (12, y - 4), color: color(for: a.outcome), into: &w)
            w.element("text", [("x", 20), ("y", y), ("font-size", 11)], text: fixed((a.time - start).seconds, 3))
            w.element("text", [("x", 90), ("y", y), ("font-size", 11)], text: "\(a.device.rawValue)")
            w.element("text", [("x", 150), ("y", y), ("font-size", 11)], text: a.gesture)
            w.element("text", [("x", 300), ("y", y), ("font-size", 11), ("fill", color(for: a.outcome))], text: a.outcome.explanation)
            w.end()
            y += 16
        }
        return y + 10
    }

    // MARK: - Pieces

    private func color(for outcome: PlotData.Attempt.Outcome) -> String {
        switch outcome {
        case .blocked: Self.blockedColor
        case .failed: Self.cancelColor
        }
    }

    private func heading(_ text: String, into w: inout SVGWriter, at y: Double) -> Double {
        w.element("text", [("x", 20), ("y", y + 22), ("font-size", 15), ("font-weight", "bold")], text: text)
        return y + 34
    }

    private func note(_ text: String, into w: inout SVGWriter, at y: Double) -> Double {
        w.element("text", [("x", 20), ("y", y + 10), ("fill", Self.muted)], text: text)
        return y + 30
    }

    enum Marker { case landing, began, lift, cancel, release, regrab, attempt }

    enum LegendItem {
        case swatch(String, Double, String)
        case line(String, Bool, String)
        case marker(Marker, String, String)
        case arrow(String, String)
    }

    private func legend(_ items: [LegendItem], into w: inout SVGWriter, at y: Double) -> Double {
        var x = 24.0
        var row = y + 4
        w.begin("g", [("class", "legend")])
        for item in items {
            let label: String
            switch item {
            case .swatch(let c, let o, let l): label = l
                w.element("rect", [("x", x), ("y", row - 9), ("width", 16), ("height", 10), ("fill", c), ("fill-opacity", o)])
            case .line(let c, let dashed, let l): label = l
                w.element("line", [("x1", x), ("x2", x + 16), ("y1", row - 4), ("y2", row - 4), ("stroke", c), ("stroke-width", 2), ("stroke-dasharray", dashed ? "4 3" : "none")])
            case .marker(let m, let c, let l): label = l
                marker(m, at: (x + 8, row - 4), color: c, into: &w)
            case .arrow(let c, let l): label = l
                w.element("line", [("x1", x), ("x2", x + 16), ("y1", row - 4), ("y2", row - 4), ("stroke", c), ("marker-end", "url(#arrow)")])
            }
            w.element("text", [("x", x + 22), ("y", row), ("font-size", 11)], text: label)
            x += 22 + Double(label.count) * 6.2 + 18
            if x > Self.width - 200 {
                x = 24
                row += 16
            }
        }
        w.end()
        return row + 14
    }

    private func marker(_ m: Marker, at p: (Double, Double), color: String, into w: inout SVGWriter) {
        let (x, y) = p
        let c = color
        let n = SVGWriter.number
        switch m {
        case .landing:
            w.element("circle", [("cx", x), ("cy", y), ("r", 4), ("fill", "white"), ("stroke", c), ("stroke-width", 1.5)])
        case .began:
            w.element("path", [("d", "M\(n(x)),\(n(y - 6))l5,9h-10z"), ("fill", c)])
        case .lift:
            w.element("rect", [("x", x - 3.5), ("y", y - 3.5), ("width", 7), ("height", 7), ("fill", c)])
        case .cancel, .attempt:
            let s = m == .attempt ? 5.0 : 4.0
            w.element("path", [("d", "M\(n(x - s)),\(n(y - s))l\(n(2 * s)),\(n(2 * s))m0,\(n(-2 * s))l\(n(-2 * s)),\(n(2 * s))"), ("stroke", c), ("stroke-width", 2.2)])
        case .release:
            w.element("circle", [("cx", x), ("cy", y), ("r", 4), ("fill", c)])
        case .regrab:
            w.element("circle", [("cx", x), ("cy", y), ("r", 6), ("fill", "none"), ("stroke", c), ("stroke-width", 1.5)])
        }
    }

    /// Axes at the bottom and left of the scales' ranges, with ticks, tick labels and the axis labels (units).
    private func axes(
        x xs: LinearScale, y ys: LinearScale, xLabel: String, yLabel: String, into w: inout SVGWriter,
        yFormat: ((Double) -> String)? = nil, tickCount: Int = 6
    ) {
        let left = xs.range.lowerBound
        let right = xs.range.upperBound
        let top = ys.range.lowerBound
        let bottom = ys.range.upperBound
        w.begin("g", [("class", "axes"), ("stroke", "#333"), ("font-size", 10)])
        w.element("line", [("x1", left), ("x2", right), ("y1", bottom), ("y2", bottom)])
        w.element("line", [("x1", left), ("x2", left), ("y1", top), ("y2", bottom)])
        for t in xs.ticks(tickCount) {
            let px = xs(t)
            w.element("line", [("x1", px), ("x2", px), ("y1", bottom), ("y2", bottom + 4)])
            w.element("text", [("x", px), ("y", bottom + 14), ("text-anchor", "middle"), ("stroke", "none")], text: Self.tick(t))
        }
        for t in ys.ticks(tickCount) {
            let py = ys(t)
            w.element("line", [("x1", left - 4), ("x2", left), ("y1", py), ("y2", py)])
            w.element("text", [("x", left - 6), ("y", py + 3), ("text-anchor", "end"), ("stroke", "none")], text: yFormat?(t) ?? Self.tick(t))
        }
        w.element("text", [("x", (left + right) / 2), ("y", bottom + 28), ("text-anchor", "middle"), ("stroke", "none"), ("font-size", 11)], text: xLabel)
        let cy = (top + bottom) / 2
        w.element("text", [("x", left - 34), ("y", cy), ("text-anchor", "middle"), ("stroke", "none"), ("font-size", 11), ("transform", "rotate(-90 \(SVGWriter.number(left - 34)) \(SVGWriter.number(cy)))")], text: yLabel)
        w.end()
    }

    static func tick(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        return r == r.rounded() ? String(Int(r)) : SVGWriter.number(r)
    }

    private func percent(_ v: Double) -> String { "\(Int((v * 100).rounded()))%" }

    /// `text`, cut with `…` where it would pass `width` at `fontSize` (the full text is in the element's `<title>`).
    /// The width is estimated: DejaVu Sans, the font rsvg-convert and browsers fall back to here, averages about
    /// 0.55 em a character in this kind of text (0.62 em bold); nothing is measured, so the estimate errs wide.
    static func fitted(_ text: String, width: Double, fontSize: Double, bold: Bool = false) -> String {
        let room = Int(width / (fontSize * (bold ? 0.62 : 0.58)))
        return text.count > room ? String(text.prefix(max(1, room - 1))) + "…" : text
    }
    private func fixed(_ v: Double, _ digits: Int) -> String { String(cFormat: "%.\(digits)f", v) }
    private func plural(_ n: Int) -> String { n == 1 ? "" : "s" }
}
