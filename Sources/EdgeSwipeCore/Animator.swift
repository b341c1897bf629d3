/// Where one scene is, at one percent of a transition.
public struct SceneGeometry: Hashable, Sendable, Codable {
    public var scene: String
    public var frame: NormalizedRect
    public var alpha: Double
    /// Higher is nearer the viewer.
    public var zIndex: Int
    public var onStage: Bool
}

/// Both scenes of a transition at one percent, plus the dimming layer of a custom presentation.
public struct TransitionGeometry: Hashable, Sendable, Codable {
    public var from: SceneGeometry
    public var to: SceneGeometry
    /// The alpha of the dimming layer under a custom presentation; `nil` when there is none.
    public var dimmingAlpha: Double?
}

/// An animation controller (`UIViewControllerAnimatedTransitioning`): independent of the kind of transition,
/// it maps progress 0...1 to per-scene geometry. One animator serves navigation, tabs, modal and custom
/// containers; the plan says which scenes move, and the motion (the finger's, or the plan's own for a request)
/// which way.
public struct Animator: Hashable, Sendable, Codable {
    /// The motion (`AnimatorStyle`, which clients are told in the configuration summary).
    public typealias Style = AnimatorStyle

    public var style: Style
    /// `transitionDuration`: the full run of a non-interactive transition.
    public var duration: Microseconds
    /// The curve of a non-interactive run.
    public var curve: CompletionCurve
    /// The dimming layer's alpha at rest under a custom presentation.
    public var dimmingAlpha: Double

    public init(style: Style, duration: Microseconds = .milliseconds(350), curve: CompletionCurve = .easeInOut, dimmingAlpha: Double = 0.5) {
        self.style = style
        self.duration = duration
        self.curve = curve
        self.dimmingAlpha = dimmingAlpha
    }

    public static let slide = Animator(style: .slide)

    /// The geometry of `plan` at `percent` (clamped to 0...1), its scenes moving the way the plan's own motion
    /// says (``TransitionPlan/motion``): as a request runs it.
    public func geometry(for plan: TransitionPlan, at percent: Percent) -> TransitionGeometry {
        geometry(for: plan, moving: plan.motion, at: percent)
    }

    /// The geometry of `plan` at `percent` (clamped to 0...1), its scenes moving `motion`: the way the finger
    /// that drives it moves, so that the scene follows the finger (a presentation from the top edge comes down
    /// out of that edge), or the plan's own motion for a request.
    ///
    /// The incoming scene enters from the side `motion` comes from and the outgoing one leaves toward the side it
    /// goes to, each by a whole container: off stage at the start and at the end, whatever its frame.
    public func geometry(for plan: TransitionPlan, moving motion: SwipeDirection, at percent: Percent) -> TransitionGeometry {
        let p = percent.clamped.value
        let forward = plan.direction == .forward
        let u = motion.unit
        func offset(_ r: NormalizedRect, by amount: Double) -> NormalizedRect {
            r.offsetBy(dx: u.x * amount, dy: u.y * amount)
        }
        /// The incoming scene, from one container behind where it rests to where it rests.
        func entering(_ r: NormalizedRect) -> NormalizedRect { .interpolate(offset(r, by: -1), r, p) }
        /// The outgoing scene, from where it rests to one container ahead.
        func leaving(_ r: NormalizedRect) -> NormalizedRect { .interpolate(r, offset(r, by: 1), p) }
        var fromFrame = plan.fromFrame
        var toFrame = plan.toFrame
        var fromAlpha = 1.0
        var toAlpha = 1.0
        switch style {
        case .slide:
            if plan.presentationStyle != nil {
                // Modal: only the presented scene moves; the presenter stays behind it.
                if forward { toFrame = entering(plan.toFrame) } else { fromFrame = leaving(plan.fromFrame) }
            } else {
                toFrame = entering(plan.toFrame)
                fromFrame = leaving(plan.fromFrame)
            }
        case .cover:
            if forward { toFrame = entering(plan.toFrame) } else { fromFrame = leaving(plan.fromFrame) }
        case .fade:
            fromAlpha = 1 - p
            toAlpha = p
        }
        // The scene that arrives on top in a forward transition, and the one leaving from the top in a reverse.
        let fromZ = forward ? 0 : 1
        let toZ = forward ? 1 : 0
        var dimming: Double? = nil
        if plan.presentationStyle == .custom {
            dimming = dimmingAlpha * (forward ? p : 1 - p)
            if forward { fromAlpha = 1 } else { toAlpha = 1 }
        }
        return TransitionGeometry(
            from: SceneGeometry(scene: plan.from, frame: fromFrame, alpha: fromAlpha, zIndex: fromZ, onStage: true),
            to: SceneGeometry(scene: plan.to, frame: toFrame, alpha: toAlpha, zIndex: toZ, onStage: true),
            dimmingAlpha: dimming)
    }

    /// The geometry after the transition ended: a completed one leaves `from` off stage unless it is a custom
    /// presenter; a cancelled one takes `to` off stage unless it was already there (a custom dismissal).
    public func finalGeometry(for plan: TransitionPlan, completed: Bool) -> TransitionGeometry {
        finalGeometry(for: plan, moving: plan.motion, completed: completed)
    }

    /// ``finalGeometry(for:completed:)`` for scenes moving `motion`.
    public func finalGeometry(for plan: TransitionPlan, moving motion: SwipeDirection, completed: Bool) -> TransitionGeometry {
        var g = geometry(for: plan, moving: motion, at: completed ? .complete : .zero)
        if completed { g.from.onStage = plan.fromStaysOnStage } else { g.to.onStage = plan.toAlreadyOnStage }
        return g
    }
}
