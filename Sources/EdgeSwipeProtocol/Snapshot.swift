/// What a client is told about the configuration: enough to show which edge does what, not the whole file.
public struct ConfigSummary: Hashable, Sendable, Codable, WireObject {
    /// Where the configuration came from: a file path, or `built-in`.
    public var source = ""
    public var containers: [String] = []
    public var bindings: [BindingSummary] = []
    public var animator = AnimatorSummary()
    public var completionCurve = ""
    public var completionSpeed = 0.0
    /// The run-out frame rate the engine ticks at while something animates.
    public var tickHz = 0.0
    /// The rubber band's limit (`[transition] rubber_band_limit`): the bound a blocked gesture's `overscroll` tends
    /// to and never reaches, which a client measures the band it draws against. Absent with `overscroll = "none"`
    /// (no gesture then carries an `overscroll`), and from servers older than it.
    public var rubberBandLimit: Double?

    init() {}

    public init(
        source: String, containers: [String], bindings: [BindingSummary], animator: AnimatorSummary,
        completionCurve: String, completionSpeed: Double, tickHz: Double, rubberBandLimit: Double? = nil
    ) {
        self.source = source
        self.containers = containers
        self.bindings = bindings
        self.animator = animator
        self.completionCurve = completionCurve
        self.completionSpeed = completionSpeed
        self.tickHz = tickHz
        self.rubberBandLimit = rubberBandLimit
    }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("source", &source)
        try c.field("containers", &containers)
        try c.field("bindings", &bindings)
        try c.field("animator", &animator)
        try c.field("completion_curve", &completionCurve)
        try c.field("completion_speed", &completionSpeed)
        try c.field("tick_hz", &tickHz)
        try c.field("rubber_band_limit", &rubberBandLimit)
    }
}

/// One binding: which edge (or multi-finger swipe) drives which operation on which container.
public struct BindingSummary: Hashable, Sendable, Codable, WireObject {
    /// `edge` or `swipe`. Always sent; absent from servers older than multi-finger swipes, whose bindings were all
    /// edges (``kind``).
    public var gesture: GestureKind?

    /// ``gesture``, an older server's absent one read as `edge`.
    public var kind: GestureKind { gesture ?? .edge }
    /// An edge binding's edge.
    public var edge: Edge?
    /// A swipe binding's direction.
    public var direction: SwipeDirection?
    public var container = ""
    public var operation = ""
    /// Empty means every kind.
    public var deviceKinds: [DeviceKind] = []
    public var fingers = FingerRange()

    public struct FingerRange: Hashable, Sendable, Codable, WireObject {
        public var min = 0
        public var max = 0

        init() {}

        public init(min: Int, max: Int) {
            self.min = min
            self.max = max
        }

        mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
            try c.field("min", &min)
            try c.field("max", &max)
        }
    }

    init() {}

    public init(
        gesture: GestureKind, edge: Edge?, direction: SwipeDirection?, container: String, operation: String,
        deviceKinds: [DeviceKind], fingers: FingerRange
    ) {
        self.gesture = gesture
        self.edge = edge
        self.direction = direction
        self.container = container
        self.operation = operation
        self.deviceKinds = deviceKinds
        self.fingers = fingers
    }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        // Always written; read as optional, because a daemon from before multi-finger swipes sends no `gesture`
        // and its bindings are all edge bindings (protocol 1 only adds fields).
        var kind: GestureKind? = gesture
        try c.field("gesture", &kind)
        gesture = kind ?? .edge
        try c.field("edge", &edge)
        try c.field("direction", &direction)
        try c.field("container", &container)
        try c.field("operation", &operation)
        try c.field("device_kinds", &deviceKinds)
        try c.field("fingers", &fingers)
    }
}

/// The default animator.
public struct AnimatorSummary: Hashable, Sendable, Codable, WireObject {
    public var style = AnimatorStyle.slide
    public var durationUS: Int64 = 0
    public var curve = ""

    init() {}

    public init(style: AnimatorStyle, durationUS: Int64, curve: String) {
        self.style = style
        self.durationUS = durationUS
        self.curve = curve
    }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("style", &style)
        try c.field("duration_us", &durationUS)
        try c.field("curve", &curve)
    }
}
