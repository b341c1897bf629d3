import Foundation
import Testing

@testable import EdgeSwipeProtocol

/// The ranges a client relies on, checked where a server line is decoded (issue 35.1 and 35.2): a number no daemon
/// sends refuses the line, naming the field, so that what draws, matches and formats the stream can convert it.
@Suite("Numbers out of range refuse a server line")
struct WireRangesTests {
    static let transition =
        #"{"type":"transition","seq":10,"time_us":1026000,"id":1,"operation":"select-tab","container":"shell","from":"home","to":"launcher","direction":"reverse","phase":"changed","percent":PERCENT,"velocity":VELOCITY,"interactive":true,"progress":true,"edge":"left","device":7,"geometry":{"from":{"scene":"home","frame":{"x":0.0464,"y":0,"width":1,"height":HEIGHT},"alpha":1,"z_index":1,"on_stage":true},"to":{"scene":"launcher","frame":{"x":-0.9536,"y":0,"width":1,"height":1},"alpha":ALPHA,"z_index":0,"on_stage":true}}}"#

    static let presentation =
        #"{"type":"presentation","seq":233,"time_us":3258299,"transition":3,"container":"overlay","kind":"presentation","phase":"will-begin","presented":"notifications","presenting":"shell","style":"custom","frame":{"x":0,"y":0.333333,"width":1,"height":HEIGHT}}"#

    struct Case: CustomStringConvertible, Sendable {
        var template: String
        var values: [String: String]
        /// The reason's start, or `nil` when the line decodes.
        var refused: String?
        var description: String { values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
    }

    static let defaults = ["PERCENT": "0.5", "VELOCITY": "2.9", "HEIGHT": "1", "ALPHA": "1"]

    static let cases: [Case] = [
        Case(template: transition, values: [:], refused: nil),
        Case(template: transition, values: ["PERCENT": "1"], refused: nil),
        Case(template: transition, values: ["PERCENT": "0"], refused: nil),
        Case(template: transition, values: ["VELOCITY": "-35000.5"], refused: nil),
        Case(template: transition, values: ["PERCENT": "1e300"], refused: "at percent: 1e+300 is outside 0...1"),
        Case(template: transition, values: ["PERCENT": "-0.5"], refused: "at percent: -0.5 is outside 0...1"),
        Case(template: transition, values: ["PERCENT": "1.5"], refused: "at percent: 1.5 is outside 0...1"),
        Case(template: transition, values: ["VELOCITY": "1e300"], refused: "at velocity: 1e+300 is past the ±1e9 a client accepts"),
        Case(template: transition, values: ["VELOCITY": "-1e10"], refused: "at velocity: -10000000000.0 is past the ±1e9 a client accepts"),
        Case(template: transition, values: ["HEIGHT": "1e300"], refused: "at geometry.from.frame.height: 1e+300 is past"),
        Case(template: transition, values: ["ALPHA": "7"], refused: "at geometry.to.alpha: 7.0 is outside 0...1"),
        Case(template: presentation, values: [:], refused: nil),
        Case(template: presentation, values: ["HEIGHT": "1e300"], refused: "at frame.height: 1e+300 is past"),
    ]

    @Test("a line decodes, or is refused naming the field and the number", arguments: cases)
    func line(_ c: Case) {
        var text = c.template
        for (key, value) in Self.defaults.merging(c.values, uniquingKeysWith: { $1 }) {
            text = text.replacingOccurrences(of: key, with: value)
        }
        do {
            _ = try ServerMessage(line: Array(text.utf8))
            #expect(c.refused == nil, "decoded")
        } catch {
            #expect(c.refused.map { error.reason.hasPrefix($0) } == true, "\(error.reason)")
        }
    }
}
