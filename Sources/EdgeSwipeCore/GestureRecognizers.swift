extension Engine {
    // MARK: - The recognizers: their actions, as the driver's gesture steps

    /// Runs one step of the device's edge recognizer and carries out its actions.
    mutating func recognize(_ event: ScreenEdgePanRecognizer.Event, device index: Int, into events: inout [EngineEvent]) {
        let actions = devices[index].recognizer.handle(event, at: now)
        let id = UInt64(devices[index].device.id.rawValue)
        for action in actions {
            guard let output = Self.output(of: action, machine: .recognizer, id: id, into: &events) else { continue }
            perform(output, device: index, into: &events)
        }
    }

    private mutating func perform(_ output: ScreenEdgePanRecognizer.Output, device index: Int, into events: inout [EngineEvent]) {
        switch output {
        case .track(_, let candidates):
            let catchable = catchableEdges(for: devices[index].device.kind).intersection(candidates)
            if let edge = Edge.ordered.first(where: { catchable.contains($0.edges) }) {
                devices[index].gesture = .catching(.edge(edge))
                recognize(.caught(edge), device: index, into: &events)
            }
        case .begin(let m):
            switch gestureBegan(step(m, device: index), device: index, into: &events) {
            case .swipe: recognize(.swipe, device: index, into: &events)
            case .bindingUnavailable: recognize(.bindingUnavailable, device: index, into: &events)
            case nil: break
            }
        case .change(let m):
            gestureChanged(step(m, device: index), device: index, into: &events)
        case .end(let m):
            gestureEnded(step(m, device: index), cancelled: false, device: index, into: &events)
        case .cancel(let m):
            gestureEnded(step(m, device: index), cancelled: true, device: index, into: &events)
        case .fail(let reason, let motion):
            // The phase is the sequence's: while a swipe holds it (a finger landing during a live touchpad's
            // swipe, which has no edge to judge), the edge recognizer's failure is its own, and the swipe's
            // transition must not lose its driver.
            if devices[index].swipe.isIdle { devices[index].gesture = .idle }
            // A touch that never landed in a zone is not a gesture at all; say nothing about it.
            gestureFailed(motion.map { step($0, device: index) }, edge: reason, device: index, into: &events)
        }
    }

    /// An edge gesture's step: its translation in millimetres, its inward travel in fractions of the axis.
    private func step(_ m: ScreenEdgePanRecognizer.Motion, device index: Int) -> GestureStep {
        let size = devices[index].size
        return GestureStep(
            trigger: .edge(m.edge), fingers: m.fingers, location: m.location,
            translation: MillimeterVector(x: m.translation.x * size.width.value, y: m.translation.y * size.height.value),
            velocity: MillimeterVector(x: m.velocity.x * size.width.value, y: m.velocity.y * size.height.value),
            travel: GestureTravel(
                distance: m.edge.inward(dx: m.translation.x, dy: m.translation.y),
                perSecond: m.edge.inward(dx: m.velocity.x, dy: m.velocity.y)))
    }

    /// One swipe event from the device's source (libinput, or the detector): decides whether this touch
    /// sequence takes it, then runs the swipe recognizer.
    mutating func swipeInput(_ input: SwipeGestureInput, device index: Int, into events: inout [EngineEvent]) {
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

    /// Runs one step of the device's swipe recognizer and carries out its actions.
    mutating func recognizeSwipe(_ event: SwipeRecognizer.Event, device index: Int, into events: inout [EngineEvent]) {
        let actions = devices[index].swipe.handle(event, at: now)
        let id = UInt64(devices[index].device.id.rawValue)
        for action in actions {
            guard let output = Self.output(of: action, machine: .swipe, id: id, into: &events) else { continue }
            perform(output, device: index, into: &events)
        }
    }

    private mutating func perform(_ output: SwipeRecognizer.Output, device index: Int, into events: inout [EngineEvent]) {
        switch output {
        case .track(let fingers):
            if let t = catchableSwipe(fingers: fingers, kind: devices[index].device.kind), let direction = running[t].trigger?.direction {
                devices[index].gesture = .catching(.swipe(direction))
                recognizeSwipe(.caught(direction), device: index, into: &events)
            }
        case .begin(let m):
            switch gestureBegan(step(m, device: index), device: index, into: &events) {
            // A swipe never gives way to a swipe: only a missing binding refuses it.
            case .bindingUnavailable, .swipe: recognizeSwipe(.bindingUnavailable, device: index, into: &events)
            case nil: break
            }
        case .change(let m):
            gestureChanged(step(m, device: index), device: index, into: &events)
        case .end(let m):
            gestureEnded(step(m, device: index), cancelled: false, device: index, into: &events)
        case .cancel(let m):
            gestureEnded(step(m, device: index), cancelled: true, device: index, into: &events)
        case .fail(let reason, let m):
            devices[index].gesture = .idle
            gestureFailed(m.map { step($0, device: index) }, swipe: reason, device: index, into: &events)
        }
    }

    /// A swipe's step: its centroid's travel in millimetres, where the device reports its fingers.
    private func step(_ m: SwipeRecognizer.Motion, device index: Int) -> GestureStep {
        GestureStep(
            trigger: .swipe(m.direction), fingers: m.fingers,
            location: devices[index].detector.centroid ?? NormalizedPoint(x: 0.5, y: 0.5),
            translation: m.translation, velocity: m.velocity,
            travel: GestureTravel(
                distance: m.direction.along(dx: m.translation.x, dy: m.translation.y),
                perSecond: m.direction.along(dx: m.velocity.x, dy: m.velocity.y)))
    }

    /// Carries out the device's multi-finger detector's actions: its swipes go to the swipe path.
    mutating func detect(_ actions: ActionList<MultiFingerDetector.Action>, device index: Int, into events: inout [EngineEvent]) {
        let id = UInt64(devices[index].device.id.rawValue)
        for action in actions {
            guard let input = Self.output(of: action, machine: .detector, id: id, into: &events) else { continue }
            swipeInput(input, device: index, into: &events)
        }
    }

    /// Whether the detector of a device of this kind reports swipes: always on screens; on touchpads only when
    /// their swipes do not come from libinput.
    func detectorEmits(_ kind: DeviceKind) -> Bool {
        kind == .touchscreen || touchpadSwipes == .touchFrames
    }
}
