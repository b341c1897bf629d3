// The transitions, as the engine and the wire both name them: a transition's id, phases and direction, how a
// scene is presented and where (in the container's unit square), the appearance and presentation callbacks, the
// interaction changes, and the animators' motions.

/// Identifies one transition from its start to its terminal event; never reused by an engine.
public struct TransitionID: Hashable, Comparable, Sendable, Codable {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// The phases a transition goes through, as clients see them; `completed` and `cancelled` are terminal. They are
/// the states of the engine's `PercentDrivenInteractiveTransition`, whose log lines name them.
public enum TransitionPhase: String, Hashable, Sendable, Codable, CaseIterable {
    case began, changed, finishing, cancelling, completed, cancelled

    public var isTerminal: Bool { self == .completed || self == .cancelled }
    public var isRunningOut: Bool { self == .finishing || self == .cancelling }
}

/// Which way the scenes move: forward for push, present and a higher tab, reverse for their mirrors.
public enum TransitionDirection: String, Hashable, Sendable, Codable {
    case forward, reverse
}

/// How a presented scene sits over its presenter (`UIModalPresentationStyle`).
public enum PresentationStyle: String, Hashable, Sendable, Codable, CaseIterable {
    /// The presenter leaves the stage when the presentation ends and comes back for the dismissal.
    case fullScreen = "full-screen"
    /// The presenter stays on stage under the presented scene (a card over a dimming layer); a custom
    /// dismissal must not add it again.
    case custom
}

/// A rectangle in the container's unit square: (0,0) is top-left, (1,1) bottom-right.
public struct NormalizedRect: Hashable, Sendable, Codable {
    public var x, y, width, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
    public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)
    /// The default custom presentation: a card over the bottom two thirds.
    public static let bottomCard = NormalizedRect(x: 0, y: 1.0 / 3.0, width: 1, height: 2.0 / 3.0)

    public func offsetBy(dx: Double, dy: Double) -> NormalizedRect {
        NormalizedRect(x: x + dx, y: y + dy, width: width, height: height)
    }
    /// Linear interpolation that lands exactly on `a` at 0 and `b` at 1, so resting frames compare equal.
    public static func interpolate(_ a: NormalizedRect, _ b: NormalizedRect, _ t: Double) -> NormalizedRect {
        if t <= 0 { return a }
        if t >= 1 { return b }
        return NormalizedRect(
            x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t,
            width: a.width + (b.width - a.width) * t, height: a.height + (b.height - a.height) * t)
    }
}

/// The appearance callbacks of a scene (`viewWillAppear` and friends).
public enum LifecycleKind: String, Hashable, Sendable, Codable {
    case willAppear = "will-appear"
    case didAppear = "did-appear"
    case willDisappear = "will-disappear"
    case didDisappear = "did-disappear"
}

/// Which presentation controller callback a `presentation` message is: around a presentation or a dismissal.
public enum PresentationKind: String, Hashable, Sendable, Codable, CaseIterable {
    case presentation, dismissal
}

/// When a presentation controller callback comes: `will-begin` after the transition's `began`, `did-end` before its
/// terminal event.
public enum PresentationPhase: String, Hashable, Sendable, Codable, CaseIterable {
    case willBegin = "will-begin"
    case didEnd = "did-end"
}

/// The transition coordinator's interaction change: the finger let go (`ended`), or a touch caught the run-out
/// (`began`).
public enum InteractionPhase: String, Hashable, Sendable, Codable, CaseIterable {
    case began, ended
}

/// How an animator moves the scenes.
public enum AnimatorStyle: String, Hashable, Sendable, Codable, CaseIterable {
    /// Both scenes move together (navigation, tabs, custom containers); in a modal container only the
    /// presented scene moves, over its presenter.
    case slide
    /// The incoming scene slides over the outgoing one, which stays put (the reverse uncovers it).
    case cover
    /// A cross-dissolve.
    case fade
}
