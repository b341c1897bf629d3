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
