// libFuzzer target: daemon requests applied the way the daemon applies them, between touches, devices coming and
// going, the accelerometer and the clock. The harness plays the input thread's part (Sources/edgeswiped/
// InputThread.swift, which the fuzz build cannot link): a request is turned into the engine's operation by the
// library call the daemon makes (`ControlRequest.operation(in:)`), then `Engine.request`; a `set-rotation` goes to
// `RotationControl.set`; touches reach the engine through `RotationControl.pass`, as a source's steps do; each
// pass ticks the engine before it carries out requests, as the input thread does.
//
// Input: a program, one op per step (see `step`): scripted touches from the finger-script library (edge swipes and
// multi-finger swipes on a touchscreen, a second screen that follows the accelerometer, and a touchpad), their
// frames delivered a few at a time; requests built from the configuration's names (or not), written as protocol
// lines and read back by the protocol's decoder; raw request lines; a request repeated hundreds of times (to reach
// the state limits); devices added, removed, replugged under new identities; events lost; the clock. Checked,
// besides "no crash":
// - the engine's stream keeps its invariants (Support/EngineChecks.swift) and ends quiet;
// - a request written by `Request.line` reads back the same (the client's writer and the daemon's reader agree);
// - a refused request (by the decoder, the container lookup, the engine, or the rotation stage) changes nothing:
//   no event, the same containers and running transitions, the same rotations remembered, no step to the engine;
// - an accepted request starts exactly one transition (or rotates exactly the devices it named);
// - the state stays within StateLimits, the snapshot is the engine's state, the remembered rotations are at most
//   `maxRememberedRotations`, and the engine's devices are the rotation stage's, with the same rotations.
import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeFingerScript
import EdgeSwipeInput
import EdgeSwipeRecordings
import EdgeSwipeProtocol

/// The default configuration plus a custom container, so that every kind of container and op has a target.
private let configuration: EngineConfiguration = {
    var c = EngineConfiguration.default
    c.containers.append(Container(name: "split", content: .custom(children: ["list", "detail", "help"], active: 0)))
    c.bindings.append(Binding(edge: .right, deviceKinds: [.touchpad], container: "split", operation: .show(child: "detail")))
    return c
}()

/// The demo's touchscreen (driving output DSI-1), a second screen that follows the accelerometer, a touchpad.
private let devices: [TouchDevice] = [
    TouchDevice(
        id: DeviceID(1), name: "Fuzz Touchscreen", kind: .touchscreen,
        x: AxisRange(minimum: 0, maximum: 4650, resolution: 30), y: AxisRange(minimum: 0, maximum: 2610, resolution: 30),
        path: "fuzz-1", identity: DeviceIdentity(name: "Fuzz Touchscreen", bus: 0x18, vendor: 0x1d6b, product: 0x5e00),
        output: "DSI-1"),
    TouchDevice(
        id: DeviceID(2), name: "Fuzz Tablet Screen", kind: .touchscreen,
        x: AxisRange(minimum: 0, maximum: 1500), y: AxisRange(minimum: 0, maximum: 2500), rotation: .degrees90,
        path: "fuzz-2", output: "HDMI-A-1", followsAccelerometer: true),
    TouchDevice(
        id: DeviceID(3), name: "Fuzz Touchpad", kind: .touchpad,
        x: AxisRange(minimum: 0, maximum: 1216, resolution: 12), y: AxisRange(minimum: 0, maximum: 680, resolution: 12),
        path: "fuzz-3"),
]

private let containerNames = ["app", "shell", "overlay", "split", "nowhere"]
private let sceneNames = ["home", "details", "settings", "launcher", "notifications", "overview", "list", "detail", "help", "d\u{e9}tail \"q\""]
private let frames = [
    NormalizedRect(x: 0.1, y: 0.2, width: 0.8, height: 0.6), NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.5),
    NormalizedRect(x: -10, y: 10, width: 10, height: 0.001), NormalizedRect(x: 0.25, y: 0.25, width: 0, height: 0.5),
    NormalizedRect(x: 11, y: 0, width: 1, height: 1),
]
private let outputs = ["DSI-1", "HDMI-A-1", "eDP-1"]

private final class World {
    var input: FuzzBytes
    var engine = Engine(configuration: configuration)
    var rotation: RotationControl
    var events: [EngineEvent] = []
    var check = EngineStreamCheck()
    var time = MonotonicInstant(microseconds: 1_000_000)
    /// Frames of the scripts in flight, in time order, each with the device and lane (a block of five slots) it
    /// occupies: a new script starts only in a free lane, so that no slot lands twice, as on real hardware.
    var pending: [(frame: TouchFrame, lane: Int)] = []
    /// Steps handed to the engine (through the rotation stage) since the counter was last read.
    var nextIdentity = 0

    init(_ bytes: FuzzBytes) {
        var input = bytes
        // The state file's rotations (duplicates and all), as the daemon restores them.
        var remembered: [RememberedRotation] = []
        for _ in 0..<Int(input.u8() % 4) {
            let d = devices[Int(input.u8()) % devices.count]
            remembered.append(RememberedRotation(device: d.identity, rotation: input.pick(Rotation.allCases)))
        }
        self.input = input
        rotation = RotationControl(remembered: remembered)
    }

    /// What the input thread does with a source's step: through the rotation stage to the engine.
    func feed(_ step: InputStep) {
        rotation.feed(step, to: &engine, into: &events)
    }

    /// One pass of the input thread: the clock moves, due ticks run.
    func pass(to t: MonotonicInstant) {
        time = max(time, t)
        engine.tick(through: time, into: &events)
        engine.tick(at: time, into: &events)
    }

    func present(_ id: DeviceID) -> TouchDevice? { rotation.devices.first { $0.id == id } }

    func deliver(_ n: Int) {
        for _ in 0..<n {
            guard !pending.isEmpty else { return }
            let (frame, _) = pending.removeFirst()
            pass(to: frame.time)
            var f = frame
            f.time = time
            feed(InputStep(time: time, input: .frame(f)))
        }
    }

    func startScript() {
        let device = devices[Int(input.u8()) % devices.count]
        // The source normalizes with the configured rotation: script in the device's own orientation.
        guard present(device.id) != nil else { return }
        let lane = Int(input.u8() % 2)
        guard !pending.contains(where: { $0.frame.device == device.id && $0.lane == lane }) else { return }
        let start = Microseconds(Int64(time.microseconds) + Int64(input.u16()) * 10)
        let kind = input.u8()
        let script: FingerScript
        if kind % 3 == 0 {
            let swipe = MultiFingerSwipe(
                fingers: 2 + Int(input.u8() % 4), direction: input.pick(SwipeDirection.allCases),
                travelMM: Double(input.u8()) / 2, duration: .milliseconds(Int64(input.u8()) * 4 + 16),
                release: input.bool() ? .atRest : .whileMoving, center: (input.unit(), input.unit()),
                spacingMM: 4 + Double(input.u8() % 32), landingStagger: .milliseconds(Int64(input.u8() % 200)),
                settle: .milliseconds(Int64(input.u8() % 100)), liftStagger: .milliseconds(Int64(input.u8() % 100)))
            script = .multiFingerSwipe(swipe, on: device, firstFinger: Int32(lane * 5))
        } else {
            let swipe = EdgeSwipe(
                edge: input.pick(Edge.allCases), travel: input.unit(), duration: .milliseconds(Int64(input.u8()) * 4 + 8),
                release: input.bool() ? .atRest(hold: .milliseconds(Int64(input.u8()))) : .whileMoving,
                along: input.unit(), landing: .fraction(Double(input.u8()) / 2550))
            script = .edgeSwipe(swipe, on: device, finger: Int32(lane * 5))
        }
        // Cut short sometimes: the fingers stay down until the device goes or events are lost.
        let cut = input.u8()
        let played = cut < 32 ? script.cut(at: Microseconds(script.end.value * Int64(cut) / 32)) : script
        let new = played.frames(on: device, origin: MonotonicInstant(microseconds: UInt64(max(0, start.value))))
        pending.append(contentsOf: new.map { ($0, lane) })
        pending.sort { $0.frame.time < $1.frame.time }
    }

    /// A name: one of the configuration's, or from the input (empty, too long, with a control character).
    func name(_ known: [String]) -> String {
        let b = input.u8()
        switch b {
        case 0..<200: return known[Int(b) % known.count]
        case 200..<220: return String(repeating: "n", count: 250 + Int(input.u8() % 10))
        case 220..<230: return "tab\u{7}bell"
        case 230..<240: return ""
        default: return String(decoding: input.bytes(Int(input.u8() % 16)), as: UTF8.self)
        }
    }

    func buildRequest() -> Request {
        let container = name(containerNames)
        let animated = input.u8() % 4 != 0
        func control(_ action: ControlRequest.Action) -> Request { .control(ControlRequest(container: container, action: action, animated: animated)) }
        switch input.u8() % 13 {
        case 0: return control(.push(scene: name(sceneNames)))
        case 1: return control(.pop)
        case 2: return control(.popToRoot)
        case 3:
            let frame: NormalizedRect? = input.bool() ? input.pick(frames) : nil
            return control(.present(scene: name(sceneNames), style: input.pick(PresentationStyle.allCases), frame: frame))
        case 4: return control(.dismiss)
        case 5: return control(.selectTab(.index(Int(input.u8()) - 8)))
        case 6: return control(.selectTab(.scene(name(sceneNames))))
        case 7: return control(.show(child: name(sceneNames)))
        case 8: return .status
        case 9: return .devices
        default:
            let setting: RotationSetting = input.u8() % 5 == 0 ? .automatic : .fixed(input.pick(Rotation.allCases))
            let target: RotationTarget =
                switch input.u8() % 3 {
                case 0: .allTouchscreens
                case 1: .device(DeviceID(UInt32(input.u8() % 6)))
                default: .output(input.pick(outputs))
                }
            return .daemon(.setRotation(RotationRequest(setting: setting, target: target)))
        }
    }

    /// A request line as a client writes it, read as the daemon reads it, then carried out.
    func request(_ built: Request, id: RequestID) {
        let line = built.line(id: id)
        let body = Array(line.dropLast())
        do throws(RequestError) {
            let envelope = try RequestDecoder.decode(body, line: 1)
            precondition(envelope.request == built, "written \(built), read back \(envelope.request)")
            apply(envelope.request)
        } catch {
            // The client's writer does not judge names or frames; the daemon's reader refuses what the engine
            // would not take, and nothing happened.
            precondition(error.code == .invalidField, "a written request was refused with \(error.code): \(error)")
        }
    }

    func rawRequest() {
        guard let envelope = try? RequestDecoder.decode(input.bytes(Int(input.u8())), line: 1) else { return }
        apply(envelope.request)
    }

    /// The daemon's part: `RequestRouter.handle` and the input thread's `runCommands`.
    func apply(_ request: Request) {
        guard case .daemon(let daemonRequest) = request else { return }
        pass(to: time)
        let before = engine.snapshot
        let remembered = rotation.remembered
        let rotations = rotation.devices
        let mark = events.count
        switch daemonRequest {
        case .status, .devices:
            checkSnapshot(engine)
        case .control(let control):
            do throws(RequestError) {
                let operation = try control.operation(in: engine.containers)
                do throws(TransitionRefusal) {
                    let id = try engine.request(operation, in: control.container, animated: control.animated, at: time, into: &events)
                    let began = events[mark...].filter { if case .transition(let t) = $0, t.id == id, t.phase == .began, !t.isProgress { true } else { false } }
                    precondition(began.count == 1, "an accepted request began \(began.count) transitions")
                } catch {
                    unchanged(before, mark, remembered, rotations, "the engine's refusal \(error.code)")
                }
            } catch {
                unchanged(before, mark, remembered, rotations, "the lookup's refusal \(error.code)")
            }
        case .setRotation(let r):
            let outcome: RotationOutcome
            do throws(RotationRefusal) {
                outcome = try rotation.set(r.setting, on: r.target, at: time, to: &engine, into: &events)
            } catch {
                precondition(events.count == mark, "a refused set-rotation (\(error.code)) emitted \(events.count - mark) event(s)")
                unchanged(before, mark, remembered, rotations, "set-rotation's refusal \(error.code)")
                return
            }
            precondition(Set(outcome.applied).isDisjoint(with: outcome.pending), "a device both applied and pending")
            let named = Set(outcome.applied + outcome.pending)
            switch r.target {
            case .device(let id): precondition(named == [id], "set-rotation on device \(id.rawValue) answered for \(named)")
            case .allTouchscreens:
                precondition(named == Set(rotation.devices.filter { $0.kind == .touchscreen }.map(\.id)), "every touchscreen was not named")
            case .output(let o):
                precondition(named == Set(rotation.devices.filter { $0.output == o }.map(\.id)), "set-rotation on \(o) answered for \(named)")
            }
            if case .fixed(let turned) = r.setting {
                for id in outcome.applied {
                    precondition(rotation.devices.first { $0.id == id }?.rotation == turned, "device \(id.rawValue) not turned to \(turned)")
                }
            }
        }
    }

    func unchanged(_ before: StateSnapshot, _ mark: Int, _ remembered: [RememberedRotation], _ rotations: [TouchDevice], _ what: String) {
        precondition(events.count == mark, "\(what) emitted \(events.count - mark) event(s)")
        precondition(engine.snapshot == before, "\(what) changed the state")
        precondition(rotation.remembered == remembered && rotation.devices == rotations, "\(what) changed the rotations")
    }

    func step() {
        let op = input.u8()
        switch op % 16 {
        case 0, 1, 2, 3: deliver(1 + Int(op >> 4))
        case 4, 5: startScript()
        case 6, 7, 8: request(buildRequest(), id: .int(Int64(input.u8())))
        case 9: rawRequest()
        case 10:
            // The same request again and again: a stack 256 deep, 64 presented, 64 remembered rotations.
            let n = 1 + Int(input.u8()) * 2
            let built = buildRequest()
            for i in 0..<n { request(built, id: .int(Int64(i))) }
        case 11:
            let t = input.u16()
            pass(to: time.advanced(by: Microseconds(Int64(t) * Int64(op >> 4 + 1) * 10)))
        case 12:
            let device = devices[Int(input.u8()) % devices.count]
            let change = input.u8() % 4
            pass(to: time)
            switch change {
            case 0:
                feed(InputStep(time: time, input: .deviceRemoved(device.id)))
                pending.removeAll { $0.frame.device == device.id }
            case 1: feed(InputStep(time: time, input: .eventsLost(device.id)))
            default:
                // Plugged (again): a source reports a device that comes back as removed first, and its touches in
                // flight end with it.
                pending.removeAll { $0.frame.device == device.id }
                if present(device.id) != nil { feed(InputStep(time: time, input: .deviceRemoved(device.id))) }
                feed(InputStep(time: time, input: .deviceAdded(device)))
            }
        case 13:
            pass(to: time)
            rotation.accelerometerChanged(input.pick(Rotation.allCases), at: time, to: &engine, into: &events)
        case 14:
            // Replugs under new identities, each rotated: more devices than the state remembers.
            let n = Int(input.u8() % 80)
            let r = input.pick(Rotation.allCases)
            pass(to: time)
            pending.removeAll { $0.frame.device == DeviceID(9) }
            for _ in 0..<n {
                nextIdentity += 1
                let d = TouchDevice(
                    id: DeviceID(9), name: "Replugged \(nextIdentity)", kind: .touchscreen,
                    x: AxisRange(minimum: 0, maximum: 1000), y: AxisRange(minimum: 0, maximum: 1000), path: "fuzz-9")
                if present(d.id) != nil { feed(InputStep(time: time, input: .deviceRemoved(d.id))) }
                feed(InputStep(time: time, input: .deviceAdded(d)))
                apply(.daemon(.setRotation(RotationRequest(setting: .fixed(r), target: .device(DeviceID(9))))))
            }
            if present(DeviceID(9)) != nil { feed(InputStep(time: time, input: .deviceRemoved(DeviceID(9)))) }
        default:
            // SIGHUP: the same configuration again, or the default (without the custom container).
            pass(to: time)
            engine.reconfigure(input.bool() ? configuration : .default)
        }
    }

    /// After each step: the stream so far, the state, the devices.
    func checkStep() {
        for e in events { check.check(e) }
        events.removeAll(keepingCapacity: true)
        checkSnapshot(engine)
        precondition(rotation.remembered.count <= StateLimits.maxRememberedRotations, "\(rotation.remembered.count) rotations remembered")
        let seen = engine.knownDevices.map { "\($0.id.rawValue):\($0.rotation.rawValue)" }
        let staged = rotation.devices.map { "\($0.id.rawValue):\($0.rotation.rawValue)" }
        precondition(seen == staged, "the engine's devices \(seen) are not the rotation stage's \(staged)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestsPlay(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let world = World(FuzzBytes(data, count: count))
    for d in devices where world.input.u8() & 1 == 0 {
        world.feed(InputStep(time: world.time, input: .deviceAdded(d)))
    }
    world.checkStep()
    var steps = 0
    while !world.input.isEmpty && steps < 2_000 {
        world.step()
        world.checkStep()
        steps += 1
    }
    // The end: the daemon shutting down (every transition cancelled at once), or its devices going away.
    if world.input.u8() & 1 == 0 {
        world.engine.cancelAll(at: world.time, into: &world.events)
    }
    world.deliver(world.pending.count)
    for d in world.rotation.devices { world.feed(InputStep(time: world.time, input: .deviceRemoved(d.id))) }
    RecordingPlayer.runDeadlines(of: &world.engine, before: nil, into: &world.events)
    world.checkStep()
    world.check.checkQuiet(world.engine)
    return 0
}
