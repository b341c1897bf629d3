/// The length of travel that runs a whole transition, in the unit a gesture's recognizer measures travel in: a
/// fraction of the axis across the edge for an edge gesture (its recognizer works in normalized units), millimetres
/// for a swipe (libinput's deltas are millimetres).
struct GestureReference: Sendable {
    /// The travel that runs the whole transition, in the gesture's unit.
    var length: Double
    /// How long one of the gesture's units is: the axis across the edge, or one millimetre.
    var unit: Millimeters

    /// The reference of an edge gesture: `fraction` of the axis across its edge, `axis` long.
    static func acrossEdge(_ fraction: Double, axis: Millimeters) -> GestureReference {
        GestureReference(length: fraction, unit: axis)
    }

    /// The reference of a swipe, in millimetres.
    static func millimeters(_ mm: Double) -> GestureReference {
        GestureReference(length: mm, unit: Millimeters(1))
    }

    /// The share of the transition `travel` runs, and how fast.
    func progress(of travel: GestureTravel) -> Progress {
        Progress(percent: Percent(travel.distance / length), velocity: PercentPerSecond(travel.perSecond / length))
    }

    /// `percent` of the reference, along the gesture's direction, in millimetres.
    func millimeters(_ percent: Percent) -> Millimeters {
        Millimeters(percent.value * length * unit.value)
    }
}

/// How far a gesture has travelled along its direction (negative when back past its start), and how fast, in its
/// reference's unit (``GestureReference``).
struct GestureTravel: Sendable {
    var distance: Double
    var perSecond: Double
}

/// A gesture's step as the driver takes it, whichever recognizer made it.
struct GestureStep: Sendable {
    var trigger: GestureTrigger
    /// Fingers down (an edge gesture), or the swipe's finger count.
    var fingers: Int
    /// The tracked finger, or the swipe's centroid.
    var location: NormalizedPoint
    /// From the landing point (a swipe: the centroid's travel), in (real or assumed) millimetres.
    var translation: MillimeterVector
    var velocity: MillimeterVector
    var travel: GestureTravel
}

extension Engine {
    // MARK: - The gesture driver

    /// What a gesture that begins can drive.
    enum Resolution {
        case applicable(binding: Int, container: Int, plan: TransitionPlan)
        /// The trigger has bindings for this kind and finger count, and none can run now; the first of them.
        case blocked(Binding)
        case unbound
    }

    /// Why the driver refused a gesture at its beginning: the recognizer that made it hears it.
    enum Refusal {
        /// No binding listens to this trigger, kind of device and finger count.
        case bindingUnavailable
        /// An edge gesture with as many fingers as a swipe binding wants, moving its way: the sequence is a swipe.
        case swipe
    }

    /// A gesture began on device `index`: it catches the run-out its sequence is catching, gives way to a swipe,
    /// starts the transition of the first binding that applies, or shows its rubber band where none can run.
    /// Returns the refusal the recognizer must hear, if any.
    mutating func gestureBegan(_ step: GestureStep, device index: Int, into events: inout [EngineEvent]) -> Refusal? {
        let kind = devices[index].device.kind
        let phase = devices[index].gesture
        devices[index].gesture = .idle
        // A catch: the gesture takes over a transition of the same trigger that is running out.
        if case .catching(let trigger) = phase, trigger == step.trigger, let t = caughtRunOut(step, kind: kind) {
            let reference = self.reference(for: step.trigger, binding: running[t].reference, device: index)
            emitGesture(.began, step, device: index, transition: running[t].id, into: &events)
            // The travel so far is already in the scene: the caught percent is where it is now.
            catchRunOut(t, device: index, reference: reference, travelled: reference.progress(of: step.travel).percent, into: &events)
            return nil
        }
        // Where a swipe binding wants as many fingers, the sequence is a swipe, not an edge gesture: a single
        // finger is always an edge candidate, more prefer a swipe (docs/ARCHITECTURE.md, "One sequence, one
        // gesture").
        if case .edge(let edge) = step.trigger, swipeClaims(step.fingers, moving: edge.inwardDirection, on: kind) {
            return .swipe
        }
        switch resolveBinding(step.trigger, kind: kind, fingers: step.fingers) {
        case .applicable(let bindingIndex, let containerIndex, let plan):
            let binding = configuration.bindings[bindingIndex]
            let reference = self.reference(for: step.trigger, binding: binding.reference, device: index)
            emitGesture(.began, step, device: index, transition: TransitionID(nextTransitionID), into: &events)
            startInteractiveTransition(
                binding, container: containerIndex, plan: plan, fingers: step.fingers, device: index, reference: reference,
                into: &events)
            drive(step, device: index, into: &events)
        case .blocked(let binding):
            let reference = self.reference(for: step.trigger, binding: binding.reference, device: index)
            devices[index].gesture = .blocked(reference)
            emitGesture(.began, step, device: index, blocked: reference, into: &events)
        case .unbound:
            return .bindingUnavailable
        }
        return nil
    }

    /// The gesture moved: reported, and its transition follows (or its rubber band stretches).
    mutating func gestureChanged(_ step: GestureStep, device index: Int, into events: inout [EngineEvent]) {
        switch devices[index].gesture {
        case .driving(let drive):
            emitGesture(.changed, step, device: index, transition: drive.transition, into: &events)
            self.drive(step, device: index, into: &events)
        case .blocked(let reference):
            emitGesture(.changed, step, device: index, blocked: reference, into: &events)
        case .idle, .catching:
            emitGesture(.changed, step, device: index, into: &events)
        }
    }

    /// The gesture ended (its finger lifted) or was cancelled: its transition is released (a cancelled one
    /// always runs back), or its rubber band springs back.
    mutating func gestureEnded(_ step: GestureStep, cancelled: Bool, device index: Int, into events: inout [EngineEvent]) {
        let state: GestureState = cancelled ? .cancelled : .ended
        let phase = devices[index].gesture
        devices[index].gesture = .idle
        switch phase {
        case .driving(let drive):
            emitGesture(state, step, device: index, transition: drive.transition, into: &events)
            release(drive, velocity: progress(step, drive).velocity, cancelled: cancelled, device: index, into: &events)
        case .blocked(let reference):
            emitGesture(state, step, device: index, blocked: reference, springBack: true, into: &events)
        case .idle, .catching:
            emitGesture(state, step, device: index, into: &events)
        }
    }

    /// The gesture's recognizer failed: reported when it had been in a zone (or locked on a direction).
    mutating func gestureFailed(
        _ step: GestureStep?, edge failure: ScreenEdgePanRecognizer.FailureReason? = nil,
        swipe swipeFailure: SwipeRecognizer.FailureReason? = nil, device index: Int, into events: inout [EngineEvent]
    ) {
        guard let step else { return }
        emitGesture(.failed, step, device: index, failure: failure, swipeFailure: swipeFailure, into: &events)
    }

    /// The reference a gesture of `trigger` runs a transition against: the binding's, else the device kind's
    /// (for a swipe, the kind's swipe reference for its axis).
    func reference(for trigger: GestureTrigger, binding reference: PercentReference?, device index: Int) -> GestureReference {
        let slot = devices[index]
        switch trigger {
        case .edge(let edge):
            return .acrossEdge(
                (reference ?? slot.settings.reference).fraction(across: edge, on: slot.device),
                axis: edge.isHorizontal ? slot.size.width : slot.size.height)
        case .swipe(let direction):
            return .millimeters(
                (reference ?? slot.settings.swipe.reference(for: direction)).millimeters(along: direction, on: slot.device))
        }
    }

    /// The gesture's travel as its transition's percent and velocity. Travel back past the start is negative: the
    /// transition clamps it at 0, so a gesture back past its start and a release cancel.
    func progress(_ step: GestureStep, _ drive: Drive) -> Progress {
        let travelled = drive.reference.progress(of: step.travel)
        return Progress(percent: drive.base + travelled.percent, velocity: travelled.velocity)
    }

    /// The transition follows the gesture; if the finger then holds still for its velocity window, it is at rest.
    mutating func drive(_ step: GestureStep, device index: Int, into events: inout [EngineEvent]) {
        guard case .driving(let drive) = devices[index].gesture, let t = runningIndex(drive.transition) else { return }
        let p = progress(step, drive)
        apply(.update(p), to: t, into: &events)
        guard let t = runningIndex(drive.transition) else { return }
        let settings = devices[index].settings
        let window = step.trigger.kind == .edge ? settings.recognizer.velocityWindow : settings.swipe.velocityWindow
        running[t].restsAt = p.velocity.value == 0 ? nil : now.advanced(by: window)
    }

    /// The finger lets go of the transition `drive` drives at `velocity`: the release decision, the coordinator's
    /// interaction ended, and the run-out.
    mutating func release(
        _ drive: Drive, velocity: PercentPerSecond, cancelled: Bool, device index: Int, into events: inout [EngineEvent]
    ) {
        guard let t = runningIndex(drive.transition) else { return }
        // The transition's own (clamped) percent, at the finger's velocity.
        let release = Progress(percent: running[t].last.progress.percent, velocity: velocity)
        let decision = drive.decision
        let judgement = cancelled ? nil : ReleaseJudgement(
            projected: decision.projectedPercent(release), threshold: decision.threshold,
            flickVelocity: decision.flickVelocity)
        let finish = judgement?.finishes ?? false
        let handed = cancelled ? PercentPerSecond.zero : velocity
        events.append(.interaction(InteractionEvent(
            time: now, transition: drive.transition, container: containers[running[t].container].name, phase: .ended,
            cancelled: !finish, percent: release.percent, velocity: handed.isFinite ? handed : .zero,
            decision: judgement)))
        running[t].nextTick = now.advanced(by: configuration.tickInterval)
        apply(finish ? .finish(velocity: handed) : .cancel(velocity: handed), to: t, into: &events)
        settle(upTo: now, into: &events)
    }

    /// A blocked gesture's rubber band: its displacement in percent and in millimetres and, once the gesture ends
    /// (`springBack`), the animation back to rest at the band's velocity. The pull is the gesture's travel along
    /// its direction over `reference`, as a transition's percent would be.
    func stretchRubberBand(_ event: inout GestureEvent, travel: GestureTravel, reference: GestureReference, springBack: Bool) {
        guard case .rubberBand(let band) = configuration.overscroll else { return }
        let travelled = reference.progress(of: travel)
        let pull = Percent(max(0, travelled.percent.value))
        let displacement = band.displacement(pull)
        event.overscroll = displacement
        event.overscrollMM = reference.millimeters(displacement)
        if springBack {
            event.animation = band.springBack(
                from: displacement, velocity: PercentPerSecond(travelled.velocity.value * band.slope(at: pull)), at: now)
        }
    }

    /// Reports the gesture's step: a `gesture` event, with its rubber band when it is `blocked`.
    func emitGesture(
        _ state: GestureState, _ step: GestureStep, device index: Int, transition: TransitionID? = nil,
        blocked reference: GestureReference? = nil, springBack: Bool = false,
        failure: ScreenEdgePanRecognizer.FailureReason? = nil, swipeFailure: SwipeRecognizer.FailureReason? = nil,
        into events: inout [EngineEvent]
    ) {
        let slot = devices[index]
        var event = GestureEvent(
            time: now, device: slot.device.id, deviceKind: slot.device.kind, trigger: step.trigger, state: state,
            fingers: step.fingers, location: step.location, translation: step.translation, velocity: step.velocity,
            transition: transition, failure: failure, swipeFailure: swipeFailure)
        if let reference {
            event.blocked = .noApplicableBinding
            stretchRubberBand(&event, travel: step.travel, reference: reference, springBack: springBack)
        }
        events.append(.gesture(event))
    }

    /// The first binding of `trigger` for this kind of device and finger count whose operation can run now.
    func resolveBinding(_ trigger: GestureTrigger, kind: DeviceKind, fingers: Int) -> Resolution {
        var first: Binding? = nil
        for (i, b) in configuration.bindings.enumerated()
        where b.trigger == trigger && b.listens(to: kind) && b.fingers.contains(max(1, fingers)) {
            if first == nil { first = b }
            if let (c, plan) = try? resolve(b.operation, in: b.container) { return .applicable(binding: i, container: c, plan: plan) }
        }
        if let first { return .blocked(first) }
        return .unbound
    }

    /// Whether an edge gesture about to begin with `fingers` fingers, moving `direction` (its edge's inward
    /// normal), is a swipe instead: a swipe binding wants that many fingers moving that way, and the swipe path
    /// can report that many (libinput makes two fingers on a touchpad scroll). One finger never is.
    func swipeClaims(_ fingers: Int, moving direction: SwipeDirection, on kind: DeviceKind) -> Bool {
        fingers >= 2 && fingers >= configuration.settings(for: kind).swipe.minimumFingers
            && boundSwipes.wants(fingers, moving: direction, on: kind)
    }

    // MARK: - Catching run-outs

    /// The edges whose transition is running out on this kind of device: a touch landing in their zone catches it.
    func catchableEdges(for kind: DeviceKind) -> Edges {
        var edges: Edges = []
        for t in running where t.deviceKind == kind && t.isRunningOut {
            if let e = t.trigger?.edge { edges.insert(e.edges) }
        }
        return edges
    }

    /// The swipe transition running out that a swipe of `fingers` fingers on a device of `kind` would catch.
    func catchableSwipe(fingers: Int, kind: DeviceKind) -> Int? {
        running.firstIndex { $0.trigger?.direction != nil && $0.swipeFingers == fingers && $0.deviceKind == kind && $0.isRunningOut }
    }

    /// The run-out a gesture beginning with `step` catches: one its trigger drove on this kind of device (a swipe's
    /// with as many fingers).
    func caughtRunOut(_ step: GestureStep, kind: DeviceKind) -> Int? {
        running.firstIndex {
            $0.trigger == step.trigger && $0.deviceKind == kind && $0.isRunningOut
                && (step.trigger.kind == .edge || $0.swipeFingers == step.fingers)
        }
    }
}
