// The gestures, as the engine and the wire both name them: which way a multi-finger swipe moves, the two kinds
// of gesture, and the states clients are told about.

/// Which way the fingers of a multi-finger swipe move, in the user's orientation (y grows downward).
public enum SwipeDirection: String, Hashable, Sendable, Codable, CaseIterable {
    case left, right, up, down

    /// Whether the swipe runs along the x axis.
    public var isHorizontal: Bool { self == .left || self == .right }

    /// The unit vector of the motion.
    public var unit: (x: Double, y: Double) {
        switch self {
        case .left: (-1, 0)
        case .right: (1, 0)
        case .up: (0, -1)
        case .down: (0, 1)
        }
    }

    /// The component of a displacement along this direction (negative when it goes the other way).
    @inlinable public func along(dx: Double, dy: Double) -> Double {
        let u = unit
        return dx * u.x + dy * u.y
    }

    /// The dominant direction of a displacement: the larger component's axis (horizontal on a tie, as GNOME's
    /// swipe tracker decides `|dx| > |dy|` the other way round only when vertical strictly wins), its sign.
    public static func dominant(dx: Double, dy: Double) -> SwipeDirection {
        if abs(dx) >= abs(dy) { return dx < 0 ? .left : .right }
        return dy < 0 ? .up : .down
    }
}

extension Edge {
    /// The way a swipe inward from this edge moves: right from the left edge, down from the top.
    public var inwardDirection: SwipeDirection {
        switch self {
        case .left: .right
        case .right: .left
        case .top: .down
        case .bottom: .up
        }
    }
}

/// The two kinds of gesture the daemon recognizes: a swipe inward from an edge, or a multi-finger swipe anywhere.
public enum GestureKind: String, Hashable, Sendable, Codable, CaseIterable {
    case edge, swipe
}

/// The states of a screen-edge-pan gesture that clients are told about (UIKit's `UIGestureRecognizer.State`
/// without `possible`).
public enum GestureState: String, Hashable, Sendable, Codable, CaseIterable {
    case began, changed, ended, cancelled, failed
}
