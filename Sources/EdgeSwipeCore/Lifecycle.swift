/// One appearance callback, in the order CONCEPTS.md §4 gives.
public struct LifecycleStep: Hashable, Sendable {
    public var scene: String
    public var kind: LifecycleKind
}

extension TransitionPlan {
    /// Whether `to` appears: not when a custom dismissal uncovers a presenter that never left.
    public var toChangesAppearance: Bool { !toAlreadyOnStage }
    /// Whether `from` disappears: not when it presents a custom card and stays visible underneath.
    public var fromChangesAppearance: Bool { !fromStaysOnStage }

    /// At the start: the incoming scene will appear, then the outgoing one will disappear
    /// ("B willAppear -> animation starts").
    public var lifecycleAtStart: [LifecycleStep] {
        var steps: [LifecycleStep] = []
        if toChangesAppearance { steps.append(LifecycleStep(scene: to, kind: .willAppear)) }
        if fromChangesAppearance { steps.append(LifecycleStep(scene: from, kind: .willDisappear)) }
        return steps
    }

    /// At the end ("B didAppear -> A didDisappear -> animation ended"). On a cancel the calls are reversed: the
    /// scene that was to appear will and did disappear, the one that was to leave will and did appear again.
    public func lifecycleAtEnd(completed: Bool) -> [LifecycleStep] {
        var steps: [LifecycleStep] = []
        if completed {
            if toChangesAppearance { steps.append(LifecycleStep(scene: to, kind: .didAppear)) }
            if fromChangesAppearance { steps.append(LifecycleStep(scene: from, kind: .didDisappear)) }
        } else {
            if toChangesAppearance { steps.append(LifecycleStep(scene: to, kind: .willDisappear)) }
            if fromChangesAppearance { steps.append(LifecycleStep(scene: from, kind: .willAppear)) }
            if toChangesAppearance { steps.append(LifecycleStep(scene: to, kind: .didDisappear)) }
            if fromChangesAppearance { steps.append(LifecycleStep(scene: from, kind: .didAppear)) }
        }
        return steps
    }
}
