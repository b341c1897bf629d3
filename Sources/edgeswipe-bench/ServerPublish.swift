import Dispatch
import EdgeSwipeBenchSupport
import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeInput
import EdgeSwipeProtocol
import EdgeSwipeServer
import Logging

/// Allocations of the server's publish path (what the daemon's input thread calls after each engine step),
/// with no client connected: the encoding of each batch and the snapshot update, without the fan-out.
func measureServerPublish(synthetic: DeviceStream, socketPath: String) throws -> JSONValue {
    // The engine's output for each frame of the synthetic stream, as the input thread would publish it.
    var batches: [[EngineEvent]] = []
    var engine = Engine(configuration: .default)
    var decoder = try EvdevFrameDecoder(description: synthetic.description, device: synthetic.device)
    var events: [EngineEvent] = []
    engine.addDevice(synthetic.device, at: synthetic.events[0].time, into: &events)
    batches.append(events)
    for e in synthetic.events {
        guard case .frame(let f)? = decoder.feed(e) else { continue }
        events.removeAll()
        engine.tick(through: f.time, into: &events)
        engine.handle(f, into: &events)
        if !events.isEmpty { batches.append(events) }
    }
    let eventCount = batches.reduce(0) { $0 + $1.count }

    let configuration = ServerConfiguration(listener: .path(socketPath), serverVersion: "edgeswipe-bench")
    let server = try EdgeSwipeServer.start(
        configuration: configuration,
        snapshot: ServerSnapshot(
            serverVersion: configuration.serverVersion, devices: [],
            config: ConfigSummary(configuration: .default, source: "built-in"), state: Engine(configuration: .default).snapshot),
        handler: nil, logger: Logger(label: "edgeswipe-bench.server", factory: { _ in SwiftLogNoOpLogHandler() }))
    for b in batches { server.publish(b) }  // warm-up
    let counted = countAllocations { for b in batches { server.publish(b) } }
    let done = DispatchSemaphore(value: 0)
    Task {
        await server.shutdown()
        done.signal()
    }
    _ = done.wait(timeout: .now() + 10)
    return .fields([
        ("what", .string("EdgeSwipeServer.publish of the synthetic stream's engine output, one batch per frame, no client connected")),
        ("batches", .integer(batches.count)),
        ("events", .integer(eventCount)),
        ("mallocs", .integer(counted.mallocs)),
        ("allocs_per_publish", .num(Double(counted.mallocs) / Double(batches.count), digits: 3)),
        ("allocs_per_event", .num(Double(counted.mallocs) / Double(eventCount), digits: 3)),
    ])
}
