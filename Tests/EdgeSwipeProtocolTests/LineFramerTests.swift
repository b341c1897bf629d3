import EdgeSwipeProtocol
import Testing

@Suite("Line framer")
struct LineFramerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var chunks: [String]
        var cap = 8
        var expected: [LineFramer.Frame]
        var testDescription: String { name }
    }

    static func line(_ s: String, _ n: Int) -> LineFramer.Frame { .line(Array(s.utf8), number: n) }

    static let cases: [Case] = [
        Case(name: "one line", chunks: ["abc\n"], expected: [line("abc", 1)]),
        Case(name: "split across chunks", chunks: ["ab", "c\nde", "f\n"], expected: [line("abc", 1), line("def", 2)]),
        Case(name: "no newline yet", chunks: ["abc"], expected: []),
        Case(name: "CRLF and blank lines", chunks: ["a\r\n\n\r\nb\n"], expected: [line("a", 1), line("b", 4)]),
        Case(name: "exactly at the cap", chunks: ["12345678\n"], expected: [line("12345678", 1)]),
        Case(name: "at the cap with CR", chunks: ["12345678\r\n"], expected: [line("12345678", 1)]),
        Case(name: "one over the cap, then in sync", chunks: ["123456789\nok\n"], expected: [.oversized(number: 1, limit: 8), line("ok", 2)]),
        Case(
            name: "a long line is reported once, as soon as it passes the cap",
            chunks: ["1234567890", "1234567890", "1234567890\nnext\n"],
            expected: [.oversized(number: 1, limit: 8), line("next", 2)]),
        Case(
            name: "oversized between good lines",
            chunks: ["a\n", String(repeating: "x", count: 100), "\nb\n"],
            expected: [line("a", 1), .oversized(number: 2, limit: 8), line("b", 3)]),
    ]

    @Test("the end of the stream ends a last line that has no newline", arguments: [
        (["a\nb"], [line("a", 1), line("b", 2)]),
        (["a\nb\r"], [line("a", 1), line("b", 2)]),
        (["a\n"], [line("a", 1)]),
        (["a\n", "123456789012"], [line("a", 1), .oversized(number: 2, limit: 8)]),
    ] as [([String], [LineFramer.Frame])])
    func finish(_ chunks: [String], _ expected: [LineFramer.Frame]) {
        var framer = LineFramer(maxLineBytes: 8)
        var frames: [LineFramer.Frame] = []
        for chunk in chunks { framer.feed(Array(chunk.utf8)) { frames.append($0) } }
        framer.finish { frames.append($0) }
        #expect(frames == expected)
    }

    @Test(arguments: cases)
    func frames(_ c: Case) {
        var framer = LineFramer(maxLineBytes: c.cap)
        var frames: [LineFramer.Frame] = []
        for chunk in c.chunks { framer.feed(Array(chunk.utf8)) { frames.append($0) } }
        #expect(frames == c.expected)
    }

    @Test("a stream fed one byte at a time frames the same as all at once")
    func byteByByte() {
        let text = "{\"op\":\"ping\"}\n" + String(repeating: "z", count: 40) + "\n\n{\"op\":\"status\"}\r\n"
        var whole = LineFramer(maxLineBytes: 16)
        var wholeFrames: [LineFramer.Frame] = []
        whole.feed(Array(text.utf8)) { wholeFrames.append($0) }
        var single = LineFramer(maxLineBytes: 16)
        var singleFrames: [LineFramer.Frame] = []
        for byte in text.utf8 { single.feed([byte]) { singleFrames.append($0) } }
        #expect(wholeFrames == singleFrames)
        #expect(wholeFrames.count == 3)
    }
}
