import EdgeSwipePlot
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("SVG writer")
struct SVGWriterTests {
    @Test("every string that reaches the document is escaped", arguments: [
        ("plain", "plain"),
        ("a < b & c > d", "a &lt; b &amp; c &gt; d"),
        ("\"quoted\" 'single'", "&quot;quoted&quot; &apos;single&apos;"),
        ("bell\u{07}here", "bell\u{FFFD}here"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("ünïcødé →", "ünïcødé →"),
    ])
    func escaping(_ input: String, _ expected: String) {
        #expect(SVGWriter.escape(input) == expected)
    }

    @Test("numbers: two decimals at most, no trailing zeros, never NaN", arguments: [
        (0.0, "0"), (1.0, "1"), (-1.5, "-1.5"), (3.14159, "3.14"), (0.05, "0.05"), (0.004, "0"), (-0.004, "0"),
        (12.10, "12.1"), (1e20, "100000000000000000000"), (Double.nan, "0"), (Double.infinity, "0"),
    ])
    func numbers(_ x: Double, _ expected: String) {
        #expect(SVGWriter.number(x) == expected)
    }

    @Test("a document with hostile names parses as XML and keeps the names")
    func wellFormed() throws {
        var w = SVGWriter(width: 100, height: 50)
        w.begin("g", [("class", "a&b"), ("data-name", "<scene \"x\">")])
        w.element("text", [("x", 1.0), ("y", 2)], text: "</svg><script>alert(1)</script>")
        w.end()
        let svg = w.document()
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = TextCollector()
        parser.delegate = collector
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(collector.text == "</svg><script>alert(1)</script>")
        #expect(collector.attributes["data-name"] == "<scene \"x\">")
    }

    @Test("ticks are round numbers inside the domain")
    func ticks() {
        #expect(LinearScale(domain: 0...155, range: 0...100).ticks(6) == [0, 50, 100, 150])
        #expect(LinearScale(domain: -0.1...1.1, range: 0...100).ticks(4) == [0, 0.5, 1])
        let y = LinearScale(domain: 0...1, range: 10...110, flipped: true)
        #expect(y(0) == 110 && y(1) == 10)
    }
}

private final class TextCollector: NSObject, XMLParserDelegate {
    var text = ""
    var attributes: [String: String] = [:]
    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string.trimmingCharacters(in: .whitespacesAndNewlines) }
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if name == "g" { self.attributes = attributes }
    }
}
