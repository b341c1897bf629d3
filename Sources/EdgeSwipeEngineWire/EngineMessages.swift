public import EdgeSwipeCore
public import EdgeSwipeProtocol

// The engine's events and state as the wire's messages: each message's initializer from the engine value it
// describes. The messages themselves, and how they are written and read, are the protocol's (`Messages.swift`);
// only the daemon's side of the wire, which has an engine, builds them from one.

extension DeviceInfo {
    public init(_ d: TouchDevice) {
        self.init()
        id = d.id.rawValue
        name = d.name
        kind = d.kind
        path = d.path
        sizeMM = SizeMM(width: d.size.width.value, height: d.size.height.value)
        sizeKnown = d.hasPhysicalSize
        rotation = d.rotation.rawValue
        autoRotation = d.followsAccelerometer
        output = d.output
        calibration = (d.calibration ?? .identity).values
    }
}

extension PresentationInfo {
    public init(_ p: Presentation) {
        self.init()
        scene = p.scene
        style = p.style
        frame = p.frame
    }
}

extension ContainerInfo {
    public init(_ container: Container) {
        self.init()
        name = container.name
        kind = container.content.kind
        visible = container.content.visibleScene
        switch container.content {
        case .navigation(let stack):
            self.stack = stack
        case .tabs(let tabs, let selected):
            self.tabs = tabs
            self.selected = selected
        case .modal(let base, let presented):
            self.base = base
            self.presented = presented.map(PresentationInfo.init)
        case .custom(let children, let active):
            self.children = children
            self.active = active
        }
    }

    /// The core's view of the same state; `nil` when a field of the kind is missing or the kind is unknown.
    public var content: ContainerContent? {
        switch kind {
        case "navigation": stack.map { .navigation(stack: $0) }
        case "tabs": tabs.flatMap { t in selected.map { .tabs(tabs: t, selected: $0) } }
        case "modal": base.flatMap { b in presented.map { .modal(base: b, presented: $0.map { Presentation(scene: $0.scene, style: $0.style, frame: $0.frame) }) } }
        case "custom": children.flatMap { c in active.map { .custom(children: c, active: $0) } }
        default: nil
        }
    }
}

extension RunningInfo {
    public init(_ r: RunningTransitionSummary) {
        self.init()
        id = r.id.rawValue
        container = r.container
        operation = r.operation
        phase = r.phase
        percent = r.percent.value
    }
}

extension StateInfo {
    public init(containers: [Container], running: [RunningTransitionSummary]) {
        self.init()
        self.containers = containers.map(ContainerInfo.init)
        self.running = running.map(RunningInfo.init)
    }
}

extension HelloMessage {
    /// The hello for `snapshot`, as a connection with `access` is greeted.
    public init(_ snapshot: ServerSnapshot, access: AccessInfo, maxLineBytes: Int = WireProtocol.maxLineBytes, time: MonotonicInstant) {
        self.init()
        timeUS = time.microseconds
        server = snapshot.serverVersion
        self.maxLineBytes = maxLineBytes
        self.access = access
        devices = snapshot.devices.map(DeviceInfo.init)
        config = snapshot.config
        state = StateInfo(containers: snapshot.containers, running: snapshot.running)
    }
}

extension GestureMessage {
    public init(_ e: GestureEvent) {
        self.init()
        timeUS = e.time.microseconds
        kind = e.kind.rawValue
        edge = e.edge
        direction = e.trigger.direction
        state = e.state
        device = e.device.rawValue
        deviceKind = e.deviceKind
        fingers = e.fingers
        location = Vector2(x: e.location.x, y: e.location.y)
        translationMM = Vector2(x: e.translation.x, y: e.translation.y)
        velocityMMPerS = Vector2(x: e.velocity.x, y: e.velocity.y)
        progress = e.state == .changed
        transition = e.transition?.rawValue
        blocked = e.blocked?.rawValue
        overscroll = e.overscroll?.value
        overscrollMM = e.overscrollMM?.value
        animation = e.animation.map(AnimationInfo.init)
        reason = e.failureReason
    }
}

extension SceneGeometryInfo {
    public init(_ g: SceneGeometry) {
        self.init(scene: g.scene, frame: g.frame, alpha: g.alpha, zIndex: g.zIndex, onStage: g.onStage)
    }
}

extension GeometryInfo {
    public init(_ g: TransitionGeometry) {
        self.init(from: SceneGeometryInfo(g.from), to: SceneGeometryInfo(g.to), dimmingAlpha: g.dimmingAlpha)
    }
}

extension ReleaseInfo {
    public init(_ j: ReleaseJudgement) {
        self.init(projectedPercent: j.projected.value, threshold: j.threshold.value)
    }
}

extension TransitionMessage {
    public init(_ e: TransitionEvent) {
        self.init()
        timeUS = e.time.microseconds
        id = e.id.rawValue
        operation = e.operation.name
        container = e.container
        from = e.from
        to = e.to
        direction = e.direction
        phase = e.phase
        percent = e.percent.value
        velocity = e.velocity.value
        interactive = e.interactive
        progress = e.isProgress
        presentationStyle = e.presentationStyle
        edge = e.edge
        device = e.device?.rawValue
        swipeDirection = e.swipe
        swipeFingers = e.swipeFingers
        animation = e.animation.map(AnimationInfo.init)
        geometry = GeometryInfo(e.geometry)
        release = e.release.map(ReleaseInfo.init)
    }
}

extension LifecycleMessage {
    public init(_ e: LifecycleEvent) {
        self.init()
        timeUS = e.time.microseconds
        transition = e.transition.rawValue
        container = e.container
        scene = e.scene
        event = e.kind
    }
}

extension PresentationMessage {
    public init(_ e: PresentationEvent) {
        self.init()
        timeUS = e.time.microseconds
        transition = e.transition.rawValue
        container = e.container
        kind = e.kind
        phase = e.phase
        completed = e.completed
        presented = e.presented
        presenting = e.presenting
        style = e.style
        frame = e.frame
    }
}

extension InteractionMessage {
    public init(_ e: InteractionEvent) {
        self.init()
        timeUS = e.time.microseconds
        transition = e.transition.rawValue
        container = e.container
        phase = e.phase
        cancelled = e.cancelled
        percent = e.percent.value
        velocity = e.velocity.value
        release = e.decision.map(ReleaseInfo.init)
    }
}

extension StateMessage {
    public init(_ s: StateSnapshot) {
        self.init()
        timeUS = s.time.microseconds
        containers = s.containers.map(ContainerInfo.init)
        running = s.running.map { RunningInfo(RunningTransitionSummary($0)) }
    }
}

extension DeviceMessage {
    public init(_ e: DeviceEvent) {
        self.init()
        timeUS = e.time.microseconds
        change = e.change
        device = DeviceInfo(e.device)
    }
}

extension ReplyPayload {
    public init(_ result: ReplyResult) {
        self.init()
        switch result {
        case .empty:
            break
        case .subscribed(let s):
            topics = s.topics.members
            switch s.ticks {
            case .every: tickHz = nil
            case .none: tickHz = 0
            case .hz(let hz): tickHz = hz
            }
        case .status(let s):
            protocolVersion = WireProtocol.version
            server = s.serverVersion
            devices = s.devices.map(DeviceInfo.init)
            config = s.config
            state = StateInfo(containers: s.containers, running: s.running)
        case .devices(let list):
            devices = list.map(DeviceInfo.init)
        case .transition(let id):
            transition = id.rawValue
        case .rotation(let turned, let waiting):
            applied = turned.map(\.rawValue)
            pending = waiting.map(\.rawValue)
        }
    }
}
