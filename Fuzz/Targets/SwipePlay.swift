// libFuzzer target: multi-finger swipes, the touch side. `config-play` drives the demo (one finger at a time)
// through any configuration; this one drives random hands through the swipe machinery (MultiFingerDetector,
// SwipeRecognizer, the engine's choice between an edge gesture and a swipe): scripted multi-finger swipes from the
// finger-script library with any finger count (1-10), direction, travel, speed, landing and lifting stagger, two
// hands at once, cut short; edge swipes between them; on touchscreens and touchpads modelled on real ones (no
// resolution, negative minimums, any rotation); against the shipped swipe bindings or random ones (directions,
// finger ranges, devices, references, containers); the touchpad's swipes emulated from its frames (replays) or
// given as libinput's gesture events (live).
//
// Checked, besides "no crash":
// - the engine's stream keeps its invariants (Support/EngineChecks.swift) and ends quiet once the devices go;
// - a swipe gesture begins only for a direction, finger count and kind of device some swipe binding wants, and a
//   swipe-driven transition runs in that binding's container with a finger count it allows;
// - a gesture never counts more fingers than the script put down, and begins with at least one;
// - the containers stay within StateLimits.
import EdgeSwipeCore
import EdgeSwipeFingerScript
import EdgeSwipeInput
import EdgeSwipeRecordings

private let models: [TouchDevice] = [
    ModelledDevices.cintiq, ModelledDevices.nexus4, ModelledDevices.synapticsI2C, ModelledDevices.smallTouchpad,
    ModelledDevices.bcm5974,
]

/// The actions a swipe binding may take, in the default configuration's containers.
private let actions: [(String, TransitionOperation)] = [
    ("shell", .nextTab), ("shell", .previousTab), ("shell", .selectTab(index: 0)), ("app", .push(scene: "details")),
    ("app", .pop), ("overlay", .present(scene: "card", style: .custom, frame: NormalizedRect(x: 0.1, y: 0.1, width: 0.8, height: 0.8))),
    ("overlay", .dismiss), ("app", .popToRoot),
]

private func configuration(_ input: inout FuzzBytes) -> EngineConfiguration {
    var c = EngineConfiguration.default
    let shape = input.u8()
    guard shape & 3 != 0 else { return c }
    if shape & 4 != 0 { c.bindings.removeAll { $0.edge != nil } }
    c.bindings.removeAll { $0.direction != nil }
    for _ in 0..<(1 + Int(input.u8() % 6)) {
        let low = 2 + Int(input.u8() % 4)
        let high = low + Int(input.u8()) % (6 - low)
        let kinds: [DeviceKind] = input.pick([[], [.touchscreen], [.touchpad]])
        let (container, operation) = input.pick(actions)
        let reference: PercentReference? =
            switch input.u8() % 4 {
            case 0: nil
            case 1: .millimeters(1 + Double(input.u8()))
            case 2: .fraction(0.05 + Double(input.u8()) / 270)
            default: .extent(capMM: input.bool() ? nil : 20 + Double(input.u16() % 500))
            }
        c.bindings.append(Binding(
            swipe: input.pick(SwipeDirection.allCases), deviceKinds: kinds, fingers: low...high, container: container,
            operation: operation, reference: reference))
    }
    if shape & 8 != 0 {
        // The detector's timing and lock, within what the configuration accepts.
        for kind in DeviceKind.allCases {
            var s = SwipeSettings.defaults(for: kind)
            s.lockDistance = Millimeters(0.5 + Double(input.u8()) / 25)
            s.fingerWindow = .milliseconds(Int64(input.u8()))
            s.switchTimeout = input.bool() ? nil : .milliseconds(Int64(input.u8()))
            s.minimumFingers = 2 + Int(input.u8() % 3)
            if kind == .touchscreen { c.touchscreen.swipe = s } else { c.touchpad.swipe = s }
        }
    }
    return c
}

/// One device's steps: its frames, and (live touchpads) libinput's swipe events.
private func steps(on device: TouchDevice, gestures: Bool, _ input: inout FuzzBytes, origin: MonotonicInstant) -> (steps: [InputStep], fingers: Int) {
    var script = FingerScript()
    var swipes: [InputStep] = []
    var laneFree = [Microseconds.zero, Microseconds.zero]
    var most = [0, 0]
    for _ in 0..<(1 + Int(input.u8() % 6)) {
        let kind = input.u8()
        let lane = Int(kind >> 7)
        let start = laneFree[lane] + .milliseconds(Int64(input.u8()) * 4)
        let part: FingerScript
        switch kind % 8 {
        case 0:
            let swipe = EdgeSwipe(
                edge: input.pick(Edge.allCases), travel: input.unit(), duration: .milliseconds(Int64(input.u8()) * 3 + 8),
                release: input.bool() ? .atRest : .whileMoving, along: input.unit(), landing: .millimeters(Double(input.u8()) / 32))
            part = .edgeSwipe(swipe, on: device, finger: Int32(lane * 10), start: start)
            most[lane] = max(most[lane], 1)
        case 1 where gestures:
            // libinput's swipe: begin, updates in millimetres, end (cancelled when a finger was added or lifted).
            let fingers = 3 + Int(input.u8() % 3)
            var t = start
            swipes.append(InputStep(time: origin.advanced(by: t), input: .swipe(device.id, .begin(fingers: fingers))))
            let dx = Double(Int8(bitPattern: input.u8())) / 16, dy = Double(Int8(bitPattern: input.u8())) / 16
            for _ in 0..<(1 + Int(input.u8() % 40)) {
                t = t + Microseconds(Int64(input.u8()) * 100 + 1000)
                let jitter = Double(Int8(bitPattern: input.u8())) / 64
                swipes.append(InputStep(time: origin.advanced(by: t), input: .swipe(device.id, .update(delta: MillimeterVector(x: dx + jitter, y: dy - jitter)))))
            }
            t = t + Microseconds(Int64(input.u8()) * 100)
            swipes.append(InputStep(time: origin.advanced(by: t), input: .swipe(device.id, .end(cancelled: input.u8() < 32))))
            laneFree[lane] = t
            continue
        default:
            let fingers = 1 + Int(input.u8() % 10)
            let swipe = MultiFingerSwipe(
                fingers: fingers, direction: input.pick(SwipeDirection.allCases), travelMM: Double(input.u8()) / 2,
                duration: .milliseconds(Int64(input.u8()) * 3 + 8), release: input.bool() ? .atRest : .whileMoving,
                center: (input.unit(), input.unit()), spacingMM: 2 + Double(input.u8() % 40),
                landingStagger: .milliseconds(Int64(input.u8() % 160)), settle: .milliseconds(Int64(input.u8() % 120)),
                liftStagger: .milliseconds(Int64(input.u8() % 120)), interval: Microseconds(4000 + Int64(input.u8()) * 64))
            part = .multiFingerSwipe(swipe, on: device, firstFinger: Int32(lane * 10), start: start)
            most[lane] = max(most[lane], fingers)
        }
        // Cut short sometimes: the fingers stay down until the device goes.
        let cut = input.u8()
        let played = cut < 24 ? part.cut(at: start + Microseconds((part.end - start).value * Int64(cut) / 24)) : part
        laneFree[lane] = played.end
        script = script + played
    }
    let frames = script.frames(on: device, origin: origin).map { InputStep(time: $0.time, input: .frame($0)) }
    return ((frames + swipes).sorted { $0.time < $1.time }, most[0] + most[1])
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSwipePlay(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var input = FuzzBytes(data, count: count)
    let config = configuration(&input)
    let live = input.bool()
    var engine = Engine(configuration: config, touchpadSwipes: live ? .libinputGestures : .touchFrames)
    var events: [EngineEvent] = []
    var check = EngineStreamCheck()
    let origin = MonotonicInstant(microseconds: 1_000_000)

    var devices: [TouchDevice] = []
    var all: [InputStep] = []
    var fingersDown = 0
    for n in 0..<(1 + Int(input.u8() % 2)) {
        var device = input.pick(models)
        device.id = DeviceID(UInt32(n + 1))
        device.rotation = input.pick(Rotation.allCases)
        devices.append(device)
        engine.addDevice(device, at: origin, into: &events)
        let (s, most) = steps(on: device, gestures: live && device.kind == .touchpad, &input, origin: origin)
        all += s
        fingersDown += most
    }
    all.sort { $0.time < $1.time }

    for step in all.prefix(6000) {
        RecordingPlayer.runDeadlines(of: &engine, before: step.time, into: &events)
        step.apply(to: &engine, into: &events)
        for e in events {
            check.check(e)
            switch e {
            case .gesture(let g):
                // Fingers down now: none once the last lifted (a failed or ended gesture), never more than put down.
                precondition(g.fingers >= 0 && g.fingers <= max(fingersDown, live ? 5 : 0), "a gesture of \(g.fingers) fingers, \(fingersDown) put down: \(g)")
                if g.state == .began { precondition(g.fingers >= 1, "a gesture began with no finger down: \(g)") }
                if case .swipe(let direction) = g.trigger, g.state == .began {
                    precondition(
                        config.bindings.contains { $0.direction == direction && $0.listens(to: g.deviceKind) && $0.fingers.contains(g.fingers) },
                        "a \(g.fingers)-finger swipe \(direction) began on a \(g.deviceKind), which no binding wants")
                }
            case .transition(let t):
                guard let direction = t.swipe, t.phase == .began, !t.isProgress else { continue }
                let fingers = t.swipeFingers ?? -1
                precondition(
                    config.bindings.contains { $0.direction == direction && $0.container == t.container && $0.fingers.contains(fingers) },
                    "a \(fingers)-finger swipe \(direction) drives \(t.container), which no binding allows")
            default: break
            }
        }
        events.removeAll(keepingCapacity: true)
    }
    for d in devices { engine.removeDevice(d.id, at: engine.now, into: &events) }
    RecordingPlayer.runDeadlines(of: &engine, before: nil, into: &events)
    for e in events { check.check(e) }
    check.checkQuiet(engine)
    checkSnapshot(engine)
    return 0
}
