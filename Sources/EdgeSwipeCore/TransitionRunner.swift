extension Engine {
    /// A transition in flight: its plan, its animator, its machine, what drives it and what clients were told.
    struct RunningTransition: Sendable {
        var id: TransitionID
        var container: Int
        var plan: TransitionPlan
        var animator: Animator
        var interaction: PercentDrivenInteractiveTransition
        /// The gesture's trigger that drives it (its edge, or its swipe's direction); `nil` for a request. A gesture
        /// of the same trigger catches its run-out.
        var trigger: GestureTrigger?
        /// Which way its scenes move: the finger's, for a gesture (from an edge, the scene comes out of that
        /// edge); the plan's own for a request.
        var motion: SwipeDirection
        var device: DeviceID?
        var deviceKind: DeviceKind?
        /// The finger count of the swipe that drives it: a swipe with as many fingers catches its run-out.
        var swipeFingers: Int?
        /// The binding's own reference and decision, for the gesture that catches its run-out.
        var reference: PercentReference?
        var decision: ReleaseDecision?
        /// What clients were last told: the phase and progress of the latest report.
        var last: PercentDrivenInteractiveTransition.Report
        /// The run-out in flight, from the report that started it.
        var runOut: AnimationSpec?
        var nextTick: MonotonicInstant = .zero
        /// While a finger drives it: when that finger, still since its last motion, has been still for its velocity
        /// window, so that a release would have no velocity. Clients are then told so (a `changed` at velocity 0,
        /// with its release judgement), since a finger at rest sends nothing.
        var restsAt: MonotonicInstant?

        var isRunningOut: Bool { last.phase.isRunningOut }
    }

    // MARK: - Running transitions: start, catch, settle, finish, emit

    /// A machine's action: its log line (or bug) goes to the trace; its output comes back for the caller to carry
    /// out.
    static func output<S: MachineName, E: MachineName, O: Hashable & Sendable>(
        of action: MachineAction<S, E, O>, machine: TraceEvent.Machine, id: UInt64, into events: inout [EngineEvent]
    ) -> O? {
        guard case .output(let output) = action else {
            if let trace = TraceEvent(action, of: machine, id: id) { events.append(.trace(trace)) }
            return nil
        }
        return output
    }

    /// Resolves `operation` in the container named `containerName`: its index and plan, or why it cannot run now
    /// (no such container, busy, not applicable, past a limit).
    func resolve(_ operation: TransitionOperation, in containerName: String) throws(TransitionRefusal) -> (Int, TransitionPlan) {
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

    /// Starts the interactive transition a gesture drives through `binding` (with `fingers` fingers) and gives it to
    /// the device's gesture: the binding's animator, or the configured one, run out at the configured completion
    /// speed and curve; the binding's release decision, or the device kind's; the gesture's travel over
    /// `reference`, counted from 0. The caller has reported the gesture's `began`, naming the id this transition
    /// gets (`nextTransitionID`).
    mutating func startInteractiveTransition(
        _ binding: Binding, container: Int, plan: TransitionPlan, fingers: Int, device index: Int,
        reference: GestureReference, into events: inout [EngineEvent]
    ) {
        let animator = binding.animator ?? configuration.animator
        let interaction = PercentDrivenInteractiveTransition(
            duration: animator.duration, completionSpeed: configuration.completionSpeed,
            completionCurve: configuration.completionCurve)
        let id = startTransition(
            container: container, plan: plan, animator: animator, interaction: interaction,
            device: devices[index].device.id, deviceKind: devices[index].device.kind, binding: binding,
            swipeFingers: fingers, into: &events)
        devices[index].gesture = .driving(Drive(
            transition: id, reference: reference, base: .zero, decision: binding.decision ?? devices[index].settings.decision))
    }

    /// The device's gesture catches transition `t`'s run-out (UIKit's interruptible transitions): it takes the
    /// transition over with its binding's release decision, the coordinator hears an interaction begin at the
    /// percent and velocity the run-out has now, and the gesture's travel over `reference` is added to that
    /// percent, less what it had `travelled` already when it began. The caller has reported the gesture's `began`.
    mutating func catchRunOut(
        _ t: Int, device index: Int, reference: GestureReference, travelled: Percent, into events: inout [EngineEvent]
    ) {
        let id = running[t].id
        running[t].device = devices[index].device.id
        let caught = running[t].runOut.map { Progress(percent: $0.percent(at: now), velocity: $0.velocity(at: now)) }
            ?? running[t].last.progress
        devices[index].gesture = .driving(Drive(
            transition: id, reference: reference, base: caught.percent - travelled,
            decision: running[t].decision ?? devices[index].settings.decision))
        events.append(.interaction(InteractionEvent(
            time: now, transition: id, container: containers[running[t].container].name, phase: .began,
            cancelled: nil, percent: caught.percent, velocity: caught.velocity)))
        apply(.caught, to: t, into: &events)
    }

    /// Starts a transition: its `began` event, the presentation controller's will-begin for a modal one, then
    /// the appearance callbacks of the start.
    mutating func startTransition(
        container: Int, plan: TransitionPlan, animator: Animator, interaction: PercentDrivenInteractiveTransition,
        device: DeviceID?, deviceKind: DeviceKind?, binding: Binding?, swipeFingers: Int? = nil, into events: inout [EngineEvent]
    ) -> TransitionID {
        let id = TransitionID(nextTransitionID)
        nextTransitionID += 1
        let began = PercentDrivenInteractiveTransition.Report(phase: .began, progress: .zero, animation: nil, isProgressOnly: false)
        running.append(RunningTransition(
            id: id, container: container, plan: plan, animator: animator, interaction: interaction,
            trigger: binding?.trigger, motion: binding?.trigger.motion ?? plan.motion, device: device, deviceKind: deviceKind,
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
    func presentationEvent(
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
    mutating func apply(
        _ event: PercentDrivenInteractiveTransition.Event, to index: Int, into events: inout [EngineEvent]
    ) {
        let id = running[index].id
        let actions = running[index].interaction.handle(event, at: now)
        for action in actions {
            guard let report = Self.output(of: action, machine: .transition, id: id.rawValue, into: &events) else { continue }
            running[index].last = report
            if let animation = report.animation { running[index].runOut = animation }
            if report.phase.isTerminal {
                finish(index, completed: report.phase == .completed, into: &events)
                return
            }
            emitTransition(index, report, into: &events)
        }
    }

    func emitTransition(
        _ index: Int, _ report: PercentDrivenInteractiveTransition.Report, geometry: TransitionGeometry? = nil,
        into events: inout [EngineEvent]
    ) {
        let t = running[index]
        events.append(.transition(TransitionEvent(
            time: now, id: t.id, operation: t.plan.operation, container: containers[t.container].name,
            from: t.plan.from, to: t.plan.to, direction: t.plan.direction, phase: report.phase,
            percent: report.progress.percent, velocity: report.progress.velocity,
            interactive: t.interaction.isInteractive, presentationStyle: t.plan.presentationStyle, edge: t.trigger?.edge,
            device: t.device, swipe: t.trigger?.direction, swipeFingers: t.swipeFingers, animation: report.animation,
            geometry: geometry ?? t.animator.geometry(for: t.plan, moving: t.motion, at: report.progress.percent),
            isProgress: report.isProgressOnly, release: releaseJudgement(of: t, report))))
    }

    /// What a release now would conclude, for a transition a finger drives (`changed`): the driving gesture's
    /// release decision at the report's percent and velocity, as ``release(_:velocity:cancelled:device:into:)``
    /// would judge it.
    func releaseJudgement(of t: RunningTransition, _ report: PercentDrivenInteractiveTransition.Report) -> ReleaseJudgement? {
        guard report.phase == .changed else { return nil }
        for slot in devices {
            guard case .driving(let drive) = slot.gesture, drive.transition == t.id else { continue }
            return ReleaseJudgement(
                projected: drive.decision.projectedPercent(report.progress), threshold: drive.decision.threshold,
                flickVelocity: drive.decision.flickVelocity)
        }
        return nil
    }

    func nextTick(after time: MonotonicInstant, from t: RunningTransition) -> MonotonicInstant {
        let interval = max(1, configuration.tickInterval.value)
        guard let spec = t.runOut else { return time.advanced(by: Microseconds(interval)) }
        let elapsed = max(0, (time - spec.start).value)
        return spec.start.advanced(by: Microseconds((elapsed / interval + 1) * interval))
    }

    /// Moves the clock forward (never back) and ends the run-outs that are over by then, so that an input is
    /// always judged against the state at its own instant.
    mutating func advanceClock(to time: MonotonicInstant, into events: inout [EngineEvent]) {
        let target = max(time, now)
        settle(upTo: target, into: &events)
        now = target
    }

    /// Ends, in order of their end time, the run-outs that are over by `time`. Each terminal is stamped with
    /// its animation's own end, which no earlier output passed: every earlier input settled what ended before it.
    mutating func settle(upTo time: MonotonicInstant, into events: inout [EngineEvent]) {
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
    mutating func finish(_ index: Int, completed: Bool, into events: inout [EngineEvent]) {
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
        for d in devices.indices {
            if case .driving(let drive) = devices[d].gesture, drive.transition == t.id { devices[d].gesture = .idle }
        }
        events.append(.state(snapshot))
    }

    func runningIndex(_ id: TransitionID) -> Int? { running.firstIndex { $0.id == id } }
}
