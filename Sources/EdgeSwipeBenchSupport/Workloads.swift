public import EdgeSwipeCore
public import EdgeSwipeEngineWire
import EdgeSwipeFingerScript
public import EdgeSwipeInput
import EdgeSwipeProtocol
import Glibc

/// The daemon's per-event work for one device, without I/O: evdev events are decoded into touch frames, the
/// engine recognizes and drives transitions (with its run-out ticks on the stream's own clock, as
/// `edgeswipectl replay` does), and every engine event is encoded into the protocol line one subscribed client
/// would receive. The buffers are reused, as the daemon's are.
public struct Pipeline {
    public private(set) var decoder: EvdevFrameDecoder
    public private(set) var engine: Engine
    public private(set) var encoder: ProtocolLineEncoder
    var events: [EngineEvent] = []
    var out: [UInt8] = []
    /// Evdev events fed.
    public private(set) var fed = 0
    /// Engine inputs (frames and lost-event notices).
    public private(set) var frames = 0
    /// Engine events produced (trace events included).
    public private(set) var engineEvents = 0
    /// Protocol bytes produced.
    public private(set) var bytes = 0
    /// Protocol lines produced.
    public var lines: UInt64 { encoder.nextSeq - 1 }

    public init(stream: DeviceStream, configuration: EngineConfiguration = .default) {
        decoder = try! EvdevFrameDecoder(description: stream.description, device: stream.device)
        engine = Engine(configuration: configuration)
        encoder = ProtocolLineEncoder()
        events.reserveCapacity(256)
        out.reserveCapacity(16 * 1024)
        engine.addDevice(stream.device, at: stream.events.first?.time ?? .zero, into: &events)
        flush()
    }

    /// Feeds one evdev event through every stage.
    @inline(__always)
    public mutating func feed(_ e: EvdevEvent) {
        if decodeAndRecognize(e) { flush() }
    }

    /// Feeds one evdev event through decoding and the engine, and hands the engine's events to `sink` instead of
    /// the encoder: for comparing other encoders on the same work.
    @inline(__always)
    public mutating func feed(_ e: EvdevEvent, handing sink: (EngineEvent) -> Void) {
        if decodeAndRecognize(e) { hand(to: sink) }
    }

    /// Whether the event completed an engine input (and so may have produced engine events).
    @inline(__always)
    mutating func decodeAndRecognize(_ e: EvdevEvent) -> Bool {
        fed += 1
        guard let output = decoder.feed(time: e.time, type: e.type, code: e.code, value: e.value) else { return false }
        frames += 1
        switch output {
        case .frame(let frame):
            engine.tick(through: frame.time, into: &events)
            engine.handle(frame, into: &events)
        case .eventsLost(let id, let time):
            engine.tick(through: time, into: &events)
            engine.eventsLost(on: id, at: time, into: &events)
        }
        return true
    }

    /// Lets the last run-out end and removes the device, as a replay's end does.
    public mutating func finish() {
        settle()
        flush()
    }

    /// ``finish()``, handing the last engine events to `sink`.
    public mutating func finish(handing sink: (EngineEvent) -> Void) {
        settle()
        hand(to: sink)
    }

    mutating func settle() {
        engine.tickUntilSettled(into: &events)
        engine.removeDevice(decoder.device.id, at: engine.now, into: &events)
    }

    @inline(__always)
    mutating func hand(to sink: (EngineEvent) -> Void) {
        engineEvents += events.count
        for e in events { sink(e) }
        events.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    mutating func flush() {
        guard !events.isEmpty else { return }
        engineEvents += events.count
        // One event at a time: `encode(_:into:)` over a sequence is generic, and called from another module it
        // runs unspecialized, which allocates for every element it iterates (docs/journal/2026-performance-and-testing.md, findings).
        for e in events { encoder.encode(e, into: &out) }
        bytes += out.count
        out.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
    }

    /// Runs a whole stream through a fresh pipeline; returns it for its counters.
    public static func run(_ stream: DeviceStream, configuration: EngineConfiguration = .default) -> Pipeline {
        var p = Pipeline(stream: stream, configuration: configuration)
        for e in stream.events { p.feed(e) }
        p.finish()
        return p
    }
}

/// An endless pipeline over several streams, one evdev event per ``step()``: at the end of a stream its pipeline
/// is finished and the next stream starts on a fresh one (so every stream plays from a clean state, as each
/// recording would on its own). For benchmarks that measure one event at a time.
public final class CyclicPipeline {
    public let streams: [DeviceStream]
    public let totalEvents: Int
    var current: Pipeline
    var stream = 0
    var index = 0

    public init(streams: [DeviceStream]) {
        precondition(!streams.isEmpty && streams.contains { !$0.events.isEmpty })
        self.streams = streams.filter { !$0.events.isEmpty }
        totalEvents = self.streams.reduce(0) { $0 + $1.events.count }
        current = Pipeline(stream: self.streams[0])
    }

    @inline(__always)
    public func step() {
        let events = streams[stream].events
        current.feed(events[index])
        index += 1
        if index == events.count {
            current.finish()
            index = 0
            stream = (stream + 1) % streams.count
            current = Pipeline(stream: streams[stream])
        }
    }
}

/// The decoder alone, one evdev event per ``step()``, over one stream in a loop.
public final class CyclicDecoder {
    let stream: DeviceStream
    var decoder: EvdevFrameDecoder
    var index = 0
    public private(set) var frames = 0

    public init(stream: DeviceStream) {
        self.stream = stream
        decoder = try! EvdevFrameDecoder(description: stream.description, device: stream.device)
    }

    @inline(__always)
    public func step() {
        let e = stream.events[index]
        if let output = decoder.feed(time: e.time, type: e.type, code: e.code, value: e.value), case .frame = output { frames += 1 }
        index += 1
        if index == stream.events.count {
            index = 0
            decoder = try! EvdevFrameDecoder(description: stream.description, device: stream.device)
        }
    }
}

/// The recognizer and the engine in steady state: ten fingers down, the first one driving an interactive
/// transition from the left edge and moving back and forth between 25 % and 45 % of the width, the other nine
/// circling in the middle; one frame of ten touch motions per ``step()``, 240 frames per second of virtual time.
/// Each step produces a `gesture changed` and a `transition changed` event. Nothing here should allocate.
public final class EngineSteadyState {
    public private(set) var engine: Engine
    public let device: TouchDevice
    var frames: [TouchFrame] = []
    var index = 0
    var time: MonotonicInstant
    var events: [EngineEvent] = []
    public private(set) var produced = 0
    static let intervalUS: UInt64 = 4167

    public init(configuration: EngineConfiguration = .default) {
        let stream = BenchCorpus.synthetic(seconds: 0)
        device = stream.device
        engine = Engine(configuration: configuration)
        time = MonotonicInstant(microseconds: 1_000_000)
        events.reserveCapacity(256)
        engine.addDevice(device, at: time, into: &events)

        // The fingers, scripted (`EdgeSwipeFingerScript`) in the device's units. Landing at the edge, then inward
        // past the hysteresis: the gesture begins and the transition starts; then the nine others land.
        let interval = Microseconds(Int64(Self.intervalUS))
        let y = 0.5
        func at(_ nx: Double, _ ny: Double) -> (x: Double, y: Double) { device.units(x: nx, y: ny) }
        func centre(_ finger: Int) -> (x: Double, y: Double) {
            (0.35 + 0.15 * Double((finger - 1) % 3), 0.3 + 0.2 * Double((finger - 1) / 3))
        }
        var setup: [FingerScript.Sample] = []
        var t = interval
        var x = 0.01
        setup.append(FingerScript.Sample(time: t, finger: 0, phase: .down, x: at(x, y).x, y: at(x, y).y))
        for _ in 0..<20 {
            t = t + interval
            x += 0.012
            setup.append(FingerScript.Sample(time: t, finger: 0, phase: .motion, x: at(x, y).x, y: at(x, y).y))
        }
        t = t + interval
        for finger in 1..<10 {
            let c = centre(finger)
            setup.append(FingerScript.Sample(time: t, finger: Int32(finger), phase: .down, x: at(c.0, c.1).x, y: at(c.0, c.1).y))
        }
        for frame in FingerScript(samples: setup).frames(on: device, origin: time) {
            engine.handle(frame, into: &events)
        }
        time = time.advanced(by: t)
        // One period of the back-and-forth: 0.25 -> 0.45 -> 0.25 in 96 frames, the nine others circling. Scripted
        // twice, after landings where the period ends, and the second period kept: every frame of it moves every
        // finger, the first one too (from where the period left them, as it will when it comes round).
        var cycle: [FingerScript.Sample] = []
        for finger in 0..<10 { cycle.append(FingerScript.Sample(time: .zero, finger: Int32(finger), phase: .down, x: 0, y: 0)) }
        for f in 0..<192 {
            let p = Double(f % 96) / 96
            let tri = p < 0.5 ? p * 2 : 2 - p * 2
            let ft = interval + Microseconds(Int64(f) * interval.value)
            let edge = at(0.25 + 0.2 * tri, y)
            cycle.append(FingerScript.Sample(time: ft, finger: 0, phase: .motion, x: edge.x, y: edge.y))
            for finger in 1..<10 {
                let c = centre(finger)
                let a = Double(f % 96) * 0.25 + Double(finger)
                let pos = at(c.0 + 0.02 * cos(a), c.1 + 0.03 * sin(a))
                cycle.append(FingerScript.Sample(time: ft, finger: Int32(finger), phase: .motion, x: pos.x, y: pos.y))
            }
        }
        frames = Array(FingerScript(samples: cycle).frames(on: device, origin: time).suffix(96))
        events.removeAll(keepingCapacity: true)
        // Warm up: the first pass may grow buffers to their steady size.
        for _ in 0..<(frames.count * 2) { step() }
    }

    /// Whether the synthetic gesture is driving a transition (a sanity check for the benchmark's setup): one runs, a
    /// finger holds it (no run-out), and the only deadline is that finger's rest.
    public var isDriving: Bool {
        let running = engine.snapshot.running
        return !engine.isIdle && !running.isEmpty && running.allSatisfy { $0.phase == .changed }
    }

    /// One frame of ten motions; returns the number of engine events it produced.
    @inline(__always)
    @discardableResult
    public func step() -> Int {
        time = time.advanced(by: Microseconds(Int64(Self.intervalUS)))
        var frame = frames[index]
        frame.time = time
        index = index + 1 == frames.count ? 0 : index + 1
        engine.handle(frame, into: &events)
        let n = events.count
        produced += n
        events.removeAll(keepingCapacity: true)
        return n
    }
}

/// Whole swipes through the recognizer and the engine: the synthetic stream, decoded once up front into frames,
/// replayed frame by frame (with run-out ticks) one frame per ``step()``. It includes what steady state does not:
/// began, release, run-out, completion, lifecycle and state events.
public final class EngineFullSwipes {
    var engine: Engine
    let device: TouchDevice
    let frames: [TouchFrame]
    var index = 0
    var offset: UInt64 = 0
    let span: UInt64
    var events: [EngineEvent] = []
    public private(set) var produced = 0

    public init(seconds: Double = 20, configuration: EngineConfiguration = .default) {
        let stream = BenchCorpus.synthetic(seconds: seconds)
        device = stream.device
        var decoder = try! EvdevFrameDecoder(description: stream.description, device: stream.device)
        var frames: [TouchFrame] = []
        for e in stream.events {
            if case .frame(let f)? = decoder.feed(e) { frames.append(f) }
        }
        self.frames = frames
        span = (frames.last!.time - frames.first!.time).value > 0 ? UInt64((frames.last!.time - frames.first!.time).value) + 500_000 : 1
        engine = Engine(configuration: configuration)
        events.reserveCapacity(256)
        engine.addDevice(device, at: frames[0].time, into: &events)
        events.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    @discardableResult
    public func step() -> Int {
        var frame = frames[index]
        frame.time = frame.time.advanced(by: Microseconds(Int64(offset)))
        engine.tick(through: frame.time, into: &events)
        engine.handle(frame, into: &events)
        index += 1
        if index == frames.count {
            // Go round again later on the same clock, so the engine and its state carry on.
            index = 0
            offset += span
        }
        let n = events.count
        produced += n
        events.removeAll(keepingCapacity: true)
        return n
    }

    public var frameCount: Int { frames.count }
}

/// The protocol encoder alone: the engine events of the synthetic stream, produced once up front, encoded one
/// event at a time (the server's per-event work before fan-out).
public final class EncoderWorkload {
    /// The engine events of the stream that reach the wire (trace events removed), in order.
    public let events: [EngineEvent]
    var index = 0
    var encoder = ProtocolLineEncoder()
    var out: [UInt8] = []
    public private(set) var bytes = 0
    public var count: Int { events.count }

    public init(seconds: Double = 10) {
        let stream = BenchCorpus.synthetic(seconds: seconds)
        var decoder = try! EvdevFrameDecoder(description: stream.description, device: stream.device)
        var engine = Engine(configuration: .default)
        var all: [EngineEvent] = []
        engine.addDevice(stream.device, at: stream.events[0].time, into: &all)
        for e in stream.events {
            if case .frame(let f)? = decoder.feed(e) {
                engine.tick(through: f.time, into: &all)
                engine.handle(f, into: &all)
            }
        }
        engine.tickUntilSettled(into: &all)
        // Trace events encode to nothing; the server never sees them on the wire.
        events = all.filter { if case .trace = $0 { return false } else { return true } }
        out.reserveCapacity(64 * 1024)
    }

    @inline(__always)
    public func step() {
        encoder.encode(events[index], into: &out)
        index += 1
        if index == events.count { index = 0 }
        if out.count > 32 * 1024 {
            bytes += out.count
            out.removeAll(keepingCapacity: true)
        }
    }
}

/// The multi-finger swipe path's steady state: three fingers on the demo touchscreen have begun a swipe (the
/// detector, the swipe recognizer) that drives a tab transition, and move together back and forth between 30
/// and 50 % of it; one engine input (a frame of three motions) per step, replayed from a precomputed cycle.
public final class SwipeSteadyState {
    public private(set) var engine: Engine
    public let device: TouchDevice
    var frames: [TouchFrame] = []
    var index = 0
    var time: MonotonicInstant
    var events: [EngineEvent] = []
    static let intervalUS: UInt64 = 4167

    public init(configuration: EngineConfiguration = .default) {
        device = BenchCorpus.synthetic(seconds: 0).device
        engine = Engine(configuration: configuration)
        time = MonotonicInstant(microseconds: 1_000_000)
        events.reserveCapacity(256)
        engine.addDevice(device, at: time, into: &events)
        let interval = Microseconds(Int64(Self.intervalUS))
        let size = device.size
        // Fingers side by side vertically, 15 mm apart, from 70 % of the width; 100 % of the transition is the
        // screen's width (155 mm).
        func at(_ finger: Int, _ mmLeft: Double) -> (x: Double, y: Double) {
            device.units(x: 0.7 - mmLeft / size.width.value, y: 0.5 + Double(finger - 1) * 15 / size.height.value)
        }
        var setup: [FingerScript.Sample] = []
        for finger in 0..<3 { setup.append(FingerScript.Sample(time: .zero, finger: Int32(finger), phase: .down, x: at(finger, 0).x, y: at(finger, 0).y)) }
        // 62 mm left over 96 frames (400 ms): past the 150 ms window and the lock, to 40 %.
        for f in 1...96 {
            for finger in 0..<3 {
                let p = at(finger, 62 * Double(f) / 96)
                setup.append(FingerScript.Sample(time: Microseconds(Int64(f) * interval.value), finger: Int32(finger), phase: .motion, x: p.x, y: p.y))
            }
        }
        let setupFrames = FingerScript(samples: setup).frames(on: device, origin: time)
        for frame in setupFrames { engine.handle(frame, into: &events) }
        time = setupFrames.last?.time ?? time
        // One period: 62 -> 78 -> 62 mm in 96 frames, after a first period that brings every finger's reported
        // position round (so that every frame of the kept one moves all three).
        var cycle: [FingerScript.Sample] = []
        for finger in 0..<3 { cycle.append(FingerScript.Sample(time: .zero, finger: Int32(finger), phase: .down, x: at(finger, 62).x, y: at(finger, 62).y)) }
        for f in 0..<192 {
            let p = Double(f % 96) / 96
            let tri = p < 0.5 ? p * 2 : 2 - p * 2
            for finger in 0..<3 {
                let q = at(finger, 62 + 16 * tri + 0.01 * Double(f % 2))
                cycle.append(FingerScript.Sample(
                    time: interval + Microseconds(Int64(f) * interval.value), finger: Int32(finger), phase: .motion, x: q.x, y: q.y))
            }
        }
        frames = Array(FingerScript(samples: cycle).frames(on: device, origin: time).suffix(96))
        events.removeAll(keepingCapacity: true)
        for _ in 0..<(frames.count * 2) { step() }
    }

    /// Whether the swipe is driving a transition (a sanity check for the benchmark's setup).
    public var isDriving: Bool { !engine.snapshot.running.isEmpty && engine.nextDeadline == nil }

    /// One frame of three motions.
    @inline(__always)
    public func step() {
        time = time.advanced(by: Microseconds(Int64(Self.intervalUS)))
        var frame = frames[index]
        frame.time = time
        index = index + 1 == frames.count ? 0 : index + 1
        engine.handle(frame, into: &events)
        events.removeAll(keepingCapacity: true)
    }
}
