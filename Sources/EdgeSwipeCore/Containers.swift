/// One presented scene in a modal container.
public struct Presentation: Hashable, Sendable, Codable {
    public var scene: String
    public var style: PresentationStyle
    /// Where the presented scene rests (full for full-screen).
    public var frame: NormalizedRect
    public init(scene: String, style: PresentationStyle, frame: NormalizedRect? = nil) {
        self.scene = scene
        self.style = style
        self.frame = frame ?? (style == .custom ? .bottomCard : .full)
    }
}

/// The kinds of container, each with its own state.
public enum ContainerContent: Hashable, Sendable, Codable {
    /// `UINavigationController`: the root is first, the visible scene last.
    case navigation(stack: [String])
    /// `UITabBarController`.
    case tabs(tabs: [String], selected: Int)
    /// Modal presentation over a base scene; the last presentation is on top.
    case modal(base: String, presented: [Presentation])
    /// A container of named children with one showing (seed 001's custom container).
    case custom(children: [String], active: Int)

    public var kind: String {
        switch self {
        case .navigation: "navigation"
        case .tabs: "tabs"
        case .modal: "modal"
        case .custom: "custom"
        }
    }

    /// Whether a container of this kind can carry out `operation`: a navigation pushes and pops, tabs switch, a
    /// modal presents and dismisses, a custom container shows its children. The configuration refuses a binding
    /// whose operation its container cannot carry out, the defaults' included.
    public func accepts(_ operation: TransitionOperation) -> Bool {
        switch operation {
        case .push, .pop, .popToRoot:
            if case .navigation = self { return true }
        case .selectTab, .nextTab, .previousTab:
            if case .tabs = self { return true }
        case .present, .dismiss:
            if case .modal = self { return true }
        case .show:
            if case .custom = self { return true }
        }
        return false
    }

    /// The scene the user sees on top.
    public var visibleScene: String {
        switch self {
        case .navigation(let stack): stack.last ?? ""
        case .tabs(let tabs, let selected): tabs.indices.contains(selected) ? tabs[selected] : ""
        case .modal(let base, let presented): presented.last?.scene ?? base
        case .custom(let children, let active): children.indices.contains(active) ? children[active] : ""
        }
    }
}

/// A named container and its state. State changes only when a transition completes.
public struct Container: Hashable, Sendable, Codable {
    public var name: String
    public var content: ContainerContent
    public init(name: String, content: ContainerContent) {
        self.name = name
        self.content = content
    }
}

/// What a transition does to its container; `nextTab`/`previousTab` resolve to `selectTab` when it starts.
public enum TransitionOperation: Hashable, Sendable, Codable {
    case push(scene: String)
    case pop
    case popToRoot
    case selectTab(index: Int)
    case nextTab
    case previousTab
    case present(scene: String, style: PresentationStyle, frame: NormalizedRect?)
    case dismiss
    case show(child: String)

    /// The wire name (`docs/PROTOCOL.md`).
    public var name: String {
        switch self {
        case .push: "push"
        case .pop: "pop"
        case .popToRoot: "pop-to-root"
        case .selectTab, .nextTab, .previousTab: "select-tab"
        case .present: "present"
        case .dismiss: "dismiss"
        case .show: "show"
        }
    }
}

/// Why a transition cannot start.
public enum TransitionRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownContainer(String)
    case wrongContainerKind(container: String, kind: String, operation: String)
    case busy(container: String, running: TransitionID)
    case notApplicable(container: String, reason: String)
    case unknownScene(container: String, scene: String)
    /// The change would pass one of ``StateLimits``.
    case limitExceeded(container: String, reason: String)
    /// A scene name or a frame that no container may hold.
    case invalid(container: String, reason: String)

    public var code: String {
        switch self {
        case .unknownContainer: "unknown-container"
        case .wrongContainerKind: "wrong-container-kind"
        case .busy: "busy"
        case .notApplicable: "not-applicable"
        case .unknownScene: "unknown-scene"
        case .limitExceeded: "limit-exceeded"
        case .invalid: "invalid-field"
        }
    }

    public var description: String {
        switch self {
        case .unknownContainer(let name): "no container named '\(name)'"
        case .wrongContainerKind(let c, let kind, let op): "container '\(c)' is a \(kind) container and cannot \(op)"
        case .busy(let c, let id): "container '\(c)' is running transition \(id.rawValue); one transition at a time"
        case .notApplicable(let c, let reason): "container '\(c)': \(reason)"
        case .unknownScene(let c, let scene): "container '\(c)' has no scene '\(scene)'"
        case .limitExceeded(let c, let reason): "container '\(c)': \(reason)"
        case .invalid(let c, let reason): "container '\(c)': \(reason)"
        }
    }
}

/// A transition resolved against a container's state, before anything has changed.
public struct TransitionPlan: Hashable, Sendable {
    public var operation: TransitionOperation
    public var from: String
    public var to: String
    public var direction: TransitionDirection
    /// Modal transitions slide vertically; the rest horizontally.
    public var isVertical: Bool
    public var presentationStyle: PresentationStyle?
    public var fromFrame: NormalizedRect
    public var toFrame: NormalizedRect
    /// The state the container takes if the transition completes.
    public var completedContent: ContainerContent
    /// For a custom dismissal the presenter is already on stage and must not be added again.
    public var toAlreadyOnStage: Bool
    /// For a custom presentation the presenter stays on stage afterwards.
    public var fromStaysOnStage: Bool

    /// Which way the scenes move when nothing but the plan decides (a request): a forward transition's incoming
    /// scene enters from the trailing side (the right, or below) and moves left or up; a reverse one's scenes move
    /// right or down. A gesture moves them its own way instead (``Animator/geometry(for:moving:at:)``).
    public var motion: SwipeDirection {
        switch (isVertical, direction) {
        case (false, .forward): .left
        case (false, .reverse): .right
        case (true, .forward): .up
        case (true, .reverse): .down
        }
    }
}

extension Container {
    /// Resolves `operation` against the current state, or says why it cannot run.
    public func plan(_ operation: TransitionOperation) -> Result<TransitionPlan, TransitionRefusal> {
        func wrongKind() -> Result<TransitionPlan, TransitionRefusal> {
            .failure(.wrongContainerKind(container: name, kind: content.kind, operation: operation.name))
        }
        func horizontal(_ op: TransitionOperation, _ from: String, _ to: String, _ dir: TransitionDirection, _ after: ContainerContent) -> TransitionPlan {
            TransitionPlan(
                operation: op, from: from, to: to, direction: dir, isVertical: false, presentationStyle: nil,
                fromFrame: .full, toFrame: .full, completedContent: after, toAlreadyOnStage: false, fromStaysOnStage: false)
        }
        switch (content, operation) {
        case (.navigation(let stack), .push(let scene)):
            guard let top = stack.last else { return .failure(.notApplicable(container: name, reason: "empty stack")) }
            if let problem = StateLimits.nameProblem(scene) { return .failure(.invalid(container: name, reason: "the scene name \(problem)")) }
            guard stack.count < StateLimits.maxStackDepth else {
                return .failure(.limitExceeded(container: name, reason: "the stack holds at most \(StateLimits.maxStackDepth) scenes"))
            }
            return .success(horizontal(operation, top, scene, .forward, .navigation(stack: stack + [scene])))
        case (.navigation(let stack), .pop):
            guard stack.count > 1 else { return .failure(.notApplicable(container: name, reason: "already at the root")) }
            return .success(horizontal(operation, stack[stack.count - 1], stack[stack.count - 2], .reverse, .navigation(stack: Array(stack.dropLast()))))
        case (.navigation(let stack), .popToRoot):
            guard stack.count > 1 else { return .failure(.notApplicable(container: name, reason: "already at the root")) }
            return .success(horizontal(operation, stack[stack.count - 1], stack[0], .reverse, .navigation(stack: [stack[0]])))
        case (.navigation, _):
            return wrongKind()

        case (.tabs(let tabs, let selected), .selectTab(let index)):
            guard tabs.indices.contains(index) else { return .failure(.notApplicable(container: name, reason: "no tab \(index)")) }
            guard index != selected else { return .failure(.notApplicable(container: name, reason: "tab \(index) is already selected")) }
            return .success(horizontal(
                .selectTab(index: index), tabs[selected], tabs[index], index < selected ? .reverse : .forward,
                .tabs(tabs: tabs, selected: index)))
        case (.tabs(_, let selected), .nextTab):
            return plan(.selectTab(index: selected + 1)).mapError { _ in .notApplicable(container: name, reason: "no next tab") }
        case (.tabs(_, let selected), .previousTab):
            return plan(.selectTab(index: selected - 1)).mapError { _ in .notApplicable(container: name, reason: "no previous tab") }
        case (.tabs, _):
            return wrongKind()

        case (.modal(let base, let presented), .present(let scene, let style, let frame)):
            if let problem = StateLimits.nameProblem(scene) { return .failure(.invalid(container: name, reason: "the scene name \(problem)")) }
            if let problem = frame?.validationProblem { return .failure(.invalid(container: name, reason: "frame: \(problem)")) }
            guard presented.count < StateLimits.maxPresented else {
                return .failure(.limitExceeded(container: name, reason: "at most \(StateLimits.maxPresented) scenes are presented at once"))
            }
            if scene == base || presented.contains(where: { $0.scene == scene }) {
                return .failure(.notApplicable(container: name, reason: "'\(scene)' is already on stage"))
            }
            let presenter = presented.last?.scene ?? base
            let p = Presentation(scene: scene, style: style, frame: frame)
            return .success(TransitionPlan(
                operation: operation, from: presenter, to: scene, direction: .forward, isVertical: true,
                presentationStyle: style, fromFrame: .full, toFrame: p.frame,
                completedContent: .modal(base: base, presented: presented + [p]),
                toAlreadyOnStage: false, fromStaysOnStage: style == .custom))
        case (.modal(let base, let presented), .dismiss):
            guard let top = presented.last else { return .failure(.notApplicable(container: name, reason: "nothing is presented")) }
            let presenter = presented.count > 1 ? presented[presented.count - 2].scene : base
            let presenterFrame = presented.count > 1 ? presented[presented.count - 2].frame : NormalizedRect.full
            return .success(TransitionPlan(
                operation: operation, from: top.scene, to: presenter, direction: .reverse, isVertical: true,
                presentationStyle: top.style, fromFrame: top.frame, toFrame: presenterFrame,
                completedContent: .modal(base: base, presented: Array(presented.dropLast())),
                toAlreadyOnStage: top.style == .custom, fromStaysOnStage: false))
        case (.modal, _):
            return wrongKind()

        case (.custom(let children, let active), .show(let child)):
            guard let index = children.firstIndex(of: child) else { return .failure(.unknownScene(container: name, scene: child)) }
            guard index != active else { return .failure(.notApplicable(container: name, reason: "'\(child)' is already showing")) }
            return .success(horizontal(
                operation, children[active], child, index < active ? .reverse : .forward,
                .custom(children: children, active: index)))
        case (.custom, _):
            return wrongKind()
        }
    }
}
