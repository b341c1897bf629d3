import EdgeSwipeBenchSupport
import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeFingerScript
import EdgeSwipeSystem

/// The multi-finger swipe path: the synthetic 3-finger stream through the whole pipeline (decoder, the
/// detector, the swipe recognizer, the transition, the encoder), its allocations per evdev event once warm, and
/// libinput's path (``Engine/handleSwipe(_:on:at:into:)``) per swipe event.
func measureSwipes(seconds: Double, passes: Int, log: (String) -> Void) -> JSONValue {
    let stream = BenchCorpus.swipes(seconds: seconds)
    _ = Pipeline.run(stream)  // warm-up
    var rates: [Double] = []
    var cpuRates: [Double] = []
    var lines: UInt64 = 0
    // Several runs of the stream per pass: one is 8,000 events, a few milliseconds, too short to time alone.
    let runs = 20
    for pass in 0..<passes {
        let c0 = ThreadCPUClock.seconds()
        let t0 = monotonicSeconds()
        var p = Pipeline.run(stream)
        for _ in 1..<runs { p = Pipeline.run(stream) }
        let t1 = monotonicSeconds()
        let c1 = ThreadCPUClock.seconds()
        rates.append(Double(stream.events.count * runs) / (t1 - t0))
        cpuRates.append(Double(stream.events.count * runs) / (c1 - c0))
        lines = p.lines
        log("  swipes pass \(pass + 1): \(Int(rates.last ?? 0)) events/s")
    }

    // Whole swipes, once warm: the first half warms the buffers (the engine's, the encoder's, the detector's), the
    // second half is counted; each swipe's start and end allocate a little (the state snapshot), as edge swipes'.
    var fed = Pipeline(stream: stream)
    let half = stream.events.count / 2
    for e in stream.events[..<half] { fed.feed(e) }
    let steady = countAllocations { for e in stream.events[half...] { fed.feed(e) } }
    _ = opaque(fed.bytes)
    let steadyEvents = stream.events.count - half

    // The steady state proper: a swipe driving a transition, three fingers moving every frame.
    let moving = SwipeSteadyState()
    let movingFrames = 100_000
    let m = countAllocations { for _ in 0..<movingFrames { moving.step() } }
    let c2 = ThreadCPUClock.seconds()
    for _ in 0..<movingFrames { moving.step() }
    let c3 = ThreadCPUClock.seconds()
    let driving = moving.isDriving

    // libinput's path: a touchpad's swipes handed in as libinput reports them, 3 fingers, 2 mm per update at
    // 250 Hz, alternately left and right, each released at rest and run out before the next.
    let libinput = LibinputSwipes()
    for _ in 0..<libinput.cycle { libinput.step() }
    let libinputSteps = libinput.cycle * 4
    let l = countAllocations { for _ in 0..<libinputSteps { libinput.step() } }
    let l0 = ThreadCPUClock.seconds()
    let timed = libinput.cycle * 200
    for _ in 0..<timed { libinput.step() }
    let l1 = ThreadCPUClock.seconds()

    let rate = median(rates)
    let libinputRate: Double = Double(timed) / (l1 - l0)
    let movingRate: Double = Double(movingFrames) / (c3 - c2)
    var fields: [(String, JSONValue)] = []
    fields.append(("stream", .string(stream.name)))
    fields.append(("events_per_s", .num(rate, digits: 0)))
    fields.append(("ns_per_event", .num(1e9 / rate, digits: 1)))
    fields.append(("pass_events_per_s", .array(rates.map { .num($0, digits: 0) })))
    fields.append(("events_per_cpu_s", .num(median(cpuRates), digits: 0)))
    fields.append(("events_per_pass", .integer(stream.events.count)))
    fields.append(("protocol_lines_per_pass", .integer(Int(lines))))
    fields.append(("whole_swipes_allocs_per_event", .num(Double(steady.mallocs) / Double(steadyEvents), digits: 4)))
    fields.append(("whole_swipes_events_counted", .integer(steadyEvents)))
    fields.append(("steady_allocs_per_frame", .num(Double(m.mallocs) / Double(movingFrames), digits: 4)))
    fields.append(("steady_frames_counted", .integer(movingFrames)))
    fields.append(("steady_frames_per_cpu_s", .num(movingRate, digits: 0)))
    fields.append(("steady_state_drives_a_transition", .bool(driving)))
    fields.append(("libinput_swipe_events_per_cpu_s", .num(libinputRate, digits: 0)))
    fields.append(("libinput_steady_allocs_per_swipe_event", .num(Double(l.mallocs) / Double(libinputSteps), digits: 4)))
    fields.append(("libinput_swipe_events_counted", .integer(libinputSteps)))
    fields.append(("libinput_swipe_transitions_completed", .integer(libinput.completed)))
    return .fields(fields)
}

/// libinput's swipe events for one touchpad, step by step: begin, 30 updates of 2 mm, end, then 40 ms of ticks
/// (the run-out), alternately left and right. A class, so that the loop's body is one call.
final class LibinputSwipes {
    var engine = Engine(configuration: .default, touchpadSwipes: .libinputGestures)
    var events: [EngineEvent] = []
    var time = MonotonicInstant(microseconds: 1_000_000)
    var index = 0
    var swipes = 0
    private(set) var completed = 0
    let device = ModelledDevices.synapticsI2C
    /// Steps per swipe: begin, 30 updates, end, 50 ticks of 4 ms.
    let cycle = 82

    init() {
        events.reserveCapacity(256)
        engine.addDevice(device, at: time, into: &events)
        events.removeAll(keepingCapacity: true)
    }

    @inline(never)
    func step() {
        let i = index % cycle
        let sign: Double = swipes % 2 == 0 ? -1 : 1
        switch i {
        case 0: engine.handleSwipe(.begin(fingers: 3), on: device.id, at: time, into: &events)
        case 1...30: engine.handleSwipe(.update(delta: MillimeterVector(x: 2 * sign, y: 0)), on: device.id, at: time, into: &events)
        case 31:
            engine.handleSwipe(.end(cancelled: false), on: device.id, at: time.advanced(by: .milliseconds(200)), into: &events)
            swipes += 1
        default: engine.tick(through: time, into: &events)
        }
        for e in events {
            if case .transition(let t) = e, t.phase == .completed { completed += 1 }
        }
        events.removeAll(keepingCapacity: true)
        time = time.advanced(by: i == 31 ? .milliseconds(200) : .milliseconds(4))
        index += 1
    }
}
