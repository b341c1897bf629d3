/// The transition engine: it owns the recognizers, the containers and the running transitions.
///
/// Its input is device events, touch frames, requests and the time; its output is typed ``EngineEvent``s,
/// appended to a buffer the caller owns (and may reuse, so the steady state does not allocate). It never reads
/// a clock: the same input gives the same output, byte for byte. It asks for ticks only while something
/// animates (``nextDeadline``), so an idle host sleeps.
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
    /// Reused for every recognizer step, so that steady-state touch handling does not allocate.
    private var actionBuffer: [ScreenEdgePanRecognizer.Action] = []

    struct DeviceSlot: Sendable {
        var device: TouchDevice
        var settings: DeviceKindSettings
        var recognizer: ScreenEdgePanRecognizer
        /// The transition the tracked touch drives, and the percent its translation is added to.
        var driving: TransitionID?
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
        var device: DeviceID?
        var deviceKind: DeviceKind?
        var nextTick: MonotonicInstant = .zero
    }

    public init(configuration: EngineConfiguration) {
        self.configuration = configuration
        self.containers = configuration.containers
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
            device: device, settings: settings, recognizer: ScreenEdgePanRecognizer(settings: settings.recognizer),
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
        if devices[index].recognizer.state != .possible || devices[index].recognizer.fingers > 0 {
            recognizerLost(.eventsDropped, device: index, into: &events)
        }
        var device = device
        device.assumedSize = devices[index].settings.assumedSize
        devices[index].device = device
        events.append(.device(DeviceEvent(time: now, change: .changed, device: device)))
    }

    /// A device went away: a gesture in flight is cancelled (its transition runs back to 0), then the device
    /// is forgotten.
    public mutating func removeDevice(_ id: DeviceID, at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        guard let index = deviceIndex(id) else { return }
        recognizerLost(.deviceRemoved, device: index, into: &events)
        let device = devices[index].device
        devices.remove(at: index)
        events.append(.device(DeviceEvent(time: now, change: .removed, device: device)))
    }

    /// The kernel dropped events (`SYN_DROPPED`) or the host lost track of the device's touches: the gesture in
    /// flight is cancelled and the touch sequence forgotten.
    public mutating func eventsLost(on id: DeviceID, at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        guard let index = deviceIndex(id) else { return }
        recognizerLost(.eventsDropped, device: index, into: &events)
    }

    /// One frame of touches from one device. Frames from unknown devices are ignored.
    public mutating func handle(_ frame: TouchFrame, into events: inout [EngineEvent]) {
        advanceClock(to: frame.time, into: &events)
        guard let index = deviceIndex(frame.device) else { return }
        let time = now
        for touch in frame.touches {
            switch touch.phase {
            case .down:
                touchDown(touch, device: index, into: &events)
            case .motion:
                let device = devices[index].device
                recognize(device: index, into: &events) { r, actions in
                    r.touchMotion(id: touch.id, to: touch.position, time: time, device: device, into: &actions)
                }
            case .up:
                recognize(device: index, into: &events) { r, actions in
                    r.touchUp(id: touch.id, time: time, into: &actions)
                }
            case .cancel:
                recognize(device: index, into: &events) { r, actions in
                    r.touchCancel(id: touch.id, into: &actions)
                }
            }
        }
    }

    /// Runs one recognizer step and carries out its actions.
    private mutating func recognize(
        device index: Int, into events: inout [EngineEvent],
        _ step: (inout ScreenEdgePanRecognizer, inout [ScreenEdgePanRecognizer.Action]) -> Void
    ) {
        var actions = actionBuffer
        actionBuffer = []
        actions.removeAll(keepingCapacity: true)
        step(&devices[index].recognizer, &actions)
        perform(actions, device: index, into: &events)
        actionBuffer = actions
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
            animatingWith: animator.curve, duration: animated ? animator.duration : .zero, at: now)
        let id = startTransition(
            container: containerIndex, plan: plan, animator: animator, interaction: interaction,
            edge: nil, device: nil, deviceKind: nil, into: &events)
        if let index = runningIndex(id) {
            emitTransition(index, isProgress: false, withAnimation: true, into: &events)
            running[index].nextTick = now.advanced(by: configuration.tickInterval)
        }
        settle(upTo: now, into: &events)
        return id
    }

    /// Reports run-out progress due at `time` and ends the animations that are over.
    public mutating func tick(at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        for i in running.indices where running[i].interaction.phase.isRunningOut && running[i].nextTick <= now {
            _ = running[i].interaction.advance(to: now)
            emitTransition(i, isProgress: true, withAnimation: false, into: &events)
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
        for t in running where t.interaction.phase.isRunningOut {
            guard let spec = t.interaction.runOut else { continue }
            let due = min(t.nextTick, spec.end)
            if best.map({ due < $0 }) ?? true { best = due }
        }
        return best
    }

    /// Cancels everything at once (shutdown): gestures are cancelled and every transition ends `cancelled` with
    /// its lifecycle reversed, so clients are left with a consistent picture.
    public mutating func cancelAll(at time: MonotonicInstant, into events: inout [EngineEvent]) {
        advanceClock(to: time, into: &events)
        for index in devices.indices where devices[index].recognizer.state == .began || devices[index].recognizer.state == .changed {
            // Detach first, so that the cancelled gesture does not start a run-out that is aborted at once.
            devices[index].driving = nil
            recognize(device: index, into: &events) { r, actions in r.lost(.deviceRemoved, into: &actions) }
        }
        while let first = running.first {
            var t = first
            if let change = t.interaction.abort() {
                events.append(.trace(.transition(id: t.id, from: change.old, event: .abort, to: change.new)))
            }
            running[0] = t
            finish(0, completed: false, into: &events)
        }
    }

    /// The containers' state now.
    public var snapshot: StateSnapshot {
        StateSnapshot(
            time: now, containers: containers,
            running: running.map {
                StateSnapshot.RunningSummary(
                    id: $0.id, container: containers[$0.container].name, operation: $0.plan.operation,
                    phase: $0.interaction.phase, percent: $0.interaction.percent)
            })
    }

    public var knownDevices: [TouchDevice] { devices.map(\.device) }

    /// Whether anything is in flight (a gesture or a transition).
    public var isIdle: Bool {
        running.isEmpty && devices.allSatisfy { $0.recognizer.state == .possible && $0.recognizer.fingers == 0 }
    }

    /// Replaces the configuration. Containers keep their state where the new graph still has a container of the
    /// same name and kind; running transitions are left to finish against the old bindings.
    public mutating func reconfigure(_ new: EngineConfiguration) {
        configuration = new
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
            if devices[i].recognizer.state == .possible && devices[i].recognizer.fingers == 0 {
                devices[i].recognizer = ScreenEdgePanRecognizer(settings: settings.recognizer)
            }
        }
    }

    // MARK: - Touches

    private mutating func touchDown(_ touch: Touch, device index: Int, into events: inout [EngineEvent]) {
        let device = devices[index].device
        let time = now
        // Only a sequence's first touch is judged, so the (costlier) binding lookup is skipped for the others.
        let isFirst = devices[index].recognizer.state == .possible && devices[index].recognizer.fingers == 0
        let catchable = isFirst ? catchableEdges(for: device.kind) : []
        let allowed = isFirst ? applicableEdges(for: device.kind, fingers: 1).union(catchable) : []
        recognize(device: index, into: &events) { r, actions in
            r.touchDown(id: touch.id, at: touch.position, time: time, device: device, allowed: allowed, into: &actions)
            if r.trackedTouch == touch.id, let edge = r.candidates.intersection(catchable).members.first {
                r.catchTransition(on: edge, into: &actions)
            }
        }
    }

    /// Carries out a recognizer's actions.
    private mutating func perform(_ actions: [ScreenEdgePanRecognizer.Action], device index: Int, into events: inout [EngineEvent]) {
        for action in actions {
            switch action {
            case .transitioned(let from, let event, let to):
                events.append(.trace(.recognizer(device: devices[index].device.id, from: from, event: event, to: to)))
            case .began(let edge):
                gestureBegan(edge: edge, device: index, into: &events)
            case .changed:
                emitGesture(device: index, state: .changed, isProgress: true, into: &events)
                driveTransition(device: index, into: &events)
            case .ended:
                emitGesture(device: index, state: .ended, into: &events)
                releaseTransition(device: index, cancelled: false, into: &events)
            case .cancelled:
                emitGesture(device: index, state: .cancelled, into: &events)
                releaseTransition(device: index, cancelled: true, into: &events)
            case .failed:
                // A touch that never landed in a zone is not a gesture at all; say nothing about it.
                if !devices[index].recognizer.candidates.isEmpty {
                    emitGesture(device: index, state: .failed, into: &events)
                }
            }
        }
    }

    private mutating func recognizerLost(_ event: ScreenEdgePanRecognizer.Event, device index: Int, into events: inout [EngineEvent]) {
        recognize(device: index, into: &events) { r, actions in r.lost(event, into: &actions) }
    }

    private mutating func gestureBegan(edge: Edge, device index: Int, into events: inout [EngineEvent]) {
        let kind = devices[index].device.kind
        // A catch: the touch takes over a running-out transition from this edge.
        if devices[index].recognizer.candidates == edge.edges,
           let t = running.firstIndex(where: { $0.edge == edge && $0.deviceKind == kind && $0.interaction.phase.isRunningOut })
        {
            let id = running[t].id
            if let change = running[t].interaction.catchRunOut(at: now) {
                events.append(.trace(.transition(id: id, from: change.old, event: .caught, to: change.new)))
            }
            running[t].device = devices[index].device.id
            devices[index].driving = id
            devices[index].basePercent = running[t].interaction.percent
            devices[index].reference = referenceFraction(for: running[t].edge ?? edge, binding: nil, device: index)
            emitGesture(device: index, state: .began, into: &events)
            emitTransition(t, isProgress: false, withAnimation: false, into: &events)
            return
        }
        guard let (bindingIndex, containerIndex, plan) = firstApplicableBinding(
            edge: edge, kind: kind, fingers: devices[index].recognizer.fingers)
        else {
            recognize(device: index, into: &events) { r, actions in r.bindingUnavailable(into: &actions) }
            return
        }
        let binding = configuration.bindings[bindingIndex]
        let animator = binding.animator ?? configuration.animator
        let interaction = PercentDrivenInteractiveTransition(
            duration: animator.duration, completionSpeed: configuration.completionSpeed,
            completionCurve: configuration.completionCurve)
        devices[index].reference = referenceFraction(for: edge, binding: binding, device: index)
        devices[index].decision = binding.decision ?? devices[index].settings.decision
        devices[index].basePercent = .zero
        let id = TransitionID(nextTransitionID)
        devices[index].driving = id
        emitGesture(device: index, state: .began, into: &events)
        _ = startTransition(
            container: containerIndex, plan: plan, animator: animator, interaction: interaction,
            edge: edge, device: devices[index].device.id, deviceKind: kind, into: &events)
        driveTransition(device: index, into: &events)
    }

    private func referenceFraction(for edge: Edge, binding: Binding?, device index: Int) -> Double {
        let reference = binding?.reference ?? devices[index].settings.reference
        return reference.fraction(across: edge, on: devices[index].device)
    }

    /// The inward translation of the tracked touch and its velocity, as the transition's percent and velocity.
    private func progress(device index: Int) -> Progress {
        let slot = devices[index]
        guard let edge = slot.recognizer.edge else { return Progress(percent: slot.basePercent, velocity: .zero) }
        let t = slot.recognizer.translation
        let v = slot.recognizer.velocity(at: now)
        let inward = edge.inward(dx: t.dx, dy: t.dy)
        let inwardVelocity = edge.inward(dx: v.x, dy: v.y)
        return Progress(
            percent: slot.basePercent + Percent(inward / slot.reference),
            velocity: PercentPerSecond(inwardVelocity / slot.reference))
    }

    private mutating func driveTransition(device index: Int, into events: inout [EngineEvent]) {
        guard let id = devices[index].driving, let t = runningIndex(id) else { return }
        let change = running[t].interaction.update(progress(device: index))
        if let change {
            events.append(.trace(.transition(id: id, from: change.old, event: .update, to: change.new)))
        }
        emitTransition(t, isProgress: change == nil, withAnimation: false, into: &events)
    }

    private mutating func releaseTransition(device index: Int, cancelled: Bool, into events: inout [EngineEvent]) {
        guard let id = devices[index].driving else { return }
        devices[index].driving = nil
        guard let t = runningIndex(id) else { return }
        // The transition's own (clamped) percent, at the finger's velocity.
        let velocity = progress(device: index).velocity
        let release = Progress(percent: running[t].interaction.percent, velocity: velocity)
        let finish = !cancelled && devices[index].decision.shouldFinish(release)
        if let change = running[t].interaction.release(finish: finish, velocity: cancelled ? .zero : velocity, at: now) {
            events.append(.trace(.transition(id: id, from: change.old, event: finish ? .finish : .cancel, to: change.new)))
        }
        running[t].nextTick = now.advanced(by: configuration.tickInterval)
        emitTransition(t, isProgress: false, withAnimation: true, into: &events)
        settle(upTo: now, into: &events)
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

    private func firstApplicableBinding(edge: Edge, kind: DeviceKind, fingers: Int) -> (Int, Int, TransitionPlan)? {
        for (i, b) in configuration.bindings.enumerated()
        where b.edge == edge && b.listens(to: kind) && b.fingers.contains(max(1, fingers)) {
            if let (c, plan) = try? resolve(b.operation, in: b.container) { return (i, c, plan) }
        }
        return nil
    }

    private func applicableEdges(for kind: DeviceKind, fingers: Int) -> Edges {
        var edges: Edges = []
        for e in Edge.allCases where firstApplicableBinding(edge: e, kind: kind, fingers: fingers) != nil {
            edges.insert(e.edges)
        }
        return edges
    }

    private func catchableEdges(for kind: DeviceKind) -> Edges {
        var edges: Edges = []
        for t in running where t.deviceKind == kind && t.interaction.phase.isRunningOut {
            if let e = t.edge { edges.insert(e.edges) }
        }
        return edges
    }

    private mutating func startTransition(
        container: Int, plan: TransitionPlan, animator: Animator, interaction: PercentDrivenInteractiveTransition,
        edge: Edge?, device: DeviceID?, deviceKind: DeviceKind?, into events: inout [EngineEvent]
    ) -> TransitionID {
        let id = TransitionID(nextTransitionID)
        nextTransitionID += 1
        running.append(RunningTransition(
            id: id, container: container, plan: plan, animator: animator, interaction: interaction,
            edge: edge, device: device, deviceKind: deviceKind))
        let index = running.count - 1
        var began = makeTransitionEvent(index, isProgress: false, withAnimation: false)
        began.phase = .began
        began.percent = .zero
        began.velocity = .zero
        began.animation = nil
        began.geometry = animator.geometry(for: plan, at: .zero)
        events.append(.transition(began))
        for step in plan.lifecycleAtStart {
            events.append(.lifecycle(LifecycleEvent(
                time: now, transition: id, container: containers[container].name, scene: step.scene, kind: step.kind)))
        }
        return id
    }

    private func makeTransitionEvent(_ index: Int, isProgress: Bool, withAnimation: Bool) -> TransitionEvent {
        let t = running[index]
        return TransitionEvent(
            time: now, id: t.id, operation: t.plan.operation, container: containers[t.container].name,
            from: t.plan.from, to: t.plan.to, direction: t.plan.direction, phase: t.interaction.phase,
            percent: t.interaction.percent, velocity: t.interaction.velocity, interactive: t.interaction.isInteractive,
            presentationStyle: t.plan.presentationStyle, edge: t.edge, device: t.device,
            animation: withAnimation ? t.interaction.runOut : nil,
            geometry: t.animator.geometry(for: t.plan, at: t.interaction.percent), isProgress: isProgress)
    }

    private func emitTransition(_ index: Int, isProgress: Bool, withAnimation: Bool, into events: inout [EngineEvent]) {
        events.append(.transition(makeTransitionEvent(index, isProgress: isProgress, withAnimation: withAnimation)))
    }

    private func nextTick(after time: MonotonicInstant, from t: RunningTransition) -> MonotonicInstant {
        let interval = max(1, configuration.tickInterval.value)
        guard let spec = t.interaction.runOut else { return time.advanced(by: Microseconds(interval)) }
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
            for (i, t) in running.enumerated() where t.interaction.phase.isRunningOut {
                guard let end = t.interaction.runOut?.end, end <= time else { continue }
                if earliest.map({ end < $0.end }) ?? true { earliest = (i, end) }
            }
            guard let (i, end) = earliest else { break }
            now = max(now, end)
            let old = running[i].interaction.phase
            if let terminal = running[i].interaction.advance(to: end) {
                events.append(.trace(.transition(id: running[i].id, from: old, event: .runOutEnded, to: terminal)))
                finish(i, completed: terminal == .completed, into: &events)
            }
        }
    }

    /// Emits the end of a transition: lifecycle first ("did disappear -> animation ended"), then the single
    /// terminal event, then the new state. The container changes only if the transition completed.
    private mutating func finish(_ index: Int, completed: Bool, into events: inout [EngineEvent]) {
        let t = running[index]
        let containerName = containers[t.container].name
        for step in t.plan.lifecycleAtEnd(completed: completed) {
            events.append(.lifecycle(LifecycleEvent(
                time: now, transition: t.id, container: containerName, scene: step.scene, kind: step.kind)))
        }
        if completed { containers[t.container].content = t.plan.completedContent }
        var terminal = makeTransitionEvent(index, isProgress: false, withAnimation: false)
        terminal.geometry = t.animator.finalGeometry(for: t.plan, completed: completed)
        events.append(.transition(terminal))
        running.remove(at: index)
        for d in devices.indices where devices[d].driving == t.id { devices[d].driving = nil }
        events.append(.state(snapshot))
    }

    private func emitGesture(
        device index: Int, state: ScreenEdgePanRecognizer.State, isProgress: Bool = false, into events: inout [EngineEvent]
    ) {
        let slot = devices[index]
        let r = slot.recognizer
        let size = slot.device.size
        let t = r.translation
        let v = r.velocity(at: now)
        let edge = r.edge ?? r.candidates.members.min(by: { $0.distance(of: r.start) < $1.distance(of: r.start) }) ?? .left
        events.append(.gesture(GestureEvent(
            time: now, device: slot.device.id, deviceKind: slot.device.kind, edge: edge, state: state,
            fingers: max(r.fingers, state == .ended || state == .cancelled ? 1 : 0), location: r.location,
            translation: MillimeterVector(x: t.dx * size.width.value, y: t.dy * size.height.value),
            velocity: MillimeterVector(x: v.x * size.width.value, y: v.y * size.height.value),
            transition: slot.driving)))
    }

    private func deviceIndex(_ id: DeviceID) -> Int? { devices.firstIndex { $0.device.id == id } }
    private func runningIndex(_ id: TransitionID) -> Int? { running.firstIndex { $0.id == id } }
}
