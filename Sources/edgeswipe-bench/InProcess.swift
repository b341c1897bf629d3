import EdgeSwipeBenchSupport
import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import EdgeSwipeInput
import EdgeSwipeSystem
import Glibc
import MallocInterposerSwift

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    guard !s.isEmpty else { return .nan }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// `pipeline_events_per_s`: evdev events per second through decode -> recognize -> engine -> encode, on one
/// thread (so at most one core), as the median of several passes. Each pass plays every real recording and the
/// synthetic stream, each device on a fresh pipeline. The thread's CPU time is measured too: on a loaded machine
/// wall time includes time the thread waited for a CPU, and events per CPU second does not.
func measurePipeline(real: [DeviceStream], synthetic: DeviceStream, passes: Int, log: (String) -> Void) -> JSONValue {
    let realEvents = real.reduce(0) { $0 + $1.events.count }
    let synthEvents = synthetic.events.count
    var rates: [Double] = []
    var realRates: [Double] = []
    var synthRates: [Double] = []
    var lines: UInt64 = 0
    var bytes = 0
    var frames = 0
    var cpuShare: [Double] = []
    var cpuRates: [Double] = []
    // One pass to warm caches and page in the code, not counted.
    for s in real { _ = Pipeline.run(s) }
    _ = Pipeline.run(synthetic)
    for pass in 0..<passes {
        let c0 = ThreadCPUClock.seconds()
        let t0 = monotonicSeconds()
        var passLines: UInt64 = 0
        var passBytes = 0
        var passFrames = 0
        for s in real {
            let p = Pipeline.run(s)
            passLines += p.lines
            passBytes += p.bytes
            passFrames += p.frames
        }
        let t1 = monotonicSeconds()
        let p = Pipeline.run(synthetic)
        passLines += p.lines
        passBytes += p.bytes
        passFrames += p.frames
        let t2 = monotonicSeconds()
        let c1 = ThreadCPUClock.seconds()
        let rate = Double(realEvents + synthEvents) / (t2 - t0)
        rates.append(rate)
        if realEvents > 0 { realRates.append(Double(realEvents) / (t1 - t0)) }
        synthRates.append(Double(synthEvents) / (t2 - t1))
        cpuShare.append((c1 - c0) / (t2 - t0))
        cpuRates.append(Double(realEvents + synthEvents) / (c1 - c0))
        lines = passLines
        bytes = passBytes
        frames = passFrames
        log("  pass \(pass + 1): \(Int(rate)) events/s")
    }
    let m = median(rates)
    return .fields([
        ("events_per_s", .num(m, digits: 0)),
        ("ns_per_event", .num(1e9 / m, digits: 1)),
        ("passes", .integer(passes)),
        ("pass_events_per_s", .array(rates.map { .num($0, digits: 0) })),
        ("real_recordings_events_per_s", realRates.isEmpty ? .null : .num(median(realRates), digits: 0)),
        ("synthetic_events_per_s", .num(median(synthRates), digits: 0)),
        ("events_per_pass", .integer(realEvents + synthEvents)),
        ("real_events_per_pass", .integer(realEvents)),
        ("real_devices", .integer(real.count)),
        ("synthetic_events_per_pass", .integer(synthEvents)),
        ("frames_per_pass", .integer(frames)),
        ("protocol_lines_per_pass", .integer(Int(lines))),
        ("protocol_bytes_per_pass", .integer(bytes)),
        ("events_per_cpu_s", .num(median(cpuRates), digits: 0)),
        ("cpu_time_per_wall_time", .num(median(cpuShare), digits: 3)),
    ])
}

/// Counts the allocations `body` makes, with the malloc interposer; nil when it is not active.
func countAllocations(_ body: () -> Void) -> (mallocs: Int, bytes: Int) {
    MallocInterposerSwift.initialize()
    MallocInterposerSwift.hook()
    body()
    MallocInterposerSwift.unhook()
    let s = MallocInterposerSwift.getStatistics()
    return (s.mallocCount, s.mallocBytesCount)
}

@inline(never)
func opaque<T>(_ value: T) -> T { value }

/// `allocs_per_event`: allocations per engine input in the recognizer and engine's steady state, and, for
/// context, per frame of whole swipes, per evdev event of the whole pipeline and per message of the encoder.
func measureAllocations(synthetic: DeviceStream) -> JSONValue {
    // The interposer must be in the process (it is linked in); check that it counts at all.
    let probe = countAllocations {
        let a = opaque([Int](repeating: 7, count: opaque(1000)))
        _ = opaque(a.count)
    }
    let active = probe.mallocs > 0

    let steady = EngineSteadyState()
    let steadyFrames = 100_000
    let s = countAllocations { for _ in 0..<steadyFrames { steady.step() } }

    let full = EngineFullSwipes(seconds: 20)
    for _ in 0..<full.frameCount { full.step() }  // warm-up: buffers reach their steady size
    let fullFrames = full.frameCount * 2
    let f = countAllocations { for _ in 0..<fullFrames { full.step() } }

    // A fresh pipeline per measurement, built outside it: its construction (device classification, buffers)
    // is counted apart, as setup.
    var setupAllocs = 0
    var pipeline: Pipeline? = nil
    setupAllocs = countAllocations { pipeline = Pipeline(stream: synthetic) }.mallocs
    var fed = pipeline!
    pipeline = nil
    let pipelineEvents = synthetic.events.count
    let p = countAllocations { for e in synthetic.events { fed.feed(e) } }
    _ = opaque(fed.bytes)

    let decoder = CyclicDecoder(stream: synthetic)
    for _ in 0..<synthetic.events.count { decoder.step() }
    let decodeEvents = synthetic.events.count - 1
    let d = countAllocations { for _ in 0..<decodeEvents { decoder.step() } }

    let encoder = EncoderWorkload(seconds: 20)
    for _ in 0..<encoder.count { encoder.step() }
    let messages = encoder.count
    let e = countAllocations { for _ in 0..<messages { encoder.step() } }

    return .fields([
        ("interposer_active", .bool(active)),
        ("allocs_per_event", active ? .num(Double(s.mallocs) / Double(steadyFrames), digits: 4) : .null),
        ("steady_state", .fields([
            ("what", .string("recognizer + engine: 10 fingers down, the first driving an interactive transition back and forth; one engine input (a frame of 10 motions) per event")),
            ("frames", .integer(steadyFrames)),
            ("engine_events", .integer(steady.produced)),
            ("mallocs", .integer(s.mallocs)),
            ("bytes", .integer(s.bytes)),
        ])),
        ("whole_swipes", .fields([
            ("what", .string("recognizer + engine over the synthetic stream's frames, run-out ticks included: begin, release, run-out, completion, lifecycle and state events")),
            ("frames", .integer(fullFrames)),
            ("mallocs", .integer(f.mallocs)),
            ("allocs_per_frame", .num(Double(f.mallocs) / Double(fullFrames), digits: 4)),
        ])),
        ("pipeline", .fields([
            ("what", .string("decode + recognize + engine + encode, per evdev event of one pass of the synthetic stream (the pipeline built beforehand)")),
            ("evdev_events", .integer(pipelineEvents)),
            ("setup_mallocs", .integer(setupAllocs)),
            ("mallocs", .integer(p.mallocs)),
            ("allocs_per_evdev_event", .num(Double(p.mallocs) / Double(pipelineEvents), digits: 4)),
        ])),
        ("decoder", .fields([
            ("what", .string("EvdevFrameDecoder alone, per evdev event of the synthetic stream")),
            ("evdev_events", .integer(decodeEvents)),
            ("mallocs", .integer(d.mallocs)),
            ("allocs_per_evdev_event", .num(Double(d.mallocs) / Double(decodeEvents), digits: 4)),
        ])),
        ("encoder", .fields([
            ("what", .string("ProtocolLineEncoder, one engine event at a time")),
            ("messages", .integer(messages)),
            ("mallocs", .integer(e.mallocs)),
            ("allocs_per_message", .num(Double(e.mallocs) / Double(messages), digits: 4)),
        ])),
    ])
}

/// For `valgrind --tool=callgrind`: runs one stage over `events` evdev events' worth of the synthetic stream.
/// Setup does not depend on `events`, so the difference between two runs (N and 2N) is the stage's cost for N.
func runProfile(stage: String, events n: Int) throws -> JSONValue {
    let stream = BenchCorpus.synthetic(seconds: 20)
    let whole = Pipeline.run(stream)
    let framesPerEvent = Double(whole.frames) / Double(stream.events.count)
    var units = n
    switch stage {
    case "decode":
        let d = CyclicDecoder(stream: stream)
        for _ in 0..<n { d.step() }
    case "engine":
        let e = EngineFullSwipes(seconds: 20)
        units = Int((Double(n) * framesPerEvent).rounded())
        for _ in 0..<units { e.step() }
    case "encode":
        let w = EncoderWorkload(seconds: 20)
        units = Int((Double(n) * Double(w.count) / Double(stream.events.count)).rounded())
        for _ in 0..<units { w.step() }
    case "pipeline":
        let p = CyclicPipeline(streams: [stream])
        for _ in 0..<n { p.step() }
    case "steady":
        let s = EngineSteadyState()
        for _ in 0..<n { s.step() }
    case "setup":
        break
    default:
        throw BenchError("--profile takes decode, engine, encode, pipeline, steady or setup (got \(stage))")
    }
    return .fields([
        ("stage", .string(stage)), ("evdev_events", .integer(n)), ("units", .integer(units)),
        ("stream_events", .integer(stream.events.count)), ("stream_frames", .integer(whole.frames)),
        ("stream_engine_events", .integer(whole.engineEvents)), ("stream_lines", .integer(Int(whole.lines))),
    ])
}
