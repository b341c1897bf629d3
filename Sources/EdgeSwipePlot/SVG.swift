import EdgeSwipeSystem
import Glibc

/// A small SVG writer: elements with attributes, written straight into a string.
///
/// Every string that reaches the document (attribute values and text) is XML-escaped here, once, so that a scene
/// or device name with `<`, `&` or quotes cannot break the file. Numbers are written with at most two decimals
/// (a hundredth of a pixel), without `String(format:)`, which keeps a long recording's plot fast.
public struct SVGWriter {
    public let width: Double
    /// Set before ``document()`` when it is known only once everything is drawn.
    public var height: Double
    private var body: String = ""
    private var open: [String] = []

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
        body.reserveCapacity(1 << 16)
    }

    /// `<name attr="…"/>`, or `<name attr="…">text</name>` when there is text.
    public mutating func element(_ name: String, _ attributes: [(String, any SVGAttribute)], text: String? = nil) {
        body += "<" + name
        writeAttributes(attributes)
        if let text {
            body += ">"
            body += Self.escape(text)
            body += "</" + name + ">\n"
        } else {
            body += "/>\n"
        }
    }

    /// Opens a group or any container element; ``end()`` closes it.
    public mutating func begin(_ name: String, _ attributes: [(String, any SVGAttribute)] = []) {
        body += "<" + name
        writeAttributes(attributes)
        body += ">\n"
        open.append(name)
    }

    public mutating func end() {
        guard let name = open.popLast() else { return }
        body += "</" + name + ">\n"
    }

    /// A `<title>` child: the tooltip a browser shows, and what a screen reader says.
    public mutating func title(_ text: String) { element("title", [], text: text) }

    /// The whole document; any element still open is closed.
    public mutating func document() -> String {
        while !open.isEmpty { end() }
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out += #"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width=""# + Self.number(width)
        out += #"" height=""# + Self.number(height) + #"" viewBox="0 0 "#
        out += Self.number(width) + " " + Self.number(height) + #"" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">"#
        out += "\n"
        out += body
        out += "</svg>\n"
        return out
    }

    private mutating func writeAttributes(_ attributes: [(String, any SVGAttribute)]) {
        for (key, value) in attributes {
            body += " " + key + "=\""
            body += value.svgValue
            body += "\""
        }
    }

    /// Text made safe for XML character data and attribute values. Control characters other than tab and
    /// newline are not allowed in XML 1.0 at all, so they become U+FFFD.
    public static func escape(_ s: String) -> String {
        var needs = false
        for u in s.utf8 where u == 0x26 || u == 0x3C || u == 0x3E || u == 0x22 || u == 0x27 || u < 0x20 {
            needs = true
            break
        }
        guard needs else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A number with at most two decimals and no trailing zeros; not-finite values become 0 (SVG has no NaN).
    public static func number(_ x: Double) -> String {
        guard x.isFinite else { return "0" }
        let hundredths = (x * 100).rounded()
        guard abs(hundredths) < 9e15 else { return String(cFormat: "%.0f", x) }
        let n = Int64(hundredths)
        let sign = n < 0 ? "-" : ""
        let a = n.magnitude
        let whole = a / 100
        let frac = a % 100
        if frac == 0 { return sign + String(whole) }
        if frac % 10 == 0 { return sign + String(whole) + "." + String(frac / 10) }
        return sign + String(whole) + (frac < 10 ? ".0" : ".") + String(frac)
    }

    /// The `points` of a polyline (or the `d` of a path, with `path: true`) through `points`.
    public static func points(_ points: [(Double, Double)], path: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(points.count * 14)
        for (i, p) in points.enumerated() {
            if path { out += i == 0 ? "M" : "L" } else if i > 0 { out += " " }
            out += number(p.0) + "," + number(p.1)
        }
        return out
    }
}

/// A linear map from data to pixels, with tick values a person would choose (1, 2 or 5 times a power of ten).
public struct LinearScale: Sendable {
    public var domain: ClosedRange<Double>
    public var range: ClosedRange<Double>
    /// Whether larger values go toward the range's lower bound (a y axis, whose pixels grow downward).
    public var flipped: Bool

    public init(domain: ClosedRange<Double>, range: ClosedRange<Double>, flipped: Bool = false) {
        // A zero-width domain maps everything to the middle instead of dividing by zero.
        if domain.upperBound - domain.lowerBound > 1e-12 {
            self.domain = domain
        } else {
            self.domain = (domain.lowerBound - 0.5)...(domain.upperBound + 0.5)
        }
        self.range = range
        self.flipped = flipped
    }

    public func callAsFunction(_ x: Double) -> Double {
        let f = (x - domain.lowerBound) / (domain.upperBound - domain.lowerBound)
        let g = flipped ? 1 - f : f
        return range.lowerBound + g * (range.upperBound - range.lowerBound)
    }

    /// About `count` evenly spaced values inside the domain.
    public func ticks(_ count: Int = 6) -> [Double] {
        let span = domain.upperBound - domain.lowerBound
        guard span > 0, span.isFinite, count > 0 else { return [] }
        let raw = span / Double(count)
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        var ticks: [Double] = []
        var v = (domain.lowerBound / step).rounded(.up) * step
        while v <= domain.upperBound + step * 1e-9, ticks.count < 100 {
            ticks.append(abs(v) < step * 1e-9 ? 0 : v)
            v += step
        }
        return ticks
    }
}

/// An attribute value: text (escaped) or a number (two decimals at most).
public protocol SVGAttribute {
    /// The value as it appears between the quotes.
    var svgValue: String { get }
}

extension String: SVGAttribute {
    public var svgValue: String { SVGWriter.escape(self) }
}

extension Double: SVGAttribute {
    public var svgValue: String { SVGWriter.number(self) }
}

extension Int: SVGAttribute {
    public var svgValue: String { String(self) }
}
