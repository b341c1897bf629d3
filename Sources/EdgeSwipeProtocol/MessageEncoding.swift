public import EdgeSwipeCore

/// Which earlier undelivered message a progress-only message supersedes: the latest wins per transition, and
/// per device for gestures.
public enum CoalescingKey: Hashable, Sendable {
    case transition(TransitionID)
    case gesture(DeviceID)
}

/// What a message means for delivery: whether it may be coalesced or thinned, and which transition it belongs to.
public enum DeliveryRole: Hashable, Sendable {
    /// Never dropped: phase changes, lifecycle, state, device, config, hello, reply, error, goodbye.
    case essential
    /// A finger-driven update (gesture `changed`, transition `changed`): a slow client may get only the latest.
    case progress(CoalescingKey)
    /// A server-side run-out frame: coalesced like progress, and thinned or dropped by the client's `tick_hz`.
    case runOutFrame(TransitionID)
    /// The event that starts a run-out (it carries the `animation` spec); essential.
    case runOutStart(TransitionID)
    /// `completed` or `cancelled`; essential.
    case terminal(TransitionID)

    public var coalescingKey: CoalescingKey? {
        switch self {
        case .progress(let key): key
        case .runOutFrame(let id): .transition(id)
        case .essential, .runOutStart, .terminal: nil
        }
    }
}

/// One encoded message in an ``EncodedBatch``: its line is `type.linePrefix`, then the connection's `seq`,
/// then the bytes of `tail` (which start with `,"time_us":` and end with `}\n`).
public struct EncodedMessage: Hashable, Sendable {
    public var type: MessageType
    public var timeUS: UInt64
    public var role: DeliveryRole
    public var tail: Range<Int>

    /// The length of the line with a `seq` of up to 20 digits: an upper bound for buffer sizing.
    public var maxLineByteCount: Int { type.linePrefix.utf8CodeUnitCount + 20 + tail.count }
}

/// What a `reply` carries, by op.
public enum ReplyResult: Hashable, Sendable {
    /// `{}` (ping).
    case empty
    /// The subscription now in force.
    case subscribed(Subscription)
    /// Protocol and server version, devices, configuration and state.
    case status(ServerSnapshot)
    case devices([TouchDevice])
    /// A control request started this transition.
    case transition(TransitionID)
    /// `set-rotation`: the devices turned now, and those with a finger down that turn when it lifts.
    case rotation(applied: [DeviceID], pending: [DeviceID])
}

/// Messages encoded once, to be sent to any number of connections with their own `seq`.
///
/// Encoding is the per-event cost of the server, so the body of each message is written once into one byte
/// array (reused across publishes by ``removeAll()``), and only the short `{"type":…,"seq":N` prefix is written
/// per connection. Trace events encode to nothing.
public struct EncodedBatch: Sendable {
    public private(set) var messages: [EncodedMessage] = []
    private var w: JSONWriter
    private var tailStart = 0

    /// An empty batch with room for `capacity` bytes of message bodies.
    public init(capacity: Int = 4096) {
        w = JSONWriter(capacity: capacity)
    }

    /// The size of all tails, back to back.
    public var byteCount: Int { w.count }
    public var count: Int { messages.count }
    public var isEmpty: Bool { messages.isEmpty }

    /// Empties the batch, keeping its storage.
    public mutating func removeAll() {
        messages.removeAll(keepingCapacity: true)
        w.removeAll()
    }

    /// Appends line `index` with `seq` to `out`.
    public func appendLine(_ index: Int, seq: UInt64, to out: inout [UInt8]) {
        let m = messages[index]
        m.type.linePrefix.withUTF8Buffer { out.append(contentsOf: $0) }
        JSONWriter.appendDecimal(seq, to: &out)
        withTail(index) { out.append(contentsOf: $0) }
    }

    /// Line `index` with `seq`, newline included.
    public func line(_ index: Int, seq: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(messages[index].maxLineByteCount)
        appendLine(index, seq: seq, to: &out)
        return out
    }

    /// The tail bytes of message `index`, for writing straight into a network buffer.
    public func withTail<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try w.withBytes { try body(UnsafeRawBufferPointer(rebasing: $0[messages[index].tail])) }
    }

    // MARK: Engine events

    /// Appends the message for `event`; returns `false` for trace events, which are not sent.
    @discardableResult
    public mutating func append(_ event: EngineEvent) -> Bool {
        switch event {
        case .gesture(let e): appendGesture(e)
        case .transition(let e): appendTransition(e)
        case .lifecycle(let e): appendLifecycle(e)
        case .presentation(let e): appendPresentation(e)
        case .interaction(let e): appendInteraction(e)
        case .state(let s): appendState(s)
        case .device(let e): appendDevice(e)
        case .trace: return false
        }
        return true
    }

    private mutating func begin(_ time: UInt64) {
        tailStart = w.count
        w.raw(#","time_us":"#)
        w.integer(time)
    }

    private mutating func end(_ type: MessageType, time: UInt64, role: DeliveryRole = .essential) {
        w.raw("}\n")
        messages.append(EncodedMessage(type: type, timeUS: time, role: role, tail: tailStart..<w.count))
    }

    private mutating func appendGesture(_ e: GestureEvent) {
        let time = e.time.microseconds
        begin(time)
        w.raw(#","edge":"#)
        w.string(e.edge.rawValue)
        w.raw(#","state":"#)
        w.string(e.state.rawValue)
        w.raw(#","device":"#)
        w.integer(UInt64(e.device.rawValue))
        w.raw(#","device_kind":"#)
        w.string(e.deviceKind.rawValue)
        w.raw(#","fingers":"#)
        w.integer(e.fingers)
        w.raw(#","location":"#)
        w.point(e.location.x, e.location.y)
        w.raw(#","translation_mm":"#)
        w.point(e.translation.x, e.translation.y)
        w.raw(#","velocity_mm_s":"#)
        w.point(e.velocity.x, e.velocity.y)
        let progress = e.state == .changed
        w.raw(#","progress":"#)
        w.bool(progress)
        if let t = e.transition {
            w.raw(#","transition":"#)
            w.integer(t.rawValue)
        }
        if let blocked = e.blocked {
            w.raw(#","blocked":"#)
            w.string(blocked.rawValue)
        }
        if let overscroll = e.overscroll {
            w.raw(#","overscroll":"#)
            w.number(overscroll.value)
        }
        if let mm = e.overscrollMM {
            w.raw(#","overscroll_mm":"#)
            w.number(mm.value)
        }
        if let spec = e.animation {
            w.raw(#","animation":"#)
            w.animation(spec)
        }
        if let failure = e.failure {
            w.raw(#","reason":"#)
            w.string(failure.rawValue)
        }
        end(.gesture, time: time, role: progress ? .progress(.gesture(e.device)) : .essential)
    }

    private mutating func appendTransition(_ e: TransitionEvent) {
        let time = e.time.microseconds
        begin(time)
        w.raw(#","id":"#)
        w.integer(e.id.rawValue)
        w.raw(#","operation":"#)
        w.string(e.operation.name)
        w.raw(#","container":"#)
        w.string(e.container)
        w.raw(#","from":"#)
        w.string(e.from)
        w.raw(#","to":"#)
        w.string(e.to)
        w.raw(#","direction":"#)
        w.string(e.direction.rawValue)
        w.raw(#","phase":"#)
        w.string(e.phase.rawValue)
        w.raw(#","percent":"#)
        w.number(e.percent.value)
        w.raw(#","velocity":"#)
        w.number(e.velocity.value)
        w.raw(#","interactive":"#)
        w.bool(e.interactive)
        w.raw(#","progress":"#)
        w.bool(e.isProgress)
        if let style = e.presentationStyle {
            w.raw(#","presentation_style":"#)
            w.string(style.rawValue)
        }
        if let edge = e.edge {
            w.raw(#","edge":"#)
            w.string(edge.rawValue)
        }
        if let device = e.device {
            w.raw(#","device":"#)
            w.integer(UInt64(device.rawValue))
        }
        if let spec = e.animation {
            w.raw(#","animation":"#)
            w.animation(spec)
        }
        w.raw(#","geometry":"#)
        w.geometry(e.geometry)
        let role: DeliveryRole
        if e.phase.isTerminal {
            role = .terminal(e.id)
        } else if e.isProgress {
            role = e.phase.isRunningOut ? .runOutFrame(e.id) : .progress(.transition(e.id))
        } else if e.phase.isRunningOut {
            role = .runOutStart(e.id)
        } else {
            role = .essential
        }
        end(.transition, time: time, role: role)
    }

    private mutating func appendLifecycle(_ e: LifecycleEvent) {
        let time = e.time.microseconds
        begin(time)
        w.raw(#","transition":"#)
        w.integer(e.transition.rawValue)
        w.raw(#","container":"#)
        w.string(e.container)
        w.raw(#","scene":"#)
        w.string(e.scene)
        w.raw(#","event":"#)
        w.string(e.kind.rawValue)
        end(.lifecycle, time: time)
    }

    private mutating func appendPresentation(_ e: PresentationEvent) {
        let time = e.time.microseconds
        begin(time)
        w.raw(#","transition":"#)
        w.integer(e.transition.rawValue)
        w.raw(#","container":"#)
        w.string(e.container)
        w.raw(#","kind":"#)
        w.string(e.kind.rawValue)
        w.raw(#","phase":"#)
        w.string(e.phase.rawValue)
        if let completed = e.completed {
            w.raw(#","completed":"#)
            w.bool(completed)
        }
        w.raw(#","presented":"#)
        w.string(e.presented)
        w.raw(#","presenting":"#)
        w.string(e.presenting)
        w.raw(#","style":"#)
        w.string(e.style.rawValue)
        w.raw(#","frame":"#)
        w.rect(e.frame)
        end(.presentation, time: time)
    }

    private mutating func appendInteraction(_ e: InteractionEvent) {
        let time = e.time.microseconds
        begin(time)
        w.raw(#","transition":"#)
        w.integer(e.transition.rawValue)
        w.raw(#","container":"#)
        w.string(e.container)
        w.raw(#","phase":"#)
        w.string(e.phase.rawValue)
        if let cancelled = e.cancelled {
            w.raw(#","cancelled":"#)
            w.bool(cancelled)
        }
        w.raw(#","percent":"#)
        w.number(e.percent.value)
        w.raw(#","velocity":"#)
        w.number(e.velocity.value)
        end(.interaction, time: time)
    }

    private mutating func appendState(_ s: StateSnapshot) {
        let time = s.time.microseconds
        begin(time)
        w.byte(UInt8(ascii: ","))
        w.stateFields(containers: s.containers, running: s.running.map(RunningTransitionSummary.init))
        end(.state, time: time)
    }

    private mutating func appendDevice(_ e: DeviceEvent) {
        let time = e.time.microseconds
        begin(time)
        w.raw(#","change":"#)
        w.string(e.change.rawValue)
        w.byte(UInt8(ascii: ","))
        w.deviceFields(e.device)
        end(.device, time: time)
    }

    // MARK: Server messages

    /// The first message of every connection.
    public mutating func appendHello(
        _ s: ServerSnapshot, access: AccessInfo, maxLineBytes: Int = WireProtocol.maxLineBytes, time: MonotonicInstant
    ) {
        begin(time.microseconds)
        w.raw(#","protocol":"#)
        w.integer(WireProtocol.version)
        w.raw(#","server":"#)
        w.string(s.serverVersion)
        w.raw(#","max_line_bytes":"#)
        w.integer(maxLineBytes)
        w.raw(#","access":{"read":"#)
        w.bool(access.read)
        w.raw(#","control":"#)
        w.bool(access.control)
        w.raw(#"},"devices":"#)
        w.devices(s.devices)
        w.raw(#","config":"#)
        w.config(s.config)
        w.raw(#","state":{"#)
        w.stateFields(containers: s.containers, running: s.running)
        w.byte(UInt8(ascii: "}"))
        end(.hello, time: time.microseconds)
    }

    /// Appends a `reply` to the request `id` (with `op`).
    public mutating func appendReply(id: RequestID?, op: String, result: ReplyResult, time: MonotonicInstant) {
        begin(time.microseconds)
        if let id {
            w.raw(#","id":"#)
            id.write(to: &w)
        }
        w.raw(#","op":"#)
        w.string(op)
        w.raw(#","result":{"#)
        switch result {
        case .empty:
            break
        case .subscribed(let s):
            w.raw(#""topics":["#)
            for (i, t) in s.topics.members.enumerated() {
                if i > 0 { w.byte(UInt8(ascii: ",")) }
                w.string(t.rawValue)
            }
            w.byte(UInt8(ascii: "]"))
            s.ticks.write(to: &w)
        case .status(let s):
            w.raw(#""protocol":"#)
            w.integer(WireProtocol.version)
            w.raw(#","server":"#)
            w.string(s.serverVersion)
            w.raw(#","devices":"#)
            w.devices(s.devices)
            w.raw(#","config":"#)
            w.config(s.config)
            w.raw(#","state":{"#)
            w.stateFields(containers: s.containers, running: s.running)
            w.byte(UInt8(ascii: "}"))
        case .devices(let devices):
            w.raw(#""devices":"#)
            w.devices(devices)
        case .transition(let id):
            w.raw(#""transition":"#)
            w.integer(id.rawValue)
        case .rotation(let applied, let pending):
            w.raw(#""applied":"#)
            w.deviceIDs(applied)
            w.raw(#","pending":"#)
            w.deviceIDs(pending)
        }
        w.byte(UInt8(ascii: "}"))
        end(.reply, time: time.microseconds)
    }

    /// Appends an `error`; its `message` names the place and the problem (``RequestError/message``).
    public mutating func appendError(_ error: RequestError, time: MonotonicInstant) {
        begin(time.microseconds)
        w.raw(#","code":"#)
        w.string(error.code.rawValue)
        w.raw(#","message":"#)
        w.string(error.message)
        if let id = error.id {
            w.raw(#","id":"#)
            id.write(to: &w)
        }
        if let op = error.op {
            w.raw(#","op":"#)
            w.string(op)
        }
        end(.error, time: time.microseconds)
    }

    /// Appends a `config` message; `config` is the new summary when it was reloaded.
    public mutating func appendConfig(_ result: ConfigResult, message: String, config: ConfigSummary?, time: MonotonicInstant) {
        begin(time.microseconds)
        w.raw(#","result":"#)
        w.string(result.rawValue)
        w.raw(#","message":"#)
        w.string(message)
        if let config {
            w.raw(#","config":"#)
            w.config(config)
        }
        end(.config, time: time.microseconds)
    }

    /// Appends the `goodbye` that ends a connection.
    public mutating func appendGoodbye(_ reason: GoodbyeReason, message: String, time: MonotonicInstant) {
        begin(time.microseconds)
        w.raw(#","reason":"#)
        w.string(reason.rawValue)
        w.raw(#","message":"#)
        w.string(message)
        end(.goodbye, time: time.microseconds)
    }
}

// MARK: - Shapes shared by several messages

extension JSONWriter {
    mutating func point(_ x: Double, _ y: Double) {
        raw(#"{"x":"#)
        number(x)
        raw(#","y":"#)
        number(y)
        byte(UInt8(ascii: "}"))
    }

    mutating func rect(_ r: NormalizedRect) {
        raw(#"{"x":"#)
        number(r.x)
        raw(#","y":"#)
        number(r.y)
        raw(#","width":"#)
        number(r.width)
        raw(#","height":"#)
        number(r.height)
        byte(UInt8(ascii: "}"))
    }

    mutating func stringArray(_ items: [String]) {
        byte(UInt8(ascii: "["))
        for (i, s) in items.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            string(s)
        }
        byte(UInt8(ascii: "]"))
    }

    /// The fields of a device, without braces (a `device` message puts them beside `change`).
    mutating func deviceFields(_ d: TouchDevice) {
        raw(#""id":"#)
        integer(UInt64(d.id.rawValue))
        raw(#","name":"#)
        string(d.name)
        raw(#","kind":"#)
        string(d.kind.rawValue)
        raw(#","path":"#)
        string(d.path)
        let size = d.size
        raw(#","size_mm":{"width":"#)
        number(size.width.value)
        raw(#","height":"#)
        number(size.height.value)
        raw(#"},"size_known":"#)
        bool(d.hasPhysicalSize)
        raw(#","rotation":"#)
        integer(d.rotation.rawValue)
        raw(#","auto_rotation":"#)
        bool(d.followsAccelerometer)
        raw(#","output":"#)
        if let output = d.output { string(output) } else { raw("null") }
        raw(#","calibration":["#)
        for (i, v) in (d.calibration ?? .identity).values.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            number(v)
        }
        byte(UInt8(ascii: "]"))
    }

    mutating func deviceIDs(_ ids: [DeviceID]) {
        byte(UInt8(ascii: "["))
        for (i, id) in ids.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            integer(UInt64(id.rawValue))
        }
        byte(UInt8(ascii: "]"))
    }

    mutating func devices(_ devices: [TouchDevice]) {
        byte(UInt8(ascii: "["))
        for (i, d) in devices.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            byte(UInt8(ascii: "{"))
            deviceFields(d)
            byte(UInt8(ascii: "}"))
        }
        byte(UInt8(ascii: "]"))
    }

    mutating func container(_ c: Container) {
        raw(#"{"name":"#)
        string(c.name)
        raw(#","kind":"#)
        string(c.content.kind)
        raw(#","visible":"#)
        string(c.content.visibleScene)
        switch c.content {
        case .navigation(let stack):
            raw(#","stack":"#)
            stringArray(stack)
        case .tabs(let tabs, let selected):
            raw(#","tabs":"#)
            stringArray(tabs)
            raw(#","selected":"#)
            integer(selected)
        case .modal(let base, let presented):
            raw(#","base":"#)
            string(base)
            raw(#","presented":["#)
            for (i, p) in presented.enumerated() {
                if i > 0 { byte(UInt8(ascii: ",")) }
                raw(#"{"scene":"#)
                string(p.scene)
                raw(#","style":"#)
                string(p.style.rawValue)
                raw(#","frame":"#)
                rect(p.frame)
                byte(UInt8(ascii: "}"))
            }
            byte(UInt8(ascii: "]"))
        case .custom(let children, let active):
            raw(#","children":"#)
            stringArray(children)
            raw(#","active":"#)
            integer(active)
        }
        byte(UInt8(ascii: "}"))
    }

    /// `"containers":[…],"running":[…]`, the body of `state` and of `state` inside hello and status.
    mutating func stateFields(containers: [Container], running: [RunningTransitionSummary]) {
        raw(#""containers":["#)
        for (i, c) in containers.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            container(c)
        }
        raw(#"],"running":["#)
        for (i, r) in running.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            raw(#"{"id":"#)
            integer(r.id.rawValue)
            raw(#","container":"#)
            string(r.container)
            raw(#","operation":"#)
            string(r.operation)
            raw(#","phase":"#)
            string(r.phase.rawValue)
            raw(#","percent":"#)
            number(r.percent.value)
            byte(UInt8(ascii: "}"))
        }
        byte(UInt8(ascii: "]"))
    }

    mutating func config(_ c: ConfigSummary) {
        raw(#"{"source":"#)
        string(c.source)
        raw(#","containers":"#)
        stringArray(c.containers)
        raw(#","bindings":["#)
        for (i, b) in c.bindings.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            raw(#"{"edge":"#)
            string(b.edge.rawValue)
            raw(#","container":"#)
            string(b.container)
            raw(#","operation":"#)
            string(b.operation)
            raw(#","device_kinds":"#)
            stringArray(b.deviceKinds.map(\.rawValue))
            raw(#","fingers":{"min":"#)
            integer(b.fingers.min)
            raw(#","max":"#)
            integer(b.fingers.max)
            raw("}}")
        }
        raw(#"],"animator":{"style":"#)
        string(c.animator.style.rawValue)
        raw(#","duration_us":"#)
        integer(c.animator.durationUS)
        raw(#","curve":"#)
        string(c.animator.curve)
        raw(#"},"completion_curve":"#)
        string(c.completionCurve)
        raw(#","completion_speed":"#)
        number(c.completionSpeed)
        raw(#","tick_hz":"#)
        number(c.tickHz)
        byte(UInt8(ascii: "}"))
    }

    mutating func sceneGeometry(_ g: SceneGeometry) {
        raw(#"{"scene":"#)
        string(g.scene)
        raw(#","frame":"#)
        rect(g.frame)
        raw(#","alpha":"#)
        number(g.alpha)
        raw(#","z_index":"#)
        integer(g.zIndex)
        raw(#","on_stage":"#)
        bool(g.onStage)
        byte(UInt8(ascii: "}"))
    }

    mutating func geometry(_ g: TransitionGeometry) {
        raw(#"{"from":"#)
        sceneGeometry(g.from)
        raw(#","to":"#)
        sceneGeometry(g.to)
        if let dimming = g.dimmingAlpha {
            raw(#","dimming_alpha":"#)
            number(dimming)
        }
        byte(UInt8(ascii: "}"))
    }

    mutating func animation(_ a: AnimationSpec) {
        raw(#"{"curve":"#)
        string(a.curve.name)
        switch a.timing {
        case .cubicBezier(let b):
            raw(#","timing":"cubic-bezier","control_points":{"x1":"#)
            number(b.x1)
            raw(#","y1":"#)
            number(b.y1)
            raw(#","x2":"#)
            number(b.x2)
            raw(#","y2":"#)
            number(b.y2)
            byte(UInt8(ascii: "}"))
        case .criticallyDampedSpring(let omega):
            raw(#","timing":"spring","omega":"#)
            number(omega)
        }
        raw(#","duration_us":"#)
        integer(a.duration.value)
        raw(#","from_percent":"#)
        number(a.fromPercent.value)
        raw(#","to_percent":"#)
        number(a.toPercent.value)
        raw(#","start_time_us":"#)
        integer(a.start.microseconds)
        raw(#","end_time_us":"#)
        integer(a.end.microseconds)
        raw(#","initial_velocity":"#)
        number(a.initialVelocity.value)
        byte(UInt8(ascii: "}"))
    }
}
