/// The transition engine: it owns the recognizers, the containers and the running transitions.
///
/// Its input is device events, touch frames, requests and the time; its output is typed ``EngineEvent``s,
/// appended to a buffer the caller owns (and may reuse, so the steady state does not allocate). It never reads
/// a clock: the same input gives the same output, byte for byte. It asks for ticks only while something
/// animates (``nextDeadline``), so an idle host sleeps.
///
/// It carries out the actions of two state machines, the recognizer (one per device) and the transition (one
/// per running transition), and never reads their state back to learn what happened: every action carries its
/// data.
public struct Engine: Sendable {
    public private(set) var configuration: EngineConfiguration
    public private(set) var containers: [Container] {
        didSet { stateSize = StateLimits.size(of: containers) }
    }
    /// ``StateLimits/size(of:)`` of `containers`, kept current so that judging a request against the limit costs
    /// one container's size.
    private var stateSize: Int
    /// The latest time the engine has seen. Inputs stamped earlier are treated as happening now, so time never
    /// runs backward in the output.
    public private(set) var now: MonotonicInstant = .zero
    private var devices: [DeviceSlot] = []
    private var running: [RunningTransition] = []
    private var nextTransitionID: UInt64 = 1
    /// The edges with at least one binding, per kind of device: the zones a first touch is judged in.
    private var boundEdges: BoundEdges
    /// The finger counts with at least one swipe binding, per kind of device.
    private var boundSwipes: BoundSwipes
    /// Where touchpads' swipes come from: libinput's gestures (live) or the detector over their frames (replays).
    public let touchpadSwipes: TouchpadSwipeSource

    struct BoundEdges: Sendable {
        var touchscreen: Edges
        var touchpad: Edges

        init(_ configuration: EngineConfiguration) {
            touchscreen = configuration.boundEdges(for: .touchscreen)
            touchpad = configuration.boundEdges(for: .touchpad)
        }

        subscript(kind: DeviceKind) -> Edges {
            switch kind {
            case .touchscreen: touchscreen
            case .touchpad: touchpad
            }
        }
    }

    /// The finger counts (bit n for n fingers) that some swipe binding wants, per kind of device.
    struct BoundSwipes: Sendable {
        var touchscreen: UInt16 = 0
        var touchpad: UInt16 = 0
        /// The same per direction (left, right, up, down), to judge an edge gesture against the swipes that
        /// would move the same way.
        var touchscreenByDirection: (UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0)
        var touchpadByDirection: (UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0)

        init(_ configuration: EngineConfiguration) {
            for b in configuration.bindings {
                guard let direction = b.direction else { continue }
                var mask: UInt16 = 0
                for n in b.fingers where (0...15).contains(n) { mask |= 1 << UInt16(n) }
                if b.listens(to: .touchscreen) {
                    touchscreen |= mask
                    Self.add(mask, direction, to: &touchscreenByDirection)
                }
                if b.listens(to: .touchpad) {
                    touchpad |= mask
                    Self.add(mask, direction, to: &touchpadByDirection)
                }
            }
        }

        private static func add(_ mask: UInt16, _ d: SwipeDirection, to t: inout (UInt16, UInt16, UInt16, UInt16)) {
            switch d {
            case .left: t.0 |= mask
            case .right: t.1 |= mask
            case .up: t.2 |= mask
            case .down: t.3 |= mask
            }
        }

        /// Whether a swipe binding wants `fingers` fingers moving `direction` on this kind of device.
        func wants(_ fingers: Int, moving direction: SwipeDirection, on kind: DeviceKind) -> Bool {
            guard (0...15).contains(fingers) else { return false }
            let t = kind == .touchscreen ? touchscreenByDirection : touchpadByDirection
            let mask: UInt16 =
                switch direction {
                case .left: t.0
                case .right: t.1
                case .up: t.2
                case .down: t.3
                }
            return mask & (1 << UInt16(fingers)) != 0
        }

        func mask(for kind: DeviceKind) -> UInt16 {
            switch kind {
            case .touchscreen: touchscreen
            case .touchpad: touchpad
            }
        }

        func wants(_ fingers: Int, on kind: DeviceKind) -> Bool {
            guard (0...15).contains(fingers) else { return false }
            switch kind {
            case .touchscreen: return touchscreen & (1 << UInt16(fingers)) != 0
            case .touchpad: return touchpad & (1 << UInt16(fingers)) != 0
            }
        }
    }

    /// What a device's gesture drives.
    enum GestureTarget: Hashable, Sendable {
        case none
        case transition(TransitionID)
        /// It began on an edge whose bindings cannot run: reported, with its rubber band, and nothing moves.
        case blocked
    }

    struct DeviceSlot: Sendable {
        var device: TouchDevice
        /// The device's size as the user sees it, real or assumed.
        var size: MillimeterSize
        var settings: DeviceKindSettings
        var recognizer: ScreenEdgePanRecognizer
        /// Multi-finger swipes: the recognizer, and the detector that feeds it from frames (or, on a live
        /// touchpad whose swipes come from libinput, only follows the fingers for the centroid).
        var swipe: SwipeRecognizer
        var detector: MultiFingerDetector
        /// A swipe the source began that this device's touch sequence does not take (an edge gesture owns the
        /// sequence, or no binding wants its finger count): its updates and end are dropped.
        var ignoringSwipe = false
        /// The edge gesture or the swipe that owns the sequence: one at a time, so they share what follows.
        var target: GestureTarget = .none
        /// The run-out the tracked touch (or the swipe) is catching, between its start and the gesture beginning.
        var catching: GestureTrigger?
        /// A swipe's reference: the travel along its direction, in millimetres, that runs a whole transition.
        var swipeReferenceMM: Double = 1
        /// The percent the gesture's translation is added to (0, or where a caught run-out was).
        var basePercent: Percent = .zero
        /// The inward translation, in normalized units of the device, that runs a whole transition.
        var reference: Double = 1
        var decision: ReleaseDecision
    }

    struct RunningTransition: Sendable {
        var id: TransitionID
        var container: Int
        var plan: TransitionPlan
        var animator: Animator
        var interaction: PercentDrivenInteractiveTransition
        var edge: Edge?
        /// Which way its scenes move: the finger's, for a gesture (from an edge, the scene comes out of that
        /// edge); the plan's own for a request.
        var motion: SwipeDirection
        var device: DeviceID?
        var deviceKind: DeviceKind?
        /// The swipe that drives it, and its finger count: a swipe with as many fingers catches its run-out.
        var swipe: SwipeDirection?
        var swipeFingers: Int?
        /// The binding's own reference and decision, for the touch that catches its run-out.
        var reference: PercentReference?
        var decision: ReleaseDecision?
        /// What clients were last told: the phase and progress of the latest report.
        var last: PercentDrivenInteractiveTransition.Report
        /// The run-out in flight, from the report that started it.
        var runOut: AnimationSpec?
        var nextTick: MonotonicInstant = .zero

        var isRunningOut: Bool { last.phase.isRunningOut }
    }

    /// - Parameter touchpadSwipes: live hosts hand libinput's touchpad swipes in (``handleSwipe(_:on:at:into:)``);
    ///   replays let the engine's detector emulate them from the touchpads' frames (the default).
    public init(configuration: EngineConfiguration, touchpadSwipes: TouchpadSwipeSource = .touchFrames) {
        self.configuration = configuration
        self.containers = configuration.containers
        self.boundEdges = BoundEdges(configuration)
        self.boundSwipes = BoundSwipes(configuration)
        self.touchpadSwipes = touchpadSwipes
        self.stateSize = StateLimits.size(of: configuration.containers)
    }

    // MARK: - Inputs

    /// A device was found. Recognizers start in `possible`. Its assumed size (used only when it reports no
    /// resolution) is the configured one for its kind.
    public mutating func addDevice(_ device: TouchDevice, at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        if let index = deviceIndex(device.id) { devices.remove(at: index) }
        let settings = configuration.settings(for: device.kind)
        var device = device
        device.assumedSize = settings.assumedSize
        devices.append(DeviceSlot(
            device: device, size: device.size, settings: settings,
            recognizer: ScreenEdgePanRecognizer(settings: settings.recognizer, device: device),
            swipe: SwipeRecognizer(settings: settings.swipe),
            detector: MultiFingerDetector(settings: settings.swipe, device: device, emits: detectorEmits(device.kind)),
            decision: settings.decision))
        events.append(.device(DeviceEvent(time: now, change: .added, device: device)))
    }

    /// A device's geometry changed (its rotation, from a shell's request or the accelerometer): what its touches
    /// mean from now on. The host changes it between touch sequences; should a finger be down on it anyway, the
    /// sequence is treated as lost (its gesture cancelled, its fingers ignored until they lift), because its
    /// points so far were in the old orientation.
    public mutating func changeDevice(_ device: TouchDevice, at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        guard let index = deviceIndex(device.id) else { return }
        if !devices[index].recognizer.isIdle { recognize(.eventsDropped, device: index, into: &events) }
        if !devices[index].swipe.isIdle { recognizeSwipe(.eventsDropped, device: index, into: &events) }
        var device = device
        device.assumedSize = devices[index].settings.assumedSize
        devices[index].device = device
        devices[index].size = device.size
        // The zones are fractions of the axes as the user sees them: turned, they are measured again; so are the
        // detector's millimetres.
        devices[index].recognizer = ScreenEdgePanRecognizer(settings: devices[index].settings.recognizer, device: device)
        devices[index].swipe = SwipeRecognizer(settings: devices[index].settings.swipe)
        devices[index].detector = MultiFingerDetector(
            settings: devices[index].settings.swipe, device: device, emits: detectorEmits(device.kind))
        devices[index].ignoringSwipe = false
        events.append(.device(DeviceEvent(time: now, change: .changed, device: device)))
    }

    /// A device went away: a gesture in flight is cancelled (its transition runs back to 0), then the device
    /// is forgotten.
    public mutating func removeDevice(_ id: DeviceID, at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        guard let index = deviceIndex(id) else { return }
        recognize(.deviceRemoved, device: index, into: &events)
        recognizeSwipe(.deviceRemoved, device: index, into: &events)
        let device = devices[index].device
        devices.remove(at: index)
        events.append(.device(DeviceEvent(time: now, change: .removed, device: device)))
    }

    /// The kernel dropped events (`SYN_DROPPED`) or the host lost track of the device's touches: the gesture in
    /// flight is cancelled and the touch sequence forgotten.
    public mutating func eventsLost(on id: DeviceID, at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        guard let index = deviceIndex(id) else { return }
        recognize(.eventsDropped, device: index, into: &events)
        recognizeSwipe(.eventsDropped, device: index, into: &events)
        devices[index].detector.reset()
        devices[index].ignoringSwipe = false
    }

    /// One frame of touches from one device. Frames from unknown devices are ignored.
    public mutating func handle(_ frame: TouchFrame, into events: inout [EngineEvent]) {
        advanceClock(to: frame.time, into: &events)
        guard let index = deviceIndex(frame.device) else { return }
        for touch in frame.touches {
            let event: ScreenEdgePanRecognizer.Event
            switch touch.phase {
            case .down:
                let kind = devices[index].device.kind
                // While a swipe owns the device, a landing is one of its fingers: no edge is a candidate.
                let allowed = devices[index].swipe.isIdle ? boundEdges[kind].union(catchableEdges(for: kind)) : []
                event = .touchDown(touch: touch.id, at: touch.position, allowed: allowed)
            case .motion:
                event = .touchMotion(touch: touch.id, to: touch.position)
            case .up:
                event = .touchUp(touch: touch.id)
            case .cancel:
                event = .touchCancel(touch: touch.id)
            }
            recognize(event, device: index, into: &events)
        }
        for input in devices[index].detector.handle(frame, wanted: boundSwipes.mask(for: devices[index].device.kind)) {
            swipeInput(input, device: index, into: &events)
        }
    }

    /// One of libinput's swipe gesture events for a touchpad (``TouchpadSwipeSource/libinputGestures``); the
    /// deltas are libinput's unaccelerated ones, converted to millimetres in the user's orientation. Events
    /// for unknown devices are ignored.
    public mutating func handleSwipe(_ input: SwipeGestureInput, on id: DeviceID, at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        guard let index = deviceIndex(id) else { return }
        swipeInput(input, device: index, into: &events)
    }

    /// Starts a non-interactive transition (a button, or a client's request), running the animator for its
    /// full duration; with `animated: false` it completes at once. Refused while the container runs one.
    @discardableResult
    public mutating func request(
        _ operation: TransitionOperation, in containerName: String, animated: Bool = true,
        animator requestedAnimator: Animator? = nil,
        at time: MonotonicInstant, into events: inout [EngineEvent]
    ) throws(TransitionRefusal) -> TransitionID {
        advanceClock(to: time, into: &events)
        let (containerIndex, plan) = try resolve(operation, in: containerName)
        let animator = requestedAnimator ?? configuration.animator
        let interaction = PercentDrivenInteractiveTransition(
            animatingWith: animator.curve, duration: animated ? animator.duration : .zero)
        let id = startTransition(
            container: containerIndex, plan: plan, animator: animator, interaction: interaction,
            edge: nil, motion: plan.motion, device: nil, deviceKind: nil, binding: nil, into: &events)
        if let index = runningIndex(id) {
            running[index].nextTick = now.advanced(by: configuration.tickInterval)
            apply(.finish(velocity: .zero), to: index, into: &events)
        }
        settle(upTo: now, into: &events)
        return id
    }

    /// Reports run-out progress due at `time` and ends the animations that are over.
    public mutating func tick(at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        for i in running.indices where running[i].isRunningOut && running[i].nextTick <= now {
            apply(.tick, to: i, into: &events)
            running[i].nextTick = nextTick(after: now, from: running[i])
        }
    }

    /// Ticks every deadline before `time`, in order: virtual time, for replays and tests, where nothing waits
    /// for a real clock between two inputs.
    public mutating func tick(through time: MonotonicInstant, into events: inout [EngineEvent]) {
        while let deadline = nextDeadline, deadline < time {
            tick(at: deadline, into: &events)
        }
    }

    /// Ticks until nothing animates any more (the end of a replay).
    public mutating func tickUntilSettled(into events: inout [EngineEvent]) {
        while let deadline = nextDeadline {
            tick(at: deadline, into: &events)
        }
    }

    /// When the host must call ``tick(at:)`` next; `nil` while nothing animates, so an idle host sleeps.
    public var nextDeadline: MonotonicInstant? {
        var best: MonotonicInstant? = nil
        for t in running where t.isRunningOut {
            guard let spec = t.runOut else { continue }
            let due = min(t.nextTick, spec.end)
            if best.map({ due < $0 }) ?? true { best = due }
        }
        return best
    }

    /// Cancels everything at once (shutdown): gestures are cancelled and every transition ends `cancelled` with
    /// its lifecycle reversed, so clients are left with a consistent picture.
    public mutating func cancelAll(at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        for index in devices.indices {
            switch devices[index].swipe.state {
            case .began, .changed:
                if case .transition = devices[index].target { devices[index].target = .none }
                recognizeSwipe(.deviceRemoved, device: index, into: &events)
            case .possible, .pending, .failed:
                break
            }
            switch devices[index].recognizer.state {
            case .began, .changed:
                // Detach first, so that the cancelled gesture does not start a run-out that is aborted at once.
                if case .transition = devices[index].target { devices[index].target = .none }
                recognize(.deviceRemoved, device: index, into: &events)
            case .possible, .tracking, .ended, .cancelled, .failed:
                break
            }
        }
        while !running.isEmpty {
            let t = running[0]
            if t.interaction.isInteractive && !t.isRunningOut {
                // The finger's hold ends without a release: the coordinator hears it as an interaction that
                // ended toward cancel.
                events.append(.interaction(InteractionEvent(
                    time: now, transition: t.id, container: containers[t.container].name, phase: .ended,
                    cancelled: true, percent: t.last.progress.percent, velocity: .zero)))
            }
            apply(.abort, to: 0, into: &events)
        }
    }

    /// The containers' state now.
    public var snapshot: StateSnapshot {
        StateSnapshot(
            time: now, containers: containers,
            running: running.map {
                StateSnapshot.RunningSummary(
                    id: $0.id, container: containers[$0.container].name, operation: $0.plan.operation,
                    phase: $0.last.phase, percent: $0.last.progress.percent)
            })
    }

    public var knownDevices: [TouchDevice] { devices.map(\.device) }

    /// Whether anything is in flight (a gesture or a transition).
    public var isIdle: Bool {
        running.isEmpty && devices.allSatisfy { $0.recognizer.isIdle && $0.swipe.isIdle }
    }

    /// Puts every container back as the configuration starts it (``EngineConfiguration/containers``: for the
    /// daemon, the configured state with what was saved restored into it), at once, and reports the new state
    /// when that changed anything. A looped replay starts each pass with it, so that every pass plays from where
    /// the first did. Only while nothing is in flight (``isIdle``): a running transition or a gesture would be
    /// left pointing at scenes that are gone. Returns whether the containers are now in their initial state.
    @discardableResult
    public mutating func returnToInitialState(at time: MonotonicInstant, into events: inout [EngineEvent]) -> Bool {
        guard isIdle else { return false }
        advanceClock(to: time, into: &events)
        guard containers != configuration.containers else { return true }
        containers = configuration.containers
        events.append(.state(snapshot))
        return true
    }

    /// Replaces the configuration. Containers keep their state where the new graph still has a container of the
    /// same name and kind; running transitions are left to finish against the old bindings.
    public mutating func reconfigure(_ new: EngineConfiguration) {
        configuration = new
        boundEdges = BoundEdges(new)
        boundSwipes = BoundSwipes(new)
        var merged: [Container] = []
        for c in new.containers {
            if let old = containers.first(where: { $0.name == c.name && $0.content.kind == c.content.kind }) {
                merged.append(old)
            } else {
                merged.append(c)
            }
        }
        // Keep containers that a running transition still refers to, until it ends.
        for t in running where !merged.contains(where: { $0.name == containers[t.container].name }) {
            merged.append(containers[t.container])
        }
        let oldNames = running.map { containers[$0.container].name }
        containers = merged
        for (i, name) in oldNames.enumerated() {
            running[i].container = containers.firstIndex(where: { $0.name == name }) ?? 0
        }
        for i in devices.indices {
            let settings = new.settings(for: devices[i].device.kind)
            devices[i].settings = settings
            if devices[i].recognizer.isIdle && devices[i].swipe.isIdle && devices[i].detector.down == 0 {
                devices[i].device.assumedSize = settings.assumedSize
                devices[i].size = devices[i].device.size
                devices[i].recognizer = ScreenEdgePanRecognizer(settings: settings.recognizer, device: devices[i].device)
                devices[i].swipe = SwipeRecognizer(settings: settings.swipe)
                devices[i].detector = MultiFingerDetector(
                    settings: settings.swipe, device: devices[i].device, emits: detectorEmits(devices[i].device.kind))
            }
        }
    }

    // MARK: - Gestures

    /// Runs one recognizer step and carries out its actions.
    private mutating func recognize(_ event: ScreenEdgePanRecognizer.Event, device index: Int, into events: inout [EngineEvent]) {
        let actions = devices[index].recognizer.handle(event, at: now)
        for action in actions {
            perform(action, device: index, into: &events)
        }
    }

    private mutating func perform(_ action: ScreenEdgePanRecognizer.Action, device index: Int, into events: inout [EngineEvent]) {
        switch action {
        case .transitioned(let from, let event, let to):
            events.append(.trace(.recognizer(device: devices[index].device.id, from: from, event: event, to: to)))
        case .bug(let event, let state):
            events.append(.trace(.recognizerBug(device: devices[index].device.id, event: event, state: state)))
        case .track(_, let candidates):
            let catchable = catchableEdges(for: devices[index].device.kind).intersection(candidates)
            if let edge = Edge.ordered.first(where: { catchable.contains($0.edges) }) {
                devices[index].catching = .edge(edge)
                recognize(.caught(edge), device: index, into: &events)
            }
        case .begin(let motion):
            gestureBegan(motion, device: index, into: &events)
        case .change(let motion):
            gestureChanged(motion, device: index, into: &events)
        case .end(let motion):
            gestureEnded(motion, cancelled: false, device: index, into: &events)
        case .cancel(let motion):
            gestureEnded(motion, cancelled: true, device: index, into: &events)
        case .fail(let reason, let motion):
            // The target and the catch are the sequence's: while a swipe holds them (a finger landing during a
            // live touchpad's swipe, which has no edge to judge), the edge recognizer's failure is its own, and
            // the swipe's transition must not lose its driver.
            if devices[index].swipe.isIdle {
                devices[index].target = .none
                devices[index].catching = nil
            }
            // A touch that never landed in a zone is not a gesture at all; say nothing about it.
            if let motion { emitGesture(.failed, motion, device: index, failure: reason, into: &events) }
        }
    }

    /// What a gesture beginning on an edge can drive.
    private enum Resolution {
        case applicable(binding: Int, container: Int, plan: TransitionPlan)
        /// The edge has bindings for this kind and finger count, and none can run now; the first of them.
        case blocked(Binding)
        case unbound
    }

    private func resolveBinding(_ trigger: GestureTrigger, kind: DeviceKind, fingers: Int) -> Resolution {
        var first: Binding? = nil
        for (i, b) in configuration.bindings.enumerated()
        where b.trigger == trigger && b.listens(to: kind) && b.fingers.contains(max(1, fingers)) {
            if first == nil { first = b }
            if let (c, plan) = try? resolve(b.operation, in: b.container) { return .applicable(binding: i, container: c, plan: plan) }
        }
        if let first { return .blocked(first) }
        return .unbound
    }

    private mutating func gestureBegan(_ m: ScreenEdgePanRecognizer.Motion, device index: Int, into events: inout [EngineEvent]) {
        let kind = devices[index].device.kind
        let catching = devices[index].catching
        devices[index].catching = nil
        // A catch: the touch takes over a running-out transition from this edge.
        if catching == .edge(m.edge),
           let t = running.firstIndex(where: { $0.edge == m.edge && $0.deviceKind == kind && $0.isRunningOut })
        {
            devices[index].reference = referenceFraction(for: m.edge, reference: running[t].reference, device: index)
            emitGesture(.began, m, device: index, transition: running[t].id, into: &events)
            catchRunOut(t, device: index, travelled: .zero, into: &events)
            return
        }
        // Where a swipe binding wants as many fingers, the sequence is a swipe, not an edge gesture: a single
        // finger is always an edge candidate, more prefer a swipe (docs/ARCHITECTURE.md, "One sequence, one
        // gesture").
        if swipeClaims(m.fingers, moving: m.edge.inwardDirection, on: kind) {
            recognize(.swipe, device: index, into: &events)
            return
        }
        switch resolveBinding(.edge(m.edge), kind: kind, fingers: m.fingers) {
        case .applicable(let bindingIndex, let containerIndex, let plan):
            let binding = configuration.bindings[bindingIndex]
            devices[index].reference = referenceFraction(for: m.edge, reference: binding.reference, device: index)
            emitGesture(.began, m, device: index, transition: TransitionID(nextTransitionID), into: &events)
            startInteractiveTransition(
                binding, container: containerIndex, plan: plan, edge: m.edge, swipeFingers: nil, device: index, into: &events)
            drive(m, device: index, into: &events)
        case .blocked(let binding):
            devices[index].reference = referenceFraction(for: m.edge, reference: binding.reference, device: index)
            devices[index].basePercent = .zero
            devices[index].target = .blocked
            emitGesture(.began, m, device: index, blocked: true, into: &events)
        case .unbound:
            recognize(.bindingUnavailable, device: index, into: &events)
        }
    }

    private mutating func gestureChanged(_ m: ScreenEdgePanRecognizer.Motion, device index: Int, into events: inout [EngineEvent]) {
        switch devices[index].target {
        case .transition(let id):
            emitGesture(.changed, m, device: index, transition: id, into: &events)
            drive(m, device: index, into: &events)
        case .blocked:
            emitGesture(.changed, m, device: index, blocked: true, into: &events)
        case .none:
            emitGesture(.changed, m, device: index, into: &events)
        }
    }

    private mutating func gestureEnded(
        _ m: ScreenEdgePanRecognizer.Motion, cancelled: Bool, device index: Int, into events: inout [EngineEvent]
    ) {
        let state: GestureState = cancelled ? .cancelled : .ended
        let target = devices[index].target
        devices[index].target = .none
        switch target {
        case .transition(let id):
            emitGesture(state, m, device: index, transition: id, into: &events)
            release(id, m, cancelled: cancelled, device: index, into: &events)
        case .blocked:
            emitGesture(state, m, device: index, blocked: true, springBack: true, into: &events)
        case .none:
            emitGesture(state, m, device: index, into: &events)
        }
    }

    private func referenceFraction(for edge: Edge, reference: PercentReference?, device index: Int) -> Double {
        (reference ?? devices[index].settings.reference).fraction(across: edge, on: devices[index].device)
    }

    /// The gesture's inward translation and velocity, as a transition's percent and velocity.
    private func progress(_ m: ScreenEdgePanRecognizer.Motion, device index: Int) -> Progress {
        let slot = devices[index]
        let inward = m.edge.inward(dx: m.translation.x, dy: m.translation.y)
        let inwardVelocity = m.edge.inward(dx: m.velocity.x, dy: m.velocity.y)
        return Progress(
            percent: slot.basePercent + Percent(inward / slot.reference),
            velocity: PercentPerSecond(inwardVelocity / slot.reference))
    }

    private mutating func drive(_ m: ScreenEdgePanRecognizer.Motion, device index: Int, into events: inout [EngineEvent]) {
        guard case .transition(let id) = devices[index].target, let t = runningIndex(id) else { return }
        apply(.update(progress(m, device: index)), to: t, into: &events)
    }

    private mutating func release(
        _ id: TransitionID, _ m: ScreenEdgePanRecognizer.Motion, cancelled: Bool, device index: Int,
        into events: inout [EngineEvent]
    ) {
        release(id, velocity: progress(m, device: index).velocity, cancelled: cancelled, device: index, into: &events)
    }

    /// The finger lets go of transition `id` at `velocity`: the release decision, the coordinator's interaction
    /// ended, and the run-out.
    private mutating func release(
        _ id: TransitionID, velocity: PercentPerSecond, cancelled: Bool, device index: Int, into events: inout [EngineEvent]
    ) {
        guard let t = runningIndex(id) else { return }
        // The transition's own (clamped) percent, at the finger's velocity.
        let release = Progress(percent: running[t].last.progress.percent, velocity: velocity)
        let decision = devices[index].decision
        let judgement = cancelled ? nil : ReleaseJudgement(
            projected: decision.projectedPercent(release), threshold: decision.threshold,
            flickVelocity: decision.flickVelocity)
        let finish = judgement?.finishes ?? false
        let handed = cancelled ? PercentPerSecond.zero : velocity
        events.append(.interaction(InteractionEvent(
            time: now, transition: id, container: containers[running[t].container].name, phase: .ended,
            cancelled: !finish, percent: release.percent, velocity: handed.isFinite ? handed : .zero,
            decision: judgement)))
        running[t].nextTick = now.advanced(by: configuration.tickInterval)
        apply(finish ? .finish(velocity: handed) : .cancel(velocity: handed), to: t, into: &events)
        settle(upTo: now, into: &events)
    }

    /// A blocked gesture's rubber band, for an edge gesture and a swipe alike: its displacement in percent and in
    /// millimetres and, once the gesture ends (`springBack`), the animation back to rest at the band's velocity.
    /// `travel` and `velocity` are the gesture's, along its direction, in the units of `reference` (the travel
    /// that would run a whole transition): fractions of the axis for an edge gesture, millimetres for a swipe;
    /// `millimetersPerUnit` says how long one is.
    private func stretchRubberBand(
        _ event: inout GestureEvent, travel: Double, velocity: Double, reference: Double, millimetersPerUnit: Double,
        springBack: Bool
    ) {
        guard case .rubberBand(let band) = configuration.overscroll else { return }
        let pull = Percent(max(0, travel / reference))
        let displacement = band.displacement(pull)
        event.overscroll = displacement
        event.overscrollMM = Millimeters(displacement.value * reference * millimetersPerUnit)
        if springBack {
            event.animation = band.springBack(
                from: displacement, velocity: PercentPerSecond(velocity / reference * band.slope(at: pull)), at: now)
        }
    }

    private func emitGesture(
        _ state: GestureState, _ m: ScreenEdgePanRecognizer.Motion, device index: Int, transition: TransitionID? = nil,
        blocked: Bool = false, springBack: Bool = false, failure: ScreenEdgePanRecognizer.FailureReason? = nil,
        into events: inout [EngineEvent]
    ) {
        let slot = devices[index]
        let size = slot.size
        var event = GestureEvent(
            time: now, device: slot.device.id, deviceKind: slot.device.kind, edge: m.edge, state: state,
            fingers: m.fingers, location: m.location,
            translation: MillimeterVector(x: m.translation.x * size.width.value, y: m.translation.y * size.height.value),
            velocity: MillimeterVector(x: m.velocity.x * size.width.value, y: m.velocity.y * size.height.value),
            transition: transition, failure: failure)
        if blocked {
            event.blocked = .noApplicableBinding
            stretchRubberBand(
                &event, travel: m.edge.inward(dx: m.translation.x, dy: m.translation.y),
                velocity: m.edge.inward(dx: m.velocity.x, dy: m.velocity.y), reference: slot.reference,
                millimetersPerUnit: (m.edge.isHorizontal ? size.width : size.height).value, springBack: springBack)
        }
        events.append(.gesture(event))
    }

    // MARK: - Multi-finger swipes

    /// One swipe event from the device's source (libinput, or the detector): decides whether this touch
    /// sequence takes it, then runs the swipe recognizer.
    private mutating func swipeInput(_ input: SwipeGestureInput, device index: Int, into events: inout [EngineEvent]) {
        switch input {
        case .begin(let fingers):
            let kind = devices[index].device.kind
            let edgeOwns: Bool
            switch devices[index].recognizer.state {
            case .began, .changed, .ended, .cancelled: edgeOwns = true
            case .possible, .tracking, .failed: edgeOwns = false
            }
            // An edge gesture owns the sequence until every finger lifts; a count no binding wants is left to
            // the edge path (and the rest of the desktop).
            guard !edgeOwns, boundSwipes.wants(fingers, on: kind) || catchableSwipe(fingers: fingers, kind: kind) != nil,
                  devices[index].swipe.isIdle
            else {
                devices[index].ignoringSwipe = true
                return
            }
            devices[index].ignoringSwipe = false
            if case .tracking = devices[index].recognizer.state { recognize(.swipe, device: index, into: &events) }
            recognizeSwipe(.begin(fingers: fingers), device: index, into: &events)
        case .update(let delta):
            guard !devices[index].ignoringSwipe else { return }
            recognizeSwipe(.update(delta: delta), device: index, into: &events)
        case .end(let cancelled):
            guard !devices[index].ignoringSwipe else {
                devices[index].ignoringSwipe = false
                return
            }
            recognizeSwipe(cancelled ? .cancel : .end, device: index, into: &events)
        }
    }

    private mutating func recognizeSwipe(_ event: SwipeRecognizer.Event, device index: Int, into events: inout [EngineEvent]) {
        let actions = devices[index].swipe.handle(event, at: now)
        for action in actions {
            performSwipe(action, device: index, into: &events)
        }
    }

    private mutating func performSwipe(_ action: SwipeRecognizer.Action, device index: Int, into events: inout [EngineEvent]) {
        switch action {
        case .transitioned(let from, let event, let to):
            events.append(.trace(.swipe(device: devices[index].device.id, from: from, event: event, to: to)))
        case .bug(let event, let state):
            events.append(.trace(.swipeBug(device: devices[index].device.id, event: event, state: state)))
        case .track(let fingers):
            if let t = catchableSwipe(fingers: fingers, kind: devices[index].device.kind), let direction = running[t].swipe {
                devices[index].catching = .swipe(direction)
                recognizeSwipe(.caught(direction), device: index, into: &events)
            }
        case .begin(let m):
            swipeBegan(m, device: index, into: &events)
        case .change(let m):
            switch devices[index].target {
            case .transition(let id):
                emitSwipe(.changed, m, device: index, transition: id, into: &events)
                driveSwipe(m, device: index, into: &events)
            case .blocked:
                emitSwipe(.changed, m, device: index, blocked: true, into: &events)
            case .none:
                emitSwipe(.changed, m, device: index, into: &events)
            }
        case .end(let m):
            swipeEnded(m, cancelled: false, device: index, into: &events)
        case .cancel(let m):
            swipeEnded(m, cancelled: true, device: index, into: &events)
        case .fail(let reason, let m):
            devices[index].target = .none
            devices[index].catching = nil
            if let m { emitSwipe(.failed, m, device: index, failure: reason, into: &events) }
        }
    }

    /// The transition running out that a swipe of `fingers` fingers on a device of `kind` would catch.
    private func catchableSwipe(fingers: Int, kind: DeviceKind) -> Int? {
        running.firstIndex { $0.swipe != nil && $0.swipeFingers == fingers && $0.deviceKind == kind && $0.isRunningOut }
    }

    private mutating func swipeBegan(_ m: SwipeRecognizer.Motion, device index: Int, into events: inout [EngineEvent]) {
        let kind = devices[index].device.kind
        let catching = devices[index].catching
        devices[index].catching = nil
        if catching == .swipe(m.direction),
           let t = running.firstIndex(where: { $0.swipe == m.direction && $0.swipeFingers == m.fingers && $0.deviceKind == kind && $0.isRunningOut })
        {
            devices[index].swipeReferenceMM = swipeReference(m.direction, reference: running[t].reference, device: index)
            emitSwipe(.began, m, device: index, transition: running[t].id, into: &events)
            // The fingers' travel so far is already in the scene: the caught percent is where it is now.
            let travelled = Percent(m.direction.along(dx: m.translation.x, dy: m.translation.y) / devices[index].swipeReferenceMM)
            catchRunOut(t, device: index, travelled: travelled, into: &events)
            return
        }
        switch resolveBinding(.swipe(m.direction), kind: kind, fingers: m.fingers) {
        case .applicable(let bindingIndex, let containerIndex, let plan):
            let binding = configuration.bindings[bindingIndex]
            devices[index].swipeReferenceMM = swipeReference(m.direction, reference: binding.reference, device: index)
            emitSwipe(.began, m, device: index, transition: TransitionID(nextTransitionID), into: &events)
            startInteractiveTransition(
                binding, container: containerIndex, plan: plan, edge: nil, swipeFingers: m.fingers, device: index, into: &events)
            driveSwipe(m, device: index, into: &events)
        case .blocked(let binding):
            devices[index].swipeReferenceMM = swipeReference(m.direction, reference: binding.reference, device: index)
            devices[index].basePercent = .zero
            devices[index].target = .blocked
            emitSwipe(.began, m, device: index, blocked: true, into: &events)
        case .unbound:
            recognizeSwipe(.bindingUnavailable, device: index, into: &events)
        }
    }

    private mutating func swipeEnded(_ m: SwipeRecognizer.Motion, cancelled: Bool, device index: Int, into events: inout [EngineEvent]) {
        let state: GestureState = cancelled ? .cancelled : .ended
        let target = devices[index].target
        devices[index].target = .none
        switch target {
        case .transition(let id):
            emitSwipe(state, m, device: index, transition: id, into: &events)
            release(id, velocity: swipeProgress(m, device: index).velocity, cancelled: cancelled, device: index, into: &events)
        case .blocked:
            emitSwipe(state, m, device: index, blocked: true, springBack: true, into: &events)
        case .none:
            emitSwipe(state, m, device: index, into: &events)
        }
    }

    /// A swipe's reference along `direction`, in millimetres: the binding's, or the device kind's for the axis.
    private func swipeReference(_ direction: SwipeDirection, reference: PercentReference?, device index: Int) -> Double {
        let slot = devices[index]
        return (reference ?? slot.settings.swipe.reference(for: direction)).millimeters(along: direction, on: slot.device)
    }

    /// The swipe's travel along its direction as a transition's percent and velocity. Travel back past the start
    /// is negative: the transition clamps it at 0, so a swipe back past its start and a release cancel.
    private func swipeProgress(_ m: SwipeRecognizer.Motion, device index: Int) -> Progress {
        let slot = devices[index]
        let along = m.direction.along(dx: m.translation.x, dy: m.translation.y)
        let alongVelocity = m.direction.along(dx: m.velocity.x, dy: m.velocity.y)
        return Progress(
            percent: slot.basePercent + Percent(along / slot.swipeReferenceMM),
            velocity: PercentPerSecond(alongVelocity / slot.swipeReferenceMM))
    }

    private mutating func driveSwipe(_ m: SwipeRecognizer.Motion, device index: Int, into events: inout [EngineEvent]) {
        guard case .transition(let id) = devices[index].target, let t = runningIndex(id) else { return }
        apply(.update(swipeProgress(m, device: index)), to: t, into: &events)
    }

    private func emitSwipe(
        _ state: GestureState, _ m: SwipeRecognizer.Motion, device index: Int, transition: TransitionID? = nil,
        blocked: Bool = false, springBack: Bool = false, failure: SwipeRecognizer.FailureReason? = nil,
        into events: inout [EngineEvent]
    ) {
        let slot = devices[index]
        var event = GestureEvent(
            time: now, device: slot.device.id, deviceKind: slot.device.kind, trigger: .swipe(m.direction), state: state,
            fingers: m.fingers, location: slot.detector.centroid ?? NormalizedPoint(x: 0.5, y: 0.5),
            translation: m.translation, velocity: m.velocity, transition: transition, swipeFailure: failure)
        if blocked {
            event.blocked = .noApplicableBinding
            // The swipe's travel is in millimetres already.
            stretchRubberBand(
                &event, travel: m.direction.along(dx: m.translation.x, dy: m.translation.y),
                velocity: m.direction.along(dx: m.velocity.x, dy: m.velocity.y), reference: slot.swipeReferenceMM,
                millimetersPerUnit: 1, springBack: springBack)
        }
        events.append(.gesture(event))
    }

    // MARK: - Transitions

    private func resolve(_ operation: TransitionOperation, in containerName: String) throws(TransitionRefusal) -> (Int, TransitionPlan) {
        guard let index = containers.firstIndex(where: { $0.name == containerName }) else {
            throw .unknownContainer(containerName)
        }
        if let busy = running.first(where: { $0.container == index }) {
            throw .busy(container: containerName, running: busy.id)
        }
        switch containers[index].plan(operation) {
        case .success(let plan):
            let after = stateSize - StateLimits.size(of: containers[index])
                + StateLimits.size(of: Container(name: containerName, content: plan.completedContent))
            if after > StateLimits.maxStateBytes && after > stateSize {
                throw .limitExceeded(
                    container: containerName,
                    reason: "the containers' state would measure \(after) bytes, over the \(StateLimits.maxStateBytes) the daemon keeps")
            }
            return (index, plan)
        case .failure(let refusal): throw refusal
        }
    }

    /// Whether the detector of a device of this kind reports swipes: always on screens; on touchpads only when
    /// their swipes do not come from libinput.
    private func detectorEmits(_ kind: DeviceKind) -> Bool {
        kind == .touchscreen || touchpadSwipes == .touchFrames
    }

    /// Whether an edge gesture about to begin with `fingers` fingers, moving `direction` (its edge's inward
    /// normal), is a swipe instead: a swipe binding wants that many fingers moving that way, and the swipe path
    /// can report that many (libinput makes two fingers on a touchpad scroll). One finger never is.
    private func swipeClaims(_ fingers: Int, moving direction: SwipeDirection, on kind: DeviceKind) -> Bool {
        fingers >= 2 && fingers >= configuration.settings(for: kind).swipe.minimumFingers
            && boundSwipes.wants(fingers, moving: direction, on: kind)
    }

    private func catchableEdges(for kind: DeviceKind) -> Edges {
        var edges: Edges = []
        for t in running where t.deviceKind == kind && t.isRunningOut {
            if let e = t.edge { edges.insert(e.edges) }
        }
        return edges
    }

    /// Starts the interactive transition a gesture drives through `binding` (an edge gesture's, or a swipe's with
    /// its finger count), and gives it to the device's gesture: the binding's animator, or the configured one,
    /// run out at the configured completion speed and curve; the binding's release decision, or the device kind's;
    /// the gesture's translation counted from 0. The caller has reported the gesture's `began`, naming the id this
    /// transition gets (`nextTransitionID`).
    private mutating func startInteractiveTransition(
        _ binding: Binding, container: Int, plan: TransitionPlan, edge: Edge?, swipeFingers: Int?, device index: Int,
        into events: inout [EngineEvent]
    ) {
        let animator = binding.animator ?? configuration.animator
        let interaction = PercentDrivenInteractiveTransition(
            duration: animator.duration, completionSpeed: configuration.completionSpeed,
            completionCurve: configuration.completionCurve)
        devices[index].decision = binding.decision ?? devices[index].settings.decision
        devices[index].basePercent = .zero
        let id = startTransition(
            container: container, plan: plan, animator: animator, interaction: interaction, edge: edge,
            motion: binding.trigger.motion, device: devices[index].device.id, deviceKind: devices[index].device.kind, binding: binding,
            swipeFingers: swipeFingers, into: &events)
        devices[index].target = .transition(id)
    }

    /// The device's gesture catches transition `t`'s run-out (UIKit's interruptible transitions), for an edge
    /// gesture and a swipe alike: the gesture takes the transition over with its binding's release decision, the
    /// coordinator hears an interaction begin at the percent and velocity the run-out has now, and the gesture's
    /// translation is added to that percent, less what it had `travelled` already when it began. The caller has
    /// set the gesture's reference and reported its `began`.
    private mutating func catchRunOut(_ t: Int, device index: Int, travelled: Percent, into events: inout [EngineEvent]) {
        let id = running[t].id
        running[t].device = devices[index].device.id
        devices[index].target = .transition(id)
        devices[index].decision = running[t].decision ?? devices[index].settings.decision
        let caught = running[t].runOut.map { Progress(percent: $0.percent(at: now), velocity: $0.velocity(at: now)) }
            ?? running[t].last.progress
        devices[index].basePercent = caught.percent - travelled
        events.append(.interaction(InteractionEvent(
            time: now, transition: id, container: containers[running[t].container].name, phase: .began,
            cancelled: nil, percent: caught.percent, velocity: caught.velocity)))
        apply(.caught, to: t, into: &events)
    }

    /// Starts a transition: its `began` event, the presentation controller's will-begin for a modal one, then
    /// the appearance callbacks of the start.
    private mutating func startTransition(
        container: Int, plan: TransitionPlan, animator: Animator, interaction: PercentDrivenInteractiveTransition,
        edge: Edge?, motion: SwipeDirection, device: DeviceID?, deviceKind: DeviceKind?, binding: Binding?, swipeFingers: Int? = nil,
        into events: inout [EngineEvent]
    ) -> TransitionID {
        let id = TransitionID(nextTransitionID)
        nextTransitionID += 1
        let began = PercentDrivenInteractiveTransition.Report(phase: .began, progress: .zero, animation: nil, isProgressOnly: false)
        running.append(RunningTransition(
            id: id, container: container, plan: plan, animator: animator, interaction: interaction,
            edge: edge, motion: motion, device: device, deviceKind: deviceKind, swipe: binding?.direction,
            swipeFingers: binding?.direction == nil ? nil : swipeFingers, reference: binding?.reference,
            decision: binding?.decision, last: began))
        emitTransition(running.count - 1, began, into: &events)
        if let presentation = presentationEvent(plan, id: id, container: container, phase: .willBegin, completed: nil) {
            events.append(.presentation(presentation))
        }
        for step in plan.lifecycleAtStart {
            events.append(.lifecycle(LifecycleEvent(
                time: now, transition: id, container: containers[container].name, scene: step.scene, kind: step.kind)))
        }
        return id
    }

    /// The presentation controller's callback for a modal transition; `nil` for the other kinds.
    private func presentationEvent(
        _ plan: TransitionPlan, id: TransitionID, container: Int, phase: PresentationEvent.Phase, completed: Bool?
    ) -> PresentationEvent? {
        let kind: PresentationEvent.Kind
        switch plan.operation {
        case .present: kind = .presentation
        case .dismiss: kind = .dismissal
        case .push, .pop, .popToRoot, .selectTab, .nextTab, .previousTab, .show: return nil
        }
        let presented = kind == .presentation ? plan.to : plan.from
        return PresentationEvent(
            time: now, transition: id, container: containers[container].name, kind: kind, phase: phase,
            completed: completed, presented: presented, presenting: kind == .presentation ? plan.from : plan.to,
            style: plan.presentationStyle ?? .fullScreen, frame: kind == .presentation ? plan.toFrame : plan.fromFrame)
    }

    /// Runs one step of a transition's machine and carries out its actions. A terminal report ends the
    /// transition, which leaves `running` (so `index` means nothing afterwards).
    private mutating func apply(
        _ event: PercentDrivenInteractiveTransition.Event, to index: Int, into events: inout [EngineEvent]
    ) {
        let id = running[index].id
        let actions = running[index].interaction.handle(event, at: now)
        for action in actions {
            switch action {
            case .transitioned(let from, let event, let to):
                events.append(.trace(.transition(id: id, from: from, event: event, to: to)))
            case .bug(let event, let phase):
                events.append(.trace(.transitionBug(id: id, event: event, phase: phase)))
            case .report(let report):
                running[index].last = report
                if let animation = report.animation { running[index].runOut = animation }
                if report.phase.isTerminal {
                    finish(index, completed: report.phase == .completed, into: &events)
                    return
                }
                emitTransition(index, report, into: &events)
            }
        }
    }

    private func emitTransition(
        _ index: Int, _ report: PercentDrivenInteractiveTransition.Report, geometry: TransitionGeometry? = nil,
        into events: inout [EngineEvent]
    ) {
        let t = running[index]
        events.append(.transition(TransitionEvent(
            time: now, id: t.id, operation: t.plan.operation, container: containers[t.container].name,
            from: t.plan.from, to: t.plan.to, direction: t.plan.direction, phase: report.phase,
            percent: report.progress.percent, velocity: report.progress.velocity,
            interactive: t.interaction.isInteractive, presentationStyle: t.plan.presentationStyle, edge: t.edge,
            device: t.device, swipe: t.swipe, swipeFingers: t.swipeFingers, animation: report.animation,
            geometry: geometry ?? t.animator.geometry(for: t.plan, moving: t.motion, at: report.progress.percent),
            isProgress: report.isProgressOnly)))
    }

    private func nextTick(after time: MonotonicInstant, from t: RunningTransition) -> MonotonicInstant {
        let interval = max(1, configuration.tickInterval.value)
        guard let spec = t.runOut else { return time.advanced(by: Microseconds(interval)) }
        let elapsed = max(0, (time - spec.start).value)
        return spec.start.advanced(by: Microseconds((elapsed / interval + 1) * interval))
    }

    /// Moves the clock forward (never back) and ends the run-outs that are over by then, so that an input is
    /// always judged against the state at its own instant.
    private mutating func advanceClock(to time: MonotonicInstant, into events: inout [EngineEvent]) {
        let target = max(time, now)
        settle(upTo: target, into: &events)
        now = target
    }

    /// Ends, in order of their end time, the run-outs that are over by `time`. Each terminal is stamped with
    /// its animation's own end, which no earlier output passed: every earlier input settled what ended before it.
    private mutating func settle(upTo time: MonotonicInstant, into events: inout [EngineEvent]) {
        while true {
            var earliest: (index: Int, end: MonotonicInstant)? = nil
            for (i, t) in running.enumerated() where t.isRunningOut {
                guard let end = t.runOut?.end, end <= time else { continue }
                if earliest.map({ end < $0.end }) ?? true { earliest = (i, end) }
            }
            guard let (i, end) = earliest else { break }
            now = max(now, end)
            apply(.runOutEnded, to: i, into: &events)
        }
    }

    /// Emits the end of a transition: lifecycle first ("did disappear -> animation ended"), the presentation
    /// controller's did-end, then the single terminal event, then the new state. The container changes only if
    /// the transition completed.
    private mutating func finish(_ index: Int, completed: Bool, into events: inout [EngineEvent]) {
        let t = running[index]
        let containerName = containers[t.container].name
        for step in t.plan.lifecycleAtEnd(completed: completed) {
            events.append(.lifecycle(LifecycleEvent(
                time: now, transition: t.id, container: containerName, scene: step.scene, kind: step.kind)))
        }
        if let presentation = presentationEvent(t.plan, id: t.id, container: t.container, phase: .didEnd, completed: completed) {
            events.append(.presentation(presentation))
        }
        if completed { containers[t.container].content = t.plan.completedContent }
        emitTransition(
            index, t.last, geometry: t.animator.finalGeometry(for: t.plan, moving: t.motion, completed: completed), into: &events)
        running.remove(at: index)
        for d in devices.indices where devices[d].target == .transition(t.id) { devices[d].target = .none }
        events.append(.state(snapshot))
    }

    private func deviceIndex(_ id: DeviceID) -> Int? { devices.firstIndex { $0.device.id == id } }
    private func runningIndex(_ id: TransitionID) -> Int? { running.firstIndex { $0.id == id } }
}
