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

/// ``JSONWriter/value(_:pretty:)``: the writer of documents people read (the daemon's state file, edgeswipe-bench's
/// report), over the same writer and parser as the protocol.
@Suite("JSON writer: documents")
struct JSONDocumentTests {
    private func written(_ value: JSONValue, pretty: Bool = false) -> String {
        var writer = JSONWriter()
        writer.value(value, pretty: pretty)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test("compact: keys sorted, no whitespace", arguments: [
        (JSONValue.null, "null"),
        (.bool(true), "true"),
        (.integer(-42), "-42"),
        (.string("a/b \"c\"\n"), #""a/b \"c\"\n""#),
        (.array([]), "[]"),
        (.object([:]), "{}"),
        (.object(["b": .integer(1), "a": .array([.integer(1), .string("x")]), "c": .object(["z": .null, "y": .bool(false)])]),
         #"{"a":[1,"x"],"b":1,"c":{"y":false,"z":null}}"#),
    ])
    func compact(_ value: JSONValue, _ expected: String) {
        #expect(written(value) == expected)
    }

    @Test("pretty: a member a line, two spaces a level, arrays of scalars on one line")
    func pretty() {
        let value = JSONValue.object([
            "version": .integer(1),
            "list": .array([.string("home"), .string("detail")]),
            "empty": .array([]),
            "rows": .array([.object(["x": .number(0.5)]), .object([:])]),
        ])
        #expect(written(value, pretty: true) == """
            {
              "empty": [],
              "list": ["home", "detail"],
              "rows": [
                {
                  "x": 0.5
                },
                {}
              ],
              "version": 1
            }
            """)
    }

    @Test("numbers are exact: the shortest form that reads back as the same double", arguments: [
        (0.1, "0.1"), (1.0 / 3, "0.3333333333333333"), (1.0, "1"), (-0.0, "0"), (-2.5, "-2.5"), (1e-7, "1e-07"),
        (123456789.125, "123456789.125"), (1e15, "1000000000000000.0"), (1e300, "1e+300"), (.infinity, "null"), (.nan, "null"),
    ])
    func numbers(_ number: Double, _ expected: String) throws {
        #expect(written(.number(number)) == expected)
        guard number.isFinite else { return }
        let back = try JSONValue.parse(Array(expected.utf8))
        #expect(back.doubleValue == number)
    }

    @Test("what is written parses back to the same value")
    func roundTrip() throws {
        let value = JSONValue.object([
            "name": .string("Nexus 4 \u{1}touch/screen \u{e9}"),
            "size": .object(["width": .number(61.44), "height": .number(102.4)]),
            "counts": .array([.integer(0), .integer(Int64.max), .integer(Int64.min)]),
            "nested": .array([.array([.null, .bool(true)]), .object(["k": .string("")])]),
        ])
        for pretty in [false, true] {
            var writer = JSONWriter()
            writer.value(value, pretty: pretty)
            #expect(try JSONValue.parse(writer.bytes) == value)
        }
    }
}
