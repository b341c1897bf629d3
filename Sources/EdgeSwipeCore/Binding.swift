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

/// Per-device-kind tuning.
public struct DeviceKindSettings: Hashable, Sendable, Codable {
    public var recognizer: EdgeRecognizerSettings
    public var decision: ReleaseDecision
    public var reference: PercentReference
    /// The size assumed for devices of this kind that report no resolution.
    public var assumedSize: MillimeterSize
    /// Multi-finger swipes: the axis lock, the default references, the detector's finger counting.
    public var swipe: SwipeSettings
    public init(
        recognizer: EdgeRecognizerSettings, decision: ReleaseDecision, reference: PercentReference,
        assumedSize: MillimeterSize, swipe: SwipeSettings
    ) {
        self.recognizer = recognizer
        self.decision = decision
        self.reference = reference
        self.assumedSize = assumedSize
        self.swipe = swipe
    }
    public static func defaults(for kind: DeviceKind) -> DeviceKindSettings {
        DeviceKindSettings(
            recognizer: .defaults(for: kind), decision: .defaults(for: kind), reference: .defaults(for: kind),
            assumedSize: TouchDevice.defaultAssumedSize(for: kind), swipe: .defaults(for: kind))
    }
}

/// Everything the engine is configured with. The daemon builds it from TOML (`config/default.toml`).
public struct EngineConfiguration: Hashable, Sendable, Codable {
    public var containers: [Container]
    public var bindings: [Binding]
    public var touchscreen: DeviceKindSettings
    public var touchpad: DeviceKindSettings
    public var animator: Animator
    public var completionSpeed: Double
    public var completionCurve: CompletionCurve
    /// How often run-out progress is reported while something animates (120 Hz by default); never while idle.
    public var tickInterval: Microseconds
    /// What a swipe on an edge whose bindings cannot run shows while the finger moves: niri's rubber band by
    /// default.
    public var overscroll: Overscroll

    public init(
        containers: [Container], bindings: [Binding],
        touchscreen: DeviceKindSettings = .defaults(for: .touchscreen),
        touchpad: DeviceKindSettings = .defaults(for: .touchpad),
        animator: Animator = .slide, completionSpeed: Double = 1, completionCurve: CompletionCurve = .easeInOut,
        tickInterval: Microseconds = Microseconds(8333), overscroll: Overscroll = .default
    ) {
        self.containers = containers
        self.bindings = bindings
        self.touchscreen = touchscreen
        self.touchpad = touchpad
        self.animator = animator
        self.completionSpeed = completionSpeed
        self.completionCurve = completionCurve
        self.tickInterval = tickInterval
        self.overscroll = overscroll
    }

    /// The edges with at least one binding for `kind`: where a first touch is judged (and what a plot shades).
    public func boundEdges(for kind: DeviceKind) -> Edges {
        var e: Edges = []
        for b in bindings where b.listens(to: kind) {
            if let edge = b.edge { e.insert(edge.edges) }
        }
        return e
    }

    public func settings(for kind: DeviceKind) -> DeviceKindSettings {
        switch kind {
        case .touchscreen: touchscreen
        case .touchpad: touchpad
        }
    }

    /// The built-in scene graph: from the initial state, a committed swipe from every edge, on a touchscreen
    /// and on a touchpad, starts and completes a transition (docs/ARCHITECTURE.md, "The default configuration").
    ///
    /// - left: back (pop `app`), else the previous tab of `shell`;
    /// - right: the next tab of `shell`;
    /// - top: present `notifications` as a custom card over `overlay`, or dismiss what is presented;
    /// - bottom: dismiss what `overlay` presents, else present `overview` full-screen;
    /// - three fingers moving left: the next tab of `shell`; moving right: the previous one (GNOME's workspace
    ///   swipe).
    public static let `default` = EngineConfiguration(
        containers: [
            Container(name: "shell", content: .tabs(tabs: ["launcher", "home", "settings"], selected: 1)),
            Container(name: "app", content: .navigation(stack: ["home"])),
            Container(name: "overlay", content: .modal(base: "shell", presented: [])),
        ],
        bindings: [
            Binding(edge: .left, container: "app", operation: .pop),
            Binding(edge: .left, container: "shell", operation: .previousTab),
            Binding(edge: .right, container: "shell", operation: .nextTab),
            Binding(
                edge: .top, container: "overlay",
                operation: .present(scene: "notifications", style: .custom, frame: nil),
                animator: Animator(style: .cover)),
            Binding(edge: .top, container: "overlay", operation: .dismiss),
            Binding(edge: .bottom, container: "overlay", operation: .dismiss),
            Binding(
                edge: .bottom, container: "overlay",
                operation: .present(scene: "overview", style: .fullScreen, frame: nil)),
            Binding(swipe: .left, fingers: 3...3, container: "shell", operation: .nextTab),
            Binding(swipe: .right, fingers: 3...3, container: "shell", operation: .previousTab),
        ])
}
