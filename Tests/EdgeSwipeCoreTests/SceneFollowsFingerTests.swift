import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

/// The scene follows the finger (issue 27): a transition a gesture drives moves its scenes the way the fingers
/// move (inward from the edge, or the swipe's direction), for every animator style and every operation, so a
/// presentation from the top edge comes down out of that edge and a dismissal from the bottom edge goes up; a
/// transition a request starts moves its scenes the plan's own way (``TransitionPlan/motion``).
@Suite("The presented scene follows the finger")
struct SceneFollowsFingerTests {
    /// One operation, on a container (named `c`) in which it applies.
    struct Operation: Sendable, CustomStringConvertible {
        var name: String
        var container: ContainerContent
        var operation: TransitionOperation
        /// The plan's own motion, which a request keeps.
        var requested: SwipeDirection
        var description: String { name }
    }

    static let operations: [Operation] = [
        Operation(name: "push", container: .navigation(stack: ["a"]), operation: .push(scene: "b"), requested: .left),
        Operation(name: "pop", container: .navigation(stack: ["a", "b"]), operation: .pop, requested: .right),
        Operation(name: "next tab", container: .tabs(tabs: ["a", "b", "c"], selected: 1), operation: .nextTab, requested: .left),
        Operation(name: "previous tab", container: .tabs(tabs: ["a", "b", "c"], selected: 1), operation: .previousTab, requested: .right),
        Operation(
            name: "present full-screen", container: .modal(base: "a", presented: []),
            operation: .present(scene: "b", style: .fullScreen, frame: nil), requested: .up),
        Operation(
            name: "present custom", container: .modal(base: "a", presented: []),
            operation: .present(scene: "b", style: .custom, frame: nil), requested: .up),
        Operation(
            name: "dismiss full-screen", container: .modal(base: "a", presented: [Presentation(scene: "b", style: .fullScreen)]),
            operation: .dismiss, requested: .down),
        Operation(
            name: "dismiss custom", container: .modal(base: "a", presented: [Presentation(scene: "b", style: .custom)]),
            operation: .dismiss, requested: .down),
        Operation(name: "show the next child", container: .custom(children: ["a", "b", "c"], active: 1), operation: .show(child: "c"), requested: .left),
        Operation(name: "show the previous child", container: .custom(children: ["a", "b", "c"], active: 1), operation: .show(child: "a"), requested: .right),
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var trigger: GestureTrigger
        var style: Animator.Style
        var operation: Operation
        var testDescription: String {
            let gesture = switch trigger {
            case .edge(let e): "from the \(e) edge"
            case .swipe(let d): "3 fingers \(d)"
            }
            return "\(operation.name), \(style), \(gesture)"
        }
    }

    static let edgeCases: [Case] = Edge.allCases.flatMap { edge in
        Animator.Style.allCases.flatMap { style in operations.map { Case(trigger: .edge(edge), style: style, operation: $0) } }
    }
    static let swipeCases: [Case] = SwipeDirection.allCases.flatMap { direction in
        Animator.Style.allCases.flatMap { style in operations.map { Case(trigger: .swipe(direction), style: style, operation: $0) } }
    }

    static func configuration(_ c: Case) -> EngineConfiguration {
        EngineConfiguration(
            containers: [Container(name: "c", content: c.operation.container)],
            bindings: [Binding(
                trigger: c.trigger, deviceKinds: [], fingers: c.trigger.kind == .edge ? 1...10 : 3...3, container: "c",
                operation: c.operation.operation, animator: Animator(style: c.style), reference: .millimeters(60),
                decision: nil)])
    }

    /// Every step of the transition moves each scene along `motion` by as much as the percent grew (never across
    /// it, never against it), and over the whole transition the scene that comes or goes (both, for a slide
    /// outside a modal container) travels one container along `motion`; a cross-dissolve moves no frame at all.
    static func expectScenes(
        of transitions: [TransitionEvent], follow motion: SwipeDirection, style: Animator.Style,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let across: SwipeDirection = motion.isHorizontal ? .down : .right
        func scenes(_ g: TransitionGeometry) -> [SceneGeometry] { [g.from, g.to] }
        #expect(transitions.count > 3, "a transition with steps", sourceLocation: sourceLocation)
        for (a, b) in zip(transitions, transitions.dropFirst()) {
            let grew = b.percent.value - a.percent.value
            for (sa, sb) in zip(scenes(a.geometry), scenes(b.geometry)) {
                let dx = sb.frame.x - sa.frame.x, dy = sb.frame.y - sa.frame.y
                let along = motion.along(dx: dx, dy: dy)
                #expect(abs(across.along(dx: dx, dy: dy)) < 1e-12, "\(sb.scene) moves across the finger", sourceLocation: sourceLocation)
                #expect(along * grew >= 0, "\(sb.scene) moves against the finger: \(along) as the percent grows by \(grew)",
                        sourceLocation: sourceLocation)
            }
        }
        guard let first = transitions.first, let last = transitions.last else { return }
        #expect(first.percent == .zero && last.percent == .complete, sourceLocation: sourceLocation)
        let travelled = zip(scenes(first.geometry), scenes(last.geometry)).map { a, b in
            motion.along(dx: b.frame.x - a.frame.x, dy: b.frame.y - a.frame.y)
        }
        let forward = first.direction == .forward
        let moves: [Bool]
        switch style {
        case .slide: moves = first.presentationStyle == nil ? [true, true] : [!forward, forward]
        case .cover: moves = [!forward, forward]
        case .fade: moves = [false, false]
        }
        for (distance, moved) in zip(travelled, moves) {
            #expect(abs(distance - (moved ? 1 : 0)) < 1e-9, "travelled \(distance)", sourceLocation: sourceLocation)
        }
    }

    @Test("an edge gesture: the scenes move inward from its edge", arguments: edgeCases)
    func edge(_ c: Case) throws {
        let edge = try #require(c.trigger.edge)
        var engine = Engine(configuration: Self.configuration(c))
        let device = TestDevices.nexus4
        let events = engine.play(.edgeSwipe(edge, travel: 0.7, on: device), on: device)
        #expect(events.terminalPhases == [.completed])
        Self.expectScenes(of: events.transitions, follow: edge.inwardDirection, style: c.style)
    }

    @Test("a multi-finger swipe: the scenes move its way", arguments: swipeCases)
    func swipe(_ c: Case) throws {
        let direction = try #require(c.trigger.direction)
        var engine = Engine(configuration: Self.configuration(c))
        let device = TestDevices.cintiq
        let u = direction.unit
        let swipe = MultiFingerSwipe(
            fingers: 3, direction: direction, travelMM: 42, center: (0.5 - 0.25 * u.x, 0.5 - 0.25 * u.y), spacingMM: 15)
        let events = engine.play(.multiFingerSwipe(swipe, on: device), on: device)
        #expect(events.terminalPhases == [.completed])
        Self.expectScenes(of: events.transitions, follow: direction, style: c.style)
    }

    @Test("a request: the scenes move the plan's own way", arguments: Animator.Style.allCases, operations)
    func request(_ style: Animator.Style, _ operation: Operation) throws {
        var engine = Engine(configuration: EngineConfiguration(
            containers: [Container(name: "c", content: operation.container)], bindings: []))
        var events: [EngineEvent] = []
        try engine.request(operation.operation, in: "c", animator: Animator(style: style), at: .zero, into: &events)
        engine.tickUntilSettled(into: &events)
        #expect(events.terminalPhases == [.completed])
        let plan = try Container(name: "c", content: operation.container).plan(operation.operation).get()
        #expect(plan.motion == operation.requested)
        Self.expectScenes(of: events.transitions, follow: operation.requested, style: style)
    }

    @Test("the default configuration: notifications come down from the top edge, and go back up through the bottom")
    func notifications() throws {
        var engine = Engine(configuration: .default)
        let device = TestDevices.nexus4
        let present = FingerScript.edgeSwipe(.top, travel: 0.7, on: device)
        let dismiss = FingerScript.edgeSwipe(.bottom, travel: 0.7, on: device, startMS: Double(present.end.value) / 1000 + 1000)
        let events = engine.play(present + dismiss, on: device)
        let presented = events.transitions.filter { $0.operation.name == "present" }
        let dismissed = events.transitions.filter { $0.operation.name == "dismiss" }
        #expect(presented.last?.phase == .completed && dismissed.last?.phase == .completed)
        // The card rests over the bottom two thirds: it starts one container above that and comes down.
        let card = presented.map(\.geometry.to.frame.y)
        #expect(abs(card.first! - (NormalizedRect.bottomCard.y - 1)) < 1e-12)
        #expect(card.last == NormalizedRect.bottomCard.y)
        #expect(zip(card, card.dropFirst()).allSatisfy { $0 <= $1 }, "down, with the finger")
        let leaving = dismissed.map(\.geometry.from.frame.y)
        #expect(leaving.first == NormalizedRect.bottomCard.y)
        #expect(abs(leaving.last! - (NormalizedRect.bottomCard.y - 1)) < 1e-12)
        #expect(zip(leaving, leaving.dropFirst()).allSatisfy { $0 >= $1 }, "up, with the finger")
    }
}
