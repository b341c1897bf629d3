import EdgeSwipeBenchSupport
import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeInput
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Foundation
import FoundationEssentials

// `encoders`: the protocol's own writer against Foundation's `JSONEncoder`, per message kind and for the whole
// pipeline, in the same run (docs/PERFORMANCE.md, "The wire format: which encoder"). The `JSONEncoder` side
// encodes the very messages the writer wrote (decoded from its lines up front), so it is spared building them
// from engine events; it writes numbers in their shortest round-trip form (`0.30000000000000004`), so its bytes
// differ from the wire's.

/// One kind of message and the work that produces it.
private struct MessageKind {
    var name: String
    /// The engine events of this kind (empty for `hello`, which comes from a snapshot).
    var events: [EngineEvent]
    var lines: [[UInt8]]
    var messages: [ServerMessage]
}

private func kindName(_ event: EngineEvent) -> String? {
    switch event {
    case .gesture: "gesture"
    case .transition(let t): t.animation != nil ? "transition_run_out_start" : "transition"
    case .lifecycle: "lifecycle"
    case .presentation: "presentation"
    case .interaction: "interaction"
    case .state: "state"
    case .device: "device"
    case .trace: nil
    }
}

/// Nanoseconds of this thread's CPU per item: `body` handles `count` items once; it is repeated for at least
/// `seconds` of CPU per round, and the median of three rounds is returned.
private func nsPerItem(count: Int, seconds: Double = 0.15, _ body: () -> Void) -> Double {
    body()
    var rounds: [Double] = []
    for _ in 0..<3 {
        var items = 0
        let start = ThreadCPUClock.seconds()
        var now = start
        repeat {
            body()
            items += count
            now = ThreadCPUClock.seconds()
        } while now - start < seconds
        rounds.append((now - start) * 1e9 / Double(items))
    }
    return median(rounds)
}

/// The snapshot a client's hello describes: the synthetic device and the default configuration.
private func helloSnapshot(_ device: TouchDevice) -> ServerSnapshot {
    let configuration = EngineConfiguration.default
    return ServerSnapshot(
        serverVersion: "edgeswipe-bench", devices: [device],
        config: ConfigSummary(configuration: configuration, source: "built-in"), containers: configuration.containers)
}

func measureEncoders(real: [DeviceStream], synthetic: DeviceStream, passes: Int, log: (String) -> Void) -> JSONValue {
    // The message kinds, from the synthetic stream's engine events.
    let workload = EncoderWorkload(seconds: 20)
    var kinds: [MessageKind] = []
    for event in workload.events {
        guard let name = kindName(event) else { continue }
        var lineEncoder = ProtocolLineEncoder()
        var line: [UInt8] = []
        lineEncoder.encode(event, into: &line)
        guard let message = try? ServerMessage(line: line) else { continue }
        if let i = kinds.firstIndex(where: { $0.name == name }) {
            kinds[i].events.append(event)
            kinds[i].lines.append(line)
            kinds[i].messages.append(message)
        } else {
            kinds.append(MessageKind(name: name, events: [event], lines: [line], messages: [message]))
        }
    }
    let snapshot = helloSnapshot(synthetic.device)
    do {
        var lineEncoder = ProtocolLineEncoder()
        var line: [UInt8] = []
        lineEncoder.encodeHello(snapshot, time: MonotonicInstant(microseconds: 1), into: &line)
        if let message = try? ServerMessage(line: line) {
            kinds.append(MessageKind(name: "hello", events: [], lines: [line], messages: [message]))
        }
    }

    let foundationEncoder = Foundation.JSONEncoder()
    let essentialsEncoder = FoundationEssentials.JSONEncoder()
    var out: [UInt8] = []
    out.reserveCapacity(1 << 20)

    var perKind: [(String, JSONValue)] = []
    for kind in kinds {
        let n = kind.messages.count
        var encoder = ProtocolLineEncoder()
        let writer: () -> Void =
            kind.name == "hello"
            ? { encoder.encodeHello(snapshot, time: MonotonicInstant(microseconds: 1), into: &out); out.removeAll(keepingCapacity: true) }
            : {
                for e in kind.events { encoder.encode(e, into: &out) }
                out.removeAll(keepingCapacity: true)
            }
        func jsonEncoder(_ e: FoundationEssentials.JSONEncoder) -> () -> Void {
            {
                for m in kind.messages {
                    // `try!`: these messages were decoded from valid lines, and encode whatever they hold.
                    let data = try! e.encode(m)
                    out.append(contentsOf: data)
                    out.append(UInt8(ascii: "\n"))
                }
                out.removeAll(keepingCapacity: true)
            }
        }
        let foundation = jsonEncoder(foundationEncoder)
        let essentials = jsonEncoder(essentialsEncoder)
        let decode: () -> Void = { for l in kind.lines { _ = try? ServerMessage(line: l) } }

        let writerNS = nsPerItem(count: n, writer)
        let foundationNS = nsPerItem(count: n, foundation)
        let essentialsNS = nsPerItem(count: n, essentials)
        let decodeNS = nsPerItem(count: n, decode)
        let writerAllocs = countAllocations(writer).mallocs
        let foundationAllocs = countAllocations(foundation).mallocs
        let decodeAllocs = countAllocations(decode).mallocs
        let writerBytes = kind.lines.reduce(0) { $0 + $1.count }
        let jsonBytes = kind.messages.reduce(0) { $0 + ((try? foundationEncoder.encode($1).count) ?? 0) + 1 }
        log("  \(kind.name) (\(n)): writer \(Int(writerNS)) ns, JSONEncoder \(Int(foundationNS)) / \(Int(essentialsNS)) ns, decode \(Int(decodeNS)) ns")
        perKind.append((kind.name, .fields([
            ("messages", .integer(n)),
            ("writer_ns", .num(writerNS, digits: 0)),
            ("foundation_json_encoder_ns", .num(foundationNS, digits: 0)),
            ("foundation_essentials_json_encoder_ns", .num(essentialsNS, digits: 0)),
            ("json_encoder_to_writer", .num(foundationNS / writerNS, digits: 1)),
            ("writer_allocs_per_message", .num(Double(writerAllocs) / Double(n), digits: 2)),
            ("json_encoder_allocs_per_message", .num(Double(foundationAllocs) / Double(n), digits: 2)),
            ("writer_bytes_per_message", .num(Double(writerBytes) / Double(n), digits: 1)),
            ("json_encoder_bytes_per_message", .num(Double(jsonBytes) / Double(n), digits: 1)),
            ("decode_ns", .num(decodeNS, digits: 0)),
            ("decode_allocs_per_message", .num(Double(decodeAllocs) / Double(n), digits: 2)),
        ])))
    }

    // The whole pipeline (decode, recognize, engine, encode) over the same streams as pipeline_events_per_s, with
    // each encoder, and with none (what the encoder adds).
    let streams = real + [synthetic]
    let totalEvents = streams.reduce(0) { $0 + $1.events.count }
    // Each stream's messages in order, for the JSONEncoder runs: the engine is deterministic, so the i-th event
    // that reaches the wire is the same on every pass.
    let messages: [[ServerMessage]] = streams.map { s in
        var encoder = ProtocolLineEncoder()
        var list: [ServerMessage] = []
        var p = Pipeline(stream: s)
        func take(_ e: EngineEvent) {
            var line: [UInt8] = []
            encoder.encode(e, into: &line)
            if !line.isEmpty, let m = try? ServerMessage(line: line) { list.append(m) }
        }
        for e in s.events { p.feed(e, handing: take) }
        p.finish(handing: take)
        return list
    }
    func rate(_ pass: () -> Void) -> Double {
        pass()
        var rates: [Double] = []
        for _ in 0..<passes {
            let c0 = ThreadCPUClock.seconds()
            pass()
            rates.append(Double(totalEvents) / (ThreadCPUClock.seconds() - c0))
        }
        return median(rates)
    }
    let writerRate = rate { for s in streams { _ = Pipeline.run(s) } }
    let noneRate = rate {
        for s in streams {
            var p = Pipeline(stream: s)
            for e in s.events { p.feed(e, handing: { _ = opaque($0) }) }
            p.finish(handing: { _ = opaque($0) })
        }
    }
    func jsonRate(_ encoder: FoundationEssentials.JSONEncoder) -> Double {
        rate {
            for (s, list) in zip(streams, messages) {
                var p = Pipeline(stream: s)
                var i = 0
                func encode(_ e: EngineEvent) {
                    if case .trace = e { return }
                    guard i < list.count else { return }
                    out.append(contentsOf: try! encoder.encode(list[i]))
                    out.append(UInt8(ascii: "\n"))
                    i += 1
                    if out.count > 1 << 16 { out.removeAll(keepingCapacity: true) }
                }
                for e in s.events { p.feed(e, handing: encode) }
                p.finish(handing: encode)
            }
        }
    }
    let foundationRate = jsonRate(foundationEncoder)
    let essentialsRate = jsonRate(essentialsEncoder)
    log("  pipeline: writer \(Int(writerRate)), no encoding \(Int(noneRate)), JSONEncoder \(Int(foundationRate)) / \(Int(essentialsRate)) events per CPU-second")
    return .fields([
        ("what", .string("per message kind of the synthetic stream (and one hello): ns of CPU per message and allocations, for the protocol's writer (ProtocolLineEncoder), Foundation's JSONEncoder and FoundationEssentials' (encoding the same messages, decoded from the writer's lines, through their Codable conformance), and ServerMessage(line:); then the whole pipeline's evdev events per CPU-second with each")),
        ("same_json_encoder_type", .bool(ObjectIdentifier(Foundation.JSONEncoder.self) == ObjectIdentifier(FoundationEssentials.JSONEncoder.self))),
        ("per_message", .fields(perKind)),
        ("pipeline_events_per_cpu_s", .fields([
            ("writer", .num(writerRate, digits: 0)),
            ("foundation_json_encoder", .num(foundationRate, digits: 0)),
            ("foundation_essentials_json_encoder", .num(essentialsRate, digits: 0)),
            ("no_encoding", .num(noneRate, digits: 0)),
            ("evdev_events_per_pass", .integer(totalEvents)),
            ("lines_per_pass", .integer(messages.reduce(0) { $0 + $1.count })),
        ])),
    ])
}
