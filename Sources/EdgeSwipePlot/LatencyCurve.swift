import Glibc

/// Latency against client count, drawn as `edgeswipe-bench` measured it: p50 and p99 for each client count on
/// log-log axes, the same run's 1-hop floor beside them, and each target as the latency it allows (a ratio to that
/// floor), so a reader sees at once which counts meet their target and by how much the others miss.
///
/// Log axes because the counts span three decades and the latencies two or three: on linear axes the 1- and
/// 10-client points would sit on top of each other under the 1,000-client one.
public struct LatencyCurve: Sendable {
    /// One client count's figures, in microseconds.
    public struct Point: Sendable, Equatable {
        public var clients: Int
        public var p50: Double
        public var p99: Double

        public init(clients: Int, p50: Double, p99: Double) {
            self.clients = clients
            self.p50 = p50
            self.p99 = p99
        }
    }

    /// Which quantile a target bounds.
    public enum Quantile: String, Sendable {
        case p50, p99
    }

    /// "At `clients`, the `quantile` is at most `ratio` times the floor's same quantile."
    public struct Target: Sendable, Equatable {
        public var clients: Int
        public var quantile: Quantile
        public var ratio: Double

        public init(clients: Int, quantile: Quantile, ratio: Double) {
            self.clients = clients
            self.quantile = quantile
            self.ratio = ratio
        }
    }

    public var points: [Point]
    /// The same run's 1-hop floor, in microseconds.
    public var floorP50: Double
    public var floorP99: Double
    public var targets: [Target]
    /// A line under the title: the build, the load, the date.
    public var caption: String

    public init(points: [Point], floorP50: Double, floorP99: Double, targets: [Target], caption: String) {
        self.points = points.filter { $0.clients > 0 && $0.p50 > 0 && $0.p99 > 0 }.sorted { $0.clients < $1.clients }
        self.floorP50 = floorP50
        self.floorP99 = floorP99
        self.targets = targets
        self.caption = caption
    }

    /// The issue-16 targets: 1 client p50 <= 1.15 and p99 <= 1.3, 100 clients p99 <= 3, 1,000 clients p99 <= 10
    /// (each a ratio to the same run's 1-hop floor).
    public static let shortestPathTargets: [Target] = [
        Target(clients: 1, quantile: .p50, ratio: 1.15), Target(clients: 1, quantile: .p99, ratio: 1.3),
        Target(clients: 100, quantile: .p99, ratio: 3), Target(clients: 1000, quantile: .p99, ratio: 10),
    ]

    /// Whether `target` is met by the measured point at its client count; `nil` when that count was not measured.
    public func isMet(_ target: Target) -> Bool? {
        guard let point = points.first(where: { $0.clients == target.clients }) else { return nil }
        switch target.quantile {
        case .p50: return point.p50 <= target.ratio * floorP50
        case .p99: return point.p99 <= target.ratio * floorP99
        }
    }

    static let p50Colour = "#1f77b4"
    static let p99Colour = "#d62728"

    /// The SVG document.
    public func svg() -> String {
        let width = 720.0, height = 460.0
        let left = 80.0, right = 190.0, top = 58.0, bottom = 58.0
        var w = SVGWriter(width: width, height: height)
        w.element("rect", [("x", 0.0), ("y", 0.0), ("width", width), ("height", height), ("fill", "white")])
        w.element("text", [("x", left), ("y", 22.0), ("font-size", 15), ("font-weight", "bold")],
                  text: "Touch-to-client latency against client count")
        w.element("text", [("x", left), ("y", 40.0), ("fill", "#555")], text: caption)
        guard !points.isEmpty, floorP50 > 0, floorP99 > 0 else {
            w.element("text", [("x", left), ("y", top + 40)], text: "no latency was measured")
            return w.document()
        }

        // Decades that hold every point, the floor and every target.
        let counts = points.map { Double($0.clients) }
        var values = points.flatMap { [$0.p50, $0.p99] } + [floorP50, floorP99]
        for t in targets { values.append(t.ratio * (t.quantile == .p50 ? floorP50 : floorP99)) }
        let xDecades = floor(log10(counts.min() ?? 1))...max(ceil(log10(counts.max() ?? 10)), floor(log10(counts.min() ?? 1)) + 1)
        let yLow = floor(log10(values.min() ?? 10)), yHigh = ceil(log10(values.max() ?? 100))
        let yDecades = yLow...max(yHigh, yLow + 1)
        // A quarter of a decade of room on each side, so the end points and their labels stay inside the frame.
        let x = LinearScale(domain: (xDecades.lowerBound - 0.25)...(xDecades.upperBound + 0.25), range: left...(width - right))
        let y = LinearScale(domain: yDecades, range: top...(height - bottom), flipped: true)
        func px(_ clients: Double) -> Double { x(log10(clients)) }
        func py(_ us: Double) -> Double { y(log10(us)) }

        // Grid and axes: a line per decade, lighter lines at 2x and 5x on the latency axis.
        w.begin("g", [("stroke", "#ddd"), ("stroke-width", 1.0)])
        for d in stride(from: yDecades.lowerBound, through: yDecades.upperBound, by: 1) {
            w.element("line", [("x1", left), ("x2", width - right), ("y1", y(d)), ("y2", y(d))])
            for m in [2.0, 5.0] where d + log10(m) < yDecades.upperBound {
                w.element("line", [("x1", left), ("x2", width - right), ("y1", y(d + log10(m))), ("y2", y(d + log10(m))), ("stroke", "#f0f0f0")])
            }
        }
        for d in stride(from: xDecades.lowerBound, through: xDecades.upperBound, by: 1) {
            w.element("line", [("x1", x(d)), ("x2", x(d)), ("y1", top), ("y2", height - bottom)])
        }
        w.end()
        w.element("rect", [("x", left), ("y", top), ("width", width - right - left), ("height", height - bottom - top),
                           ("fill", "none"), ("stroke", "#333")])
        w.begin("g", [("fill", "#333"), ("text-anchor", "end")])
        for d in stride(from: yDecades.lowerBound, through: yDecades.upperBound, by: 1) {
            w.element("text", [("x", left - 6), ("y", y(d) + 4)], text: Self.duration(pow(10, d)))
        }
        w.end()
        w.begin("g", [("fill", "#333"), ("text-anchor", "middle")])
        for d in stride(from: xDecades.lowerBound, through: xDecades.upperBound, by: 1) {
            w.element("text", [("x", x(d)), ("y", height - bottom + 16)], text: Self.count(pow(10, d)))
        }
        w.element("text", [("x", (left + width - right) / 2), ("y", height - 14)], text: "clients connected (log scale)")
        w.end()
        w.element("text", [("x", 16.0), ("y", (top + height - bottom) / 2), ("text-anchor", "middle"),
                           ("transform", "rotate(-90 16 \(SVGWriter.number((top + height - bottom) / 2)))")],
                  text: "latency, input to client read (log scale)")

        // The floor: what the machine itself costs for one thread hop, whatever the client count.
        for (value, colour, name) in [(floorP50, Self.p50Colour, "p50"), (floorP99, Self.p99Colour, "p99")] {
            w.element("line", [("x1", left), ("x2", width - right), ("y1", py(value)), ("y2", py(value)),
                               ("stroke", colour), ("stroke-width", 1.0), ("stroke-dasharray", "2 4"), ("opacity", 0.8)])
            w.element("text", [("x", width - right + 6), ("y", py(value) + 4), ("fill", colour)],
                      text: "1-hop floor \(name) \(Self.duration(value))")
        }

        // Targets: a short bar at the latency each allows (met or not is the point's side of it, and `data-met`).
        for t in targets {
            let floorValue = t.quantile == .p50 ? floorP50 : floorP99
            let allowed = t.ratio * floorValue
            let cx = px(Double(t.clients))
            let colour = t.quantile == .p50 ? Self.p50Colour : Self.p99Colour
            let met = isMet(t)
            w.begin("g", [("class", "target"), ("data-clients", t.clients), ("data-quantile", t.quantile.rawValue),
                          ("data-met", met.map { $0 ? "yes" : "no" } ?? "not measured")])
            w.title("\(t.clients) client\(t.clients == 1 ? "" : "s"): \(t.quantile.rawValue) target \(Self.ratio(t.ratio)) the floor = \(Self.duration(allowed))")
            w.element("line", [("x1", cx - 12), ("x2", cx + 12), ("y1", py(allowed)), ("y2", py(allowed)),
                               ("stroke", colour), ("stroke-width", 3.0)])
            // The label on the side with more room: right of the bar in the left half, left of it in the right.
            let onRight = cx < (left + width - right) / 2
            w.element("text", [("x", onRight ? cx + 14 : cx - 14), ("y", py(allowed) + (t.quantile == .p50 ? 12 : -4)), ("fill", colour),
                               ("font-size", 10), ("text-anchor", onRight ? "start" : "end")],
                      text: "target \(t.quantile.rawValue) \(Self.ratio(t.ratio))")
            w.end()
        }

        // The measured curves, each point labelled with its ratio to the floor.
        for (quantile, colour, floorValue) in [(Quantile.p50, Self.p50Colour, floorP50), (.p99, Self.p99Colour, floorP99)] {
            let series = points.map { (px(Double($0.clients)), py(quantile == .p50 ? $0.p50 : $0.p99)) }
            w.begin("g", [("class", "curve"), ("data-quantile", quantile.rawValue)])
            w.element("polyline", [("points", SVGWriter.points(series)), ("fill", "none"), ("stroke", colour), ("stroke-width", 2.0)])
            for (point, position) in zip(points, series) {
                let value = quantile == .p50 ? point.p50 : point.p99
                w.begin("g")
                w.title("\(point.clients) client\(point.clients == 1 ? "" : "s"): \(quantile.rawValue) \(Self.duration(value)), \(Self.ratio(value / floorValue)) the floor")
                w.element("circle", [("cx", position.0), ("cy", position.1), ("r", 4.0), ("fill", colour)])
                w.element("text", [("x", position.0 - 8), ("y", position.1 + (quantile == .p50 ? 16 : -8)), ("fill", colour),
                                   ("font-size", 10), ("text-anchor", "end")],
                          text: Self.ratio(value / floorValue))
                w.end()
            }
            w.end()
        }

        // Legend.
        var ly = top + 8
        for (colour, text) in [(Self.p50Colour, "p50"), (Self.p99Colour, "p99")] {
            w.element("line", [("x1", width - right + 8), ("x2", width - right + 30), ("y1", ly), ("y2", ly), ("stroke", colour), ("stroke-width", 2.0)])
            w.element("text", [("x", width - right + 36), ("y", ly + 4)], text: "\(text), measured")
            ly += 18
        }
        w.element("text", [("x", width - right + 8), ("y", ly + 6), ("fill", "#555"), ("font-size", 10)], text: "labels: ratio to the floor")
        w.element("text", [("x", width - right + 8), ("y", ly + 20), ("fill", "#555"), ("font-size", 10)], text: "bars: targets")
        return w.document()
    }

    /// `140 µs`, `1.2 ms`, `35 ms`, `1 s`.
    static func duration(_ us: Double) -> String {
        if us < 1000 { return SVGWriter.number(us.rounded()) + " µs" }
        if us < 1_000_000 { return SVGWriter.number((us / 100).rounded() / 10) + " ms" }
        return SVGWriter.number((us / 100_000).rounded() / 10) + " s"
    }

    /// `1`, `10`, `1,000`.
    static func count(_ n: Double) -> String {
        let whole = Int(n.rounded())
        guard whole >= 1000 else { return String(whole) }
        let rest = whole % 1000
        return count(Double(whole / 1000)) + "," + (rest < 10 ? "00" : rest < 100 ? "0" : "") + String(rest)
    }

    /// `1.31x`, `343x`.
    static func ratio(_ r: Double) -> String {
        r < 10 ? SVGWriter.number(r) + "x" : SVGWriter.number(r.rounded()) + "x"
    }
}
