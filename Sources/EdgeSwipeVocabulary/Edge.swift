/// A side of the surface, as the user sees it.
public enum Edge: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
    case left, right, top, bottom

    public static func < (a: Edge, b: Edge) -> Bool { a.order < b.order }
    private var order: Int {
        switch self {
        case .left: 0
        case .right: 1
        case .top: 2
        case .bottom: 3
        }
    }

    /// Every edge in the fixed order used wherever a choice must not depend on set order: left, right, top,
    /// bottom. A constant, so that looping over it never allocates.
    public static let ordered: [Edge] = [.left, .right, .top, .bottom]

    /// The inward unit normal in the user's orientation (y grows downward).
    public var inwardNormal: (x: Double, y: Double) {
        switch self {
        case .left: (1, 0)
        case .right: (-1, 0)
        case .top: (0, 1)
        case .bottom: (0, -1)
        }
    }

    /// Whether the swipe runs along the x axis.
    public var isHorizontal: Bool { self == .left || self == .right }

    /// How far `p` lies from this edge, as a fraction of the axis across it.
    @inlinable public func distance(of p: NormalizedPoint) -> Double {
        switch self {
        case .left: p.x
        case .right: 1 - p.x
        case .top: p.y
        case .bottom: 1 - p.y
        }
    }

    /// The inward component of a displacement given in normalized units.
    @inlinable public func inward(dx: Double, dy: Double) -> Double {
        let n = inwardNormal
        return dx * n.x + dy * n.y
    }

    public var edges: Edges {
        switch self {
        case .left: .left
        case .right: .right
        case .top: .top
        case .bottom: .bottom
        }
    }
}

/// A set of edges, as `UIRectEdge` is for `UIScreenEdgePanGestureRecognizer.edges`.
public struct Edges: OptionSet, Hashable, Sendable, Codable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let left = Edges(rawValue: 1 << 0)
    public static let right = Edges(rawValue: 1 << 1)
    public static let top = Edges(rawValue: 1 << 2)
    public static let bottom = Edges(rawValue: 1 << 3)
    public static let all: Edges = [.left, .right, .top, .bottom]

    public init(_ edges: [Edge]) {
        self.init()
        for e in edges { insert(e.edges) }
    }

    /// The members in a fixed order (left, right, top, bottom), so that output never depends on set order.
    public var members: [Edge] { Edge.ordered.filter { contains($0.edges) } }
}
