import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

struct LifecycleCase: CustomTestStringConvertible, Sendable {
    var name: String
    var container: Container
    var operation: TransitionOperation
    var atStart: [String]
    var completed: [String]
    var cancelled: [String]
    var testDescription: String { name }
}

@Suite("Lifecycle order (CONCEPTS.md §4)")
struct LifecycleTests {
    static let fullScreenPushLike = (
        start: ["to will-appear", "from will-disappear"],
        completed: ["to did-appear", "from did-disappear"],
        cancelled: ["to will-disappear", "from will-appear", "to did-disappear", "from did-appear"])

    static let cases: [LifecycleCase] = [
        LifecycleCase(
            name: "push", container: Container(name: "c", content: .navigation(stack: ["a", "from"])),
            operation: .push(scene: "to"), atStart: fullScreenPushLike.start, completed: fullScreenPushLike.completed,
            cancelled: fullScreenPushLike.cancelled),
        LifecycleCase(
            name: "pop", container: Container(name: "c", content: .navigation(stack: ["to", "from"])),
            operation: .pop, atStart: fullScreenPushLike.start, completed: fullScreenPushLike.completed,
            cancelled: fullScreenPushLike.cancelled),
        LifecycleCase(
            name: "present full-screen", container: Container(name: "c", content: .modal(base: "from", presented: [])),
            operation: .present(scene: "to", style: .fullScreen, frame: nil), atStart: fullScreenPushLike.start,
            completed: fullScreenPushLike.completed, cancelled: fullScreenPushLike.cancelled),
        LifecycleCase(
            name: "dismiss full-screen",
            container: Container(name: "c", content: .modal(base: "to", presented: [Presentation(scene: "from", style: .fullScreen)])),
            operation: .dismiss, atStart: fullScreenPushLike.start, completed: fullScreenPushLike.completed,
            cancelled: fullScreenPushLike.cancelled),
        // A custom presenter never disappears, and is never asked to appear again.
        LifecycleCase(
            name: "present custom", container: Container(name: "c", content: .modal(base: "from", presented: [])),
            operation: .present(scene: "to", style: .custom, frame: nil), atStart: ["to will-appear"],
            completed: ["to did-appear"], cancelled: ["to will-disappear", "to did-disappear"]),
        LifecycleCase(
            name: "dismiss custom",
            container: Container(name: "c", content: .modal(base: "to", presented: [Presentation(scene: "from", style: .custom)])),
            operation: .dismiss, atStart: ["from will-disappear"], completed: ["from did-disappear"],
            cancelled: ["from will-appear", "from did-appear"]),
        LifecycleCase(
            name: "select tab", container: Container(name: "c", content: .tabs(tabs: ["x", "from", "to"], selected: 1)),
            operation: .nextTab, atStart: fullScreenPushLike.start, completed: fullScreenPushLike.completed,
            cancelled: fullScreenPushLike.cancelled),
        LifecycleCase(
            name: "custom container", container: Container(name: "c", content: .custom(children: ["from", "to"], active: 0)),
            operation: .show(child: "to"), atStart: fullScreenPushLike.start, completed: fullScreenPushLike.completed,
            cancelled: fullScreenPushLike.cancelled),
    ]

    @Test("completed and cancelled, interactively", arguments: cases, [true, false])
    func order(_ c: LifecycleCase, _ commit: Bool) throws {
        let config = EngineConfiguration(
            containers: [c.container], bindings: [Binding(edge: .left, container: "c", operation: c.operation)])
        var engine = Engine(configuration: config)
        let events = engine.play(.edgeSwipe(.left, travel: commit ? 0.6 : 0.2, on: TestDevices.nexus4), on: TestDevices.nexus4)
        #expect(events.terminalPhases == [commit ? .completed : .cancelled])
        #expect(events.lifecycleLines == c.atStart + (commit ? c.completed : c.cancelled))
        // Lifecycle events come before the terminal event, and nothing about the transition follows it.
        let terminalIndex = try #require(events.firstIndex { if case .transition(let t) = $0 { t.phase.isTerminal } else { false } })
        #expect(!events[(terminalIndex + 1)...].contains { if case .lifecycle = $0 { true } else if case .transition = $0 { true } else { false } })
        // The container changes only on completion.
        let after = engine.containers[0]
        if commit { #expect(after != c.container) } else { #expect(after == c.container) }
    }

    @Test("a custom dismissal never re-adds the presenter; a custom presentation keeps it on stage")
    func customStageRule() throws {
        let dismissPlan = try Container(
            name: "c", content: .modal(base: "home", presented: [Presentation(scene: "card", style: .custom)])
        ).plan(.dismiss).get()
        #expect(dismissPlan.toAlreadyOnStage)
        let animator = Animator.slide
        for p in stride(from: 0.0, through: 1.0, by: 0.25) {
            let g = animator.geometry(for: dismissPlan, at: Percent(p))
            #expect(g.to.frame == .full, "the presenter does not move")
            #expect(g.dimmingAlpha == 0.5 * (1 - p))
        }
        #expect(animator.finalGeometry(for: dismissPlan, completed: false).to.onStage)
        #expect(!animator.finalGeometry(for: dismissPlan, completed: true).from.onStage)

        let presentPlan = try Container(name: "c", content: .modal(base: "home", presented: []))
            .plan(.present(scene: "card", style: .custom, frame: nil)).get()
        #expect(animator.finalGeometry(for: presentPlan, completed: true).from.onStage)
        #expect(animator.finalGeometry(for: presentPlan, completed: true).to.frame == .bottomCard)
        let fullPlan = try Container(name: "c", content: .modal(base: "home", presented: []))
            .plan(.present(scene: "sheet", style: .fullScreen, frame: nil)).get()
        #expect(!animator.finalGeometry(for: fullPlan, completed: true).from.onStage)
    }

    @Test("animators map progress to geometry", arguments: Animator.Style.allCases)
    func animatorEndpoints(_ style: Animator.Style) throws {
        let plan = try Container(name: "c", content: .navigation(stack: ["a", "b"])).plan(.push(scene: "c")).get()
        let animator = Animator(style: style)
        let start = animator.geometry(for: plan, at: .zero)
        let end = animator.geometry(for: plan, at: .complete)
        #expect(end.to.frame == .full)
        #expect(end.to.alpha == 1)
        #expect(start.from.frame == .full)
        #expect(start.from.alpha == 1)
        #expect(end.to.zIndex > end.from.zIndex)
        switch style {
        case .slide:
            #expect(start.to.frame.x == 1)
            #expect(end.from.frame.x == -1)
        case .cover:
            #expect(start.to.frame.x == 1)
            #expect(end.from.frame == .full)
        case .fade:
            #expect(start.to.alpha == 0)
            #expect(end.from.alpha == 0)
        }
    }

    @Test("tab direction follows index order")
    func tabDirection() throws {
        let tabs = Container(name: "t", content: .tabs(tabs: ["a", "b", "c"], selected: 1))
        #expect(try tabs.plan(.selectTab(index: 2)).get().direction == .forward)
        #expect(try tabs.plan(.selectTab(index: 0)).get().direction == .reverse)
        #expect(try tabs.plan(.previousTab).get().to == "a")
    }
}
