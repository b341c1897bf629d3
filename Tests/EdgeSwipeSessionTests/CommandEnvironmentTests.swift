import Testing

@testable import EdgeSwipeSession

/// The numbers a command reads in `EDGESWIPE_PERCENT` and `EDGESWIPE_VELOCITY` (issue 35.1: `Int64(x * 10000)`
/// trapped on a velocity of 1e300).
@Suite("EDGESWIPE_* numbers")
struct CommandEnvironmentTests {
    static let cases: [(Double, String)] = [
        (0.7, "0.7"), (1, "1"), (0, "0"), (1.0 / 3, "0.3333"), (-0.25, "-0.25"), (-0.00004, "0"), (2.90001, "2.9"),
        (35_000.5, "35000.5"), (1e9, "1000000000"),
        // What no daemon sends, written as the bound instead of trapping.
        (1e300, "1000000000000"), (-1e300, "-1000000000000"), (.greatestFiniteMagnitude, "1000000000000"),
        (.infinity, "0"), (-.infinity, "0"), (.nan, "0"),
    ]

    @Test("a number with up to four decimals, never trapping", arguments: cases)
    func format(_ c: (Double, String)) {
        #expect(String(format2: c.0) == c.1)
    }
}
