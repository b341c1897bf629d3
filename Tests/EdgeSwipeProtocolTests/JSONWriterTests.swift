import EdgeSwipeProtocol
import Foundation
import Testing

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("doubles are fixed point with at most six decimals", arguments: [
        (0.0, "0"), (-0.0, "0"), (1.0, "1"), (0.5, "0.5"), (-0.25, "-0.25"), (1.0 / 3.0, "0.333333"),
        (2.0 / 3.0, "0.666667"), (123.456789, "123.456789"), (1_234_567.1234567, "1234567.123457"),
        (0.0000004, "0"), (-0.0000004, "0"), (0.0000005, "0.000001"), (-17.5, "-17.5"), (0.000012, "0.000012"),
        (1e10, "10000000000.0"), (-3e12, "-3000000000000.0"), (.nan, "0"), (.infinity, "0"), (-.infinity, "0"),
    ])
    func numbers(_ value: Double, _ expected: String) {
        var w = JSONWriter()
        w.number(value)
        #expect(String(decoding: w.bytes, as: UTF8.self) == expected)
        // Whatever it writes is a JSON number that reads back within half a micro-unit.
        let back = try? JSONSerialization.jsonObject(with: Data(w.bytes), options: .fragmentsAllowed) as? NSNumber
        if value.isFinite { #expect(abs((back?.doubleValue ?? .nan) - value) <= 5e-7 * max(1, abs(value))) }
    }

    @Test("integers", arguments: [(Int64(0), "0"), (7, "7"), (-7, "-7"), (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808")])
    func integers(_ value: Int64, _ expected: String) {
        var w = JSONWriter()
        w.integer(value)
        #expect(String(decoding: w.bytes, as: UTF8.self) == expected)
    }

    @Test("strings escape quotes, backslashes and control characters and keep other UTF-8", arguments: [
        ("plain", #""plain""#), ("say \"hi\"", #""say \"hi\"""#), (#"back\slash"#, #""back\\slash""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#), ("\u{01}\u{1f}", #""\u0001\u001f""#),
        ("caf\u{00e9} \u{1F600}", "\"caf\u{00e9} \u{1F600}\""), ("", #""""#),
    ])
    func strings(_ value: String, _ expected: String) throws {
        var w = JSONWriter()
        w.string(value)
        #expect(String(decoding: w.bytes, as: UTF8.self) == expected)
        let back = try JSONSerialization.jsonObject(with: Data(w.bytes), options: .fragmentsAllowed) as? String
        #expect(back == value)
    }
}
