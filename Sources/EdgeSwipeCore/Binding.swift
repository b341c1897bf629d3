/// The length a swipe must travel inward to reach 100 %.
public enum PercentReference: Hashable, Sendable, Codable {
    /// The full extent of the device along the swipe's axis (UIKit apps use the container's width), capped at
    /// `capMM` on very large screens so that a 27" display does not need a 60 cm swipe.
    case extent(capMM: Double?)
    /// A fixed physical length; on devices that hide their size, measured against the assumed size.
    case millimeters(Double)
    /// A fixed fraction of the axis.
    case fraction(Double)

    /// 100 % at the screen's full extent, capped at 250 mm (a 12.9" tablet in landscape is ~280 mm wide).
    public static let touchscreenDefault = PercentReference.extent(capMM: 250)
    /// 60 mm: most of a laptop pad's width once the zones are taken off, and an easy thumb-free stroke.
    public static let touchpadDefault = PercentReference.millimeters(60)

    public static func defaults(for kind: DeviceKind) -> PercentReference {
        switch kind {
        case .touchscreen: touchscreenDefault
        case .touchpad: touchpadDefault
        }
    }

    /// The reference as a fraction of the axis across `edge` on `device` (never below 1e-3).
    public func fraction(across edge: Edge, on device: TouchDevice) -> Double {
        let axisMM = (edge.isHorizontal ? device.size.width : device.size.height).value
        let value: Double
        switch self {
        case .extent(let cap):
            if let cap, device.hasPhysicalSize, axisMM > 0 { value = min(1, cap / axisMM) } else { value = 1 }
        case .millimeters(let mm):
            value = axisMM > 0 ? mm / axisMM : 1
        case .fraction(let f):
            value = f
        }
        return value.isFinite ? max(1e-3, value) : 1
    }
}

/// Maps a gesture (a swipe inward from one edge, or a multi-finger swipe in one direction) on one kind of device
/// to an operation (the transition delegate's job).
///
/// Bindings are tried in order; the first one whose operation can run now wins. One whose operation cannot
/// apply (pop at the root, dismiss with nothing presented, a busy container) is skipped. If none applies, the
/// gesture still begins and is reported as blocked (with its rubber band), so a shell can show that there is
/// nowhere to go; an edge or a direction with no binding at all never begins.
public struct Binding: Hashable, Sendable, Codable {
    /// What starts it: an edge, or a multi-finger swipe's direction.
    public var trigger: GestureTrigger
    /// The kinds of device it listens to; empty means all.
    public var deviceKinds: [DeviceKind]
    /// How many fingers may be down when the gesture begins.
    public var fingers: ClosedRange<Int>
    public var container: String
    public var operation: TransitionOperation
    /// `nil` uses the engine's default animator.
    public var animator: Animator?
    /// `nil` uses the device kind's default reference (for swipes, the kind's swipe reference for the axis).
    public var reference: PercentReference?
    /// `nil` uses the device kind's default decision.
    public var decision: ReleaseDecision?

    /// An edge binding.
    public init(
        edge: Edge, deviceKinds: [DeviceKind] = [], fingers: ClosedRange<Int> = 1...10, container: String,
        operation: TransitionOperation, animator: Animator? = nil, reference: PercentReference? = nil,
        decision: ReleaseDecision? = nil
    ) {
        self.init(
            trigger: .edge(edge), deviceKinds: deviceKinds, fingers: fingers, container: container, operation: operation,
            animator: animator, reference: reference, decision: decision)
    }

    /// A multi-finger swipe binding: `fingers` fingers moving `direction` anywhere on the device.
    public init(
        swipe direction: SwipeDirection, deviceKinds: [DeviceKind] = [], fingers: ClosedRange<Int> = 3...3,
        container: String, operation: TransitionOperation, animator: Animator? = nil,
        reference: PercentReference? = nil, decision: ReleaseDecision? = nil
    ) {
        self.init(
            trigger: .swipe(direction), deviceKinds: deviceKinds, fingers: fingers, container: container,
            operation: operation, animator: animator, reference: reference, decision: decision)
    }

    public init(
        trigger: GestureTrigger, deviceKinds: [DeviceKind], fingers: ClosedRange<Int>, container: String,
        operation: TransitionOperation, animator: Animator?, reference: PercentReference?, decision: ReleaseDecision?
    ) {
        self.trigger = trigger
        self.deviceKinds = deviceKinds
        self.fingers = fingers
        self.container = container
        self.operation = operation
        self.animator = animator
        self.reference = reference
        self.decision = decision
    }

    /// The edge of an edge binding; `nil` for a swipe binding.
    public var edge: Edge? { trigger.edge }
    /// The direction of a swipe binding; `nil` for an edge binding.
    public var direction: SwipeDirection? { trigger.direction }

    public func listens(to kind: DeviceKind) -> Bool { deviceKinds.isEmpty || deviceKinds.contains(kind) }
}
