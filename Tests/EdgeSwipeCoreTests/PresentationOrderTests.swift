import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

/// The presentation controller's callbacks and the coordinator's interaction changes, in UIKit's order around
/// the transition's own events and the appearance callbacks (CONCEPTS.md §2 and §4, seed 000 §2.3.3): the
/// presentation controller's will-begin after the transition begins and before the appearance callbacks start,
/// its did-end after they end and before the terminal event; the interaction's end (the finger lifted) before
/// the run-out starts.
@Suite("Presentation controller and coordinator order")
struct PresentationOrderTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var container: Container
        var operation: TransitionOperation
        var commit: Bool
        var expected: [String]
        var testDescription: String { "\(name), \(commit ? "completed" : "cancelled")" }
    }

    /// The stream without progress, gestures and traces, one line per event.
    static func lines(_ events: [EngineEvent]) -> [String] {
        events.compactMap { e -> String? in
            switch e {
            case .transition(let t): t.isProgress ? nil : "transition \(t.phase.rawValue)"
            case .lifecycle(let l): "\(l.scene) \(l.kind.rawValue)"
            case .presentation(let p): "\(p.kind.rawValue) \(p.phase.rawValue)" + (p.completed.map { $0 ? " completed" : " not completed" } ?? "")
            case .interaction(let i): "interaction \(i.phase.rawValue)" + (i.cancelled.map { $0 ? " toward cancel" : " toward finish" } ?? "")
            case .state: "state"
            case .gesture, .device, .trace: nil
            }
        }
    }

    static let presentBase = Container(name: "m", content: .modal(base: "from", presented: []))
    static func dismissBase(_ style: PresentationStyle) -> Container {
        Container(name: "m", content: .modal(base: "to", presented: [Presentation(scene: "from", style: style)]))
    }

    static let interactiveCases: [Case] = [
        Case(name: "present full-screen", container: presentBase, operation: .present(scene: "to", style: .fullScreen, frame: nil), commit: true,
             expected: ["transition began", "presentation will-begin", "to will-appear", "from will-disappear", "transition changed",
                        "interaction ended toward finish", "transition finishing", "to did-appear", "from did-disappear",
                        "presentation did-end completed", "transition completed", "state"]),
        Case(name: "present full-screen", container: presentBase, operation: .present(scene: "to", style: .fullScreen, frame: nil), commit: false,
             expected: ["transition began", "presentation will-begin", "to will-appear", "from will-disappear", "transition changed",
                        "interaction ended toward cancel", "transition cancelling", "to will-disappear", "from will-appear",
                        "to did-disappear", "from did-appear", "presentation did-end not completed", "transition cancelled", "state"]),
        Case(name: "present custom", container: presentBase, operation: .present(scene: "to", style: .custom, frame: nil), commit: true,
             expected: ["transition began", "presentation will-begin", "to will-appear", "transition changed",
                        "interaction ended toward finish", "transition finishing", "to did-appear",
                        "presentation did-end completed", "transition completed", "state"]),
        Case(name: "present custom", container: presentBase, operation: .present(scene: "to", style: .custom, frame: nil), commit: false,
             expected: ["transition began", "presentation will-begin", "to will-appear", "transition changed",
                        "interaction ended toward cancel", "transition cancelling", "to will-disappear", "to did-disappear",
                        "presentation did-end not completed", "transition cancelled", "state"]),
        Case(name: "dismiss full-screen", container: dismissBase(.fullScreen), operation: .dismiss, commit: true,
             expected: ["transition began", "dismissal will-begin", "to will-appear", "from will-disappear", "transition changed",
                        "interaction ended toward finish", "transition finishing", "to did-appear", "from did-disappear",
                        "dismissal did-end completed", "transition completed", "state"]),
        Case(name: "dismiss full-screen", container: dismissBase(.fullScreen), operation: .dismiss, commit: false,
             expected: ["transition began", "dismissal will-begin", "to will-appear", "from will-disappear", "transition changed",
                        "interaction ended toward cancel", "transition cancelling", "to will-disappear", "from will-appear",
                        "to did-disappear", "from did-appear", "dismissal did-end not completed", "transition cancelled", "state"]),
        Case(name: "dismiss custom", container: dismissBase(.custom), operation: .dismiss, commit: true,
             expected: ["transition began", "dismissal will-begin", "from will-disappear", "transition changed",
                        "interaction ended toward finish", "transition finishing", "from did-disappear",
                        "dismissal did-end completed", "transition completed", "state"]),
        Case(name: "dismiss custom", container: dismissBase(.custom), operation: .dismiss, commit: false,
             expected: ["transition began", "dismissal will-begin", "from will-disappear", "transition changed",
                        "interaction ended toward cancel", "transition cancelling", "from will-appear", "from did-appear",
                        "dismissal did-end not completed", "transition cancelled", "state"]),
    ]

    @Test("interactive: full-screen and custom, presented and dismissed, completed and cancelled", arguments: interactiveCases)
    func interactive(_ c: Case) {
        let config = EngineConfiguration(containers: [c.container], bindings: [Binding(edge: .bottom, container: "m", operation: c.operation)])
        var engine = Engine(configuration: config)
        let device = TestDevices.nexus4
        let events = engine.play(.edgeSwipe(.bottom, travel: c.commit ? 0.7 : 0.15, on: device), on: device)
        #expect(Self.lines(events) == c.expected)
    }

    @Test("not interactive: a request has no interaction, and an abort ends the presentation not completed", arguments: [
        (TransitionOperation.present(scene: "to", style: .custom, frame: nil), presentBase, "presentation", true),
        (.present(scene: "to", style: .fullScreen, frame: nil), presentBase, "presentation", false),
        (.dismiss, dismissBase(.custom), "dismissal", true),
        (.dismiss, dismissBase(.fullScreen), "dismissal", false),
    ])
    func requested(_ operation: TransitionOperation, _ container: Container, _ kind: String, _ complete: Bool) throws {
        var engine = Engine(configuration: EngineConfiguration(containers: [container], bindings: []))
        var events: [EngineEvent] = []
        try engine.request(operation, in: "m", at: MonotonicInstant(microseconds: 1_000_000), into: &events)
        if complete {
            engine.tickUntilSettled(into: &events)
        } else {
            engine.cancelAll(at: MonotonicInstant(microseconds: 1_100_000), into: &events)
        }
        let lines = Self.lines(events)
        #expect(!lines.contains { $0.hasPrefix("interaction") })
        #expect(lines.first == "transition began")
        #expect(lines[1] == "\(kind) will-begin")
        #expect(lines.contains("transition finishing"))
        let didEnd = try #require(lines.firstIndex { $0.hasPrefix("\(kind) did-end") })
        #expect(lines[didEnd] == "\(kind) did-end \(complete ? "completed" : "not completed")")
        #expect(lines[didEnd + 1] == "transition \(complete ? "completed" : "cancelled")")
        #expect(lines.last == "state")
    }

    @Test("a re-grab: the interaction ends, begins again when the run-out is caught, and ends once more")
    func regrab() {
        let config = EngineConfiguration(
            containers: [Self.presentBase],
            bindings: [Binding(edge: .bottom, container: "m", operation: .present(scene: "to", style: .custom, frame: nil))])
        var engine = Engine(configuration: config)
        let device = TestDevices.cintiq
        let release = FingerScript.edgeSwipe(.bottom, travel: 0.4, on: device)
        let releaseMS = Double(release.end.value) / 1000
        let regrab = FingerScript.path(
            finger: 1, on: device, startMS: releaseMS + 60, points: [(0, 0.4, 0.998), (300, 0.4, 0.3), (600, 0.4, 0.3)])
        let events = engine.play(release + regrab, on: device)
        #expect(Self.lines(events) == [
            "transition began", "presentation will-begin", "to will-appear", "transition changed",
            "interaction ended toward cancel", "transition cancelling",
            "interaction began", "transition changed",
            "interaction ended toward finish", "transition finishing", "to did-appear",
            "presentation did-end completed", "transition completed", "state",
        ])
        #expect(Set(events.interactions.map(\.transition)).count == 1)
    }

    @Test("shutdown mid-gesture: the interaction ends toward cancel, then the presentation ends not completed")
    func abortedWhileInteractive() {
        let config = EngineConfiguration(
            containers: [Self.presentBase],
            bindings: [Binding(edge: .bottom, container: "m", operation: .present(scene: "to", style: .fullScreen, frame: nil))])
        var engine = Engine(configuration: config)
        let device = TestDevices.nexus4
        var events = engine.play(.edgeSwipe(.bottom, travel: 0.5, on: device).cut(at: .milliseconds(300)), on: device, settle: false)
        engine.cancelAll(at: MonotonicInstant(microseconds: 2_000_000), into: &events)
        let lines = Self.lines(events)
        #expect(Array(lines.suffix(8)) == [
            "interaction ended toward cancel", "to will-disappear", "from will-appear", "to did-disappear", "from did-appear",
            "presentation did-end not completed", "transition cancelled", "state",
        ])
    }

    @Test("the presentation messages name the scenes, the style and the presented frame")
    func fields() throws {
        var engine = Engine(configuration: EngineConfiguration(containers: [Self.presentBase], bindings: []))
        var events: [EngineEvent] = []
        try engine.request(.present(scene: "to", style: .custom, frame: nil), in: "m", at: .zero, into: &events)
        engine.tickUntilSettled(into: &events)
        let p = try #require(events.presentations.first)
        #expect(p.presented == "to")
        #expect(p.presenting == "from")
        #expect(p.style == .custom)
        #expect(p.frame == .bottomCard)
        #expect(p.container == "m")
    }
}
