import EdgeSwipeTestSupport
import Foundation
import Testing
@testable import EdgeSwipeCore

/// `docs/ARCHITECTURE.md` draws the four state machines as mermaid diagrams. These tests read the diagrams and hold
/// them to the machines' tables: every arrow is a step some row of the table takes, and every step a row takes
/// (a log line `old -> event -> new` with a new state) is an arrow. So the pictures cannot drift from the code.
@Suite("State diagrams in ARCHITECTURE.md match the machines")
struct StateDiagramTests {
    struct Arrow: Hashable, CustomStringConvertible {
        var from: String
        var event: String
        var to: String
        var description: String { "\(from) -> \(event) -> \(to)" }
    }

    static let architecture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/ARCHITECTURE.md")

    /// The arrows of the mermaid block that contains `marker`: `a --> b: e1, e2 (why)` is one arrow per event;
    /// arrows from or to `[*]` are left out.
    static func arrows(inDiagramContaining marker: String) throws -> Set<Arrow> {
        let text = try String(contentsOf: architecture, encoding: .utf8)
        let blocks = text.components(separatedBy: "```mermaid").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let block = try #require(blocks.first { $0.contains(marker) }, "no mermaid diagram with \(marker) in ARCHITECTURE.md")
        var arrows = Set<Arrow>()
        for raw in block.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard let arrow = line.range(of: "-->") else { continue }
            let from = line[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
            let rest = line[arrow.upperBound...]
            let parts = rest.split(separator: ":", maxSplits: 1)
            let to = parts[0].trimmingCharacters(in: .whitespaces)
            guard from != "[*]", to != "[*]", parts.count == 2 else { continue }
            var label = String(parts[1])
            if let comment = label.range(of: "(") { label = String(label[..<comment.lowerBound]) }
            for event in label.split(separator: ",") {
                arrows.insert(Arrow(from: from, event: event.trimmingCharacters(in: .whitespaces), to: to))
            }
        }
        return arrows
    }

    /// `old -> event -> new` lines with a change of state.
    static func steps(_ lines: [String]) -> Set<Arrow> {
        var steps = Set<Arrow>()
        for line in lines {
            let parts = line.components(separatedBy: " -> ")
            guard parts.count == 3, parts[0] != parts[2] else { continue }
            steps.insert(Arrow(from: parts[0], event: parts[1], to: parts[2]))
        }
        return steps
    }

    /// The steps a machine's table takes, row by row.
    static func taken<Table: StateMachineTable>(_ table: Table.Type) -> Set<Arrow> {
        steps(Table.table.flatMap { Table.run($0).1 })
    }

    /// Every arrow drawn is a step taken, and every step taken is drawn.
    static func compare(drawn: Set<Arrow>, taken: Set<Arrow>) {
        #expect(drawn.subtracting(taken).sorted(by: { $0.description < $1.description }) == [], "arrows no row takes")
        #expect(taken.subtracting(drawn).sorted(by: { $0.description < $1.description }) == [], "steps the diagram lacks")
    }

    @Test("the recognizer's diagram is its table")
    func recognizer() throws {
        Self.compare(
            drawn: try Self.arrows(inDiagramContaining: "possible --> tracking"),
            taken: Self.taken(ScreenEdgePanRecognizerTests.self))
    }

    @Test("the swipe recognizer's diagram is its table")
    func swipe() throws {
        Self.compare(
            drawn: try Self.arrows(inDiagramContaining: "possible --> pending"),
            taken: Self.taken(SwipeRecognizerTests.self))
    }

    @Test("the multi-finger detector's diagram is its table")
    func detector() throws {
        Self.compare(
            drawn: try Self.arrows(inDiagramContaining: "idle --> counting"),
            taken: Self.taken(MultiFingerDetectorTests.self))
    }

    @Test("the transition's diagram is its table")
    func transition() throws {
        Self.compare(
            drawn: try Self.arrows(inDiagramContaining: "finishing --> completed"),
            taken: Self.taken(PercentDrivenInteractiveTransitionTests.self))
    }
}
