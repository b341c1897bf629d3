/// The transition engine: it owns the recognizers, the containers and the running transitions.
///
/// Its input is device events, touch frames, requests and the time; its output is typed ``EngineEvent``s,
/// appended to a buffer the caller owns (and may reuse, so the steady state does not allocate). It never reads
/// a clock: the same input gives the same output, byte for byte. It asks for ticks only while something
/// animates (``nextDeadline``), so an idle host sleeps.
///
/// Its parts, one job a file: this one holds its state and its inputs; `GestureRecognizers.swift` turns the
/// recognizers' actions into gesture steps; `GestureDriver.swift` drives a transition with a gesture of any
/// trigger (percent, rubber band, release, catch, emission); `TransitionRunner.swift` runs transitions (start,
/// catch, settle, finish, emit); `DeviceSlot.swift` is what the engine keeps per device.
///
/// It carries out the actions of four state machines, the edge recognizer, the swipe recognizer and the
/// multi-finger detector (one each per device) and the transition (one per running transition), and never reads
/// their state back to learn what happened: every action carries its data.
public struct Engine: Sendable {
    public private(set) var configuration: EngineConfiguration
    public internal(set) var containers: [Container] {
        didSet { stateSize = StateLimits.size(of: containers) }
    }
    /// ``StateLimits/size(of:)`` of `containers`, kept current so that judging a request against the limit costs
    /// one container's size.
    var stateSize: Int
    /// The latest time the engine has seen. Inputs stamped earlier are treated as happening now, so time never
    /// runs backward in the output.
    public internal(set) var now: MonotonicInstant = .zero
    var devices: [DeviceSlot] = []
    var running: [RunningTransition] = []
    var nextTransitionID: UInt64 = 1
    /// The edges with at least one binding, per kind of device: the zones a first touch is judged in.
    var boundEdges: BoundEdges
    /// The finger counts with at least one swipe binding, per kind of device.
    var boundSwipes: BoundSwipes
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
            detector: MultiFingerDetector(settings: settings.swipe, device: device, emits: detectorEmits(device.kind))))
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
        detect(devices[index].detector.reset(at: now), device: index, into: &events)
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
        let detected = devices[index].detector.handle(frame, wanted: boundSwipes.mask(for: devices[index].device.kind))
        detect(detected, device: index, into: &events)
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
            container: containerIndex, plan: plan, animator: animator, interaction: interaction, device: nil,
            deviceKind: nil, binding: nil, into: &events)
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
        // A finger that holds still sends nothing: once its velocity window has passed, a release would have no
        // velocity, and clients hear so (the percent unchanged, at velocity 0, with the release judgement at rest).
        for i in running.indices where running[i].last.phase == .changed {
            guard let rest = running[i].restsAt, rest <= now else { continue }
            running[i].restsAt = nil
            apply(.update(Progress(percent: running[i].last.progress.percent, velocity: .zero)), to: i, into: &events)
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

    /// When the host must call ``tick(at:)`` next (a run-out's frame, or a still finger's rest); `nil` while nothing
    /// animates and no finger is left to come to rest, so an idle host sleeps.
    public var nextDeadline: MonotonicInstant? {
        var best: MonotonicInstant? = nil
        for t in running {
            let due: MonotonicInstant
            if t.isRunningOut, let spec = t.runOut {
                due = min(t.nextTick, spec.end)
            } else if t.last.phase == .changed, let rest = t.restsAt {
                due = rest
            } else {
                continue
            }
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
                if case .driving = devices[index].gesture { devices[index].gesture = .idle }
                recognizeSwipe(.deviceRemoved, device: index, into: &events)
            case .possible, .pending, .failed:
                break
            }
            switch devices[index].recognizer.state {
            case .began, .changed:
                // Detach first, so that the cancelled gesture does not start a run-out that is aborted at once.
                if case .driving = devices[index].gesture { devices[index].gesture = .idle }
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

    func deviceIndex(_ id: DeviceID) -> Int? { devices.firstIndex { $0.device.id == id } }
}
