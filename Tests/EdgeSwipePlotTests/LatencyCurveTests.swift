import EdgeSwipePlot
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("Latency curve")
struct LatencyCurveTests {
    /// The shipped build's figures of the third session (docs/PERFORMANCE.md): 1-hop floor 103 / 174 us.
    static let measured = [
        LatencyCurve.Point(clients: 1, p50: 141, p99: 256), LatencyCurve.Point(clients: 10, p50: 164, p99: 280),
        LatencyCurve.Point(clients: 100, p50: 417, p99: 781), LatencyCurve.Point(clients: 1000, p50: 4306, p99: 59326),
    ]

    @Test("a target is met when its quantile is at most its ratio times the floor's", arguments: [
        // clients, quantile, ratio, met
        (1, LatencyCurve.Quantile.p50, 1.15, false as Bool?),   // 141 > 118.45
        (1, .p50, 1.37, true),                                   // 141 <= 141.11
        (1, .p99, 1.3, false),                                   // 256 > 226.2
        (1, .p99, 1.5, true),
        (100, .p99, 3, false),                                   // 781 > 522
        (100, .p99, 4.5, true),
        (1000, .p99, 10, false),
        (7, .p99, 10, nil),                                      // not measured
    ])
    func targets(_ clients: Int, _ quantile: LatencyCurve.Quantile, _ ratio: Double, _ met: Bool?) {
        let curve = LatencyCurve(points: Self.measured, floorP50: 103, floorP99: 174, targets: [], caption: "")
        #expect(curve.isMet(LatencyCurve.Target(clients: clients, quantile: quantile, ratio: ratio)) == met)
    }

    @Test("the SVG parses; one curve per quantile through every count in order; targets say whether they are met")
    func document() throws {
        let curve = LatencyCurve(
            points: Self.measured.reversed(), floorP50: 103, floorP99: 174,
            targets: LatencyCurve.shortestPathTargets, caption: "static <build> & load 1.3")
        let elements = try Self.parse(curve.svg())
        let curves = elements.filter { $0.name == "g" && $0.attributes["class"] == "curve" }
        #expect(curves.map { $0.attributes["data-quantile"] } == ["p50", "p99"])
        let polylines = elements.filter { $0.name == "polyline" }
        #expect(polylines.count == 2)
        for line in polylines {
            let points = (line.attributes["points"] ?? "").split(separator: " ").map { pair in
                pair.split(separator: ",").compactMap { Double($0) }
            }
            #expect(points.count == 4)
            // Sorted by client count: x grows; latency grows with the count here, so y (downward) shrinks.
            #expect(zip(points, points.dropFirst()).allSatisfy { $0[0] < $1[0] && $0[1] > $1[1] })
            // Log x: 1, 10, 100 and 1,000 clients are evenly spaced.
            let steps = zip(points, points.dropFirst()).map { $1[0] - $0[0] }
            #expect(steps.allSatisfy { abs($0 - steps[0]) < 0.05 })
        }
        let targets = elements.filter { $0.name == "g" && $0.attributes["class"] == "target" }
        #expect(targets.map { $0.attributes["data-met"] } == ["no", "no", "no", "no"])
        #expect(elements.contains { $0.text == "static <build> & load 1.3" })
        #expect(elements.contains { $0.text == "1-hop floor p99 174 µs" })
        #expect(elements.contains { $0.text == "341x" })   // 59,326 / 174 at 1,000 clients
    }

    @Test("no points: a document that says so")
    func empty() throws {
        let elements = try Self.parse(LatencyCurve(points: [], floorP50: 0, floorP99: 0, targets: [], caption: "x").svg())
        #expect(elements.contains { $0.text == "no latency was measured" })
        #expect(!elements.contains { $0.name == "polyline" })
    }

    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
    }

    static func parse(_ svg: String) throws -> [Element] {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        guard parser.parse() else { throw ParseFailure(description: "\(parser.parserError.map { "\($0)" } ?? "unknown")") }
        return collector.elements
    }

    struct ParseFailure: Error, CustomStringConvertible { var description: String }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        private var open: [Int] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            elements.append(Element(name: name, attributes: attributes))
            open.append(elements.count - 1)
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard let i = open.popLast() else { return }
            elements[i].text = elements[i].text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard let i = open.last else { return }
            // Whole: the parser hands text over in pieces (an entity is a piece of its own).
            elements[i].text += string
        }
    }
}
