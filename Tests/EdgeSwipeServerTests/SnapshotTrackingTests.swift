import EdgeSwipeCore
import EdgeSwipeProtocol
import Testing
@testable import EdgeSwipeServer

@Suite("Server snapshot")
struct SnapshotTrackingTests {
    @Test("applying every published event reproduces the engine's final picture, and tracks transitions in flight")
    func followsEvents() throws {
        let traffic = Traffic.swipes(3)
        var snapshot = traffic.initial
        var sawRunning = false
        var lastTime = MonotonicInstant.zero
        for event in traffic.batches.joined() {
            snapshot.apply(event)
            if !snapshot.running.isEmpty { sawRunning = true }
            if let t = event.time { lastTime = max(lastTime, t) }
        }
        let final = StateSnapshot.from(traffic)
        #expect(sawRunning)
        #expect(snapshot.devices == [Traffic.device])
        #expect(snapshot.containers == final.containers)
        #expect(snapshot.running.isEmpty && final.running.isEmpty)
        #expect(snapshot.time == lastTime)
        // The device goes (an engine stamped earlier): it leaves the picture, and time never runs backward.
        var engine = Engine(configuration: Traffic.configuration)
        var events: [EngineEvent] = []
        engine.addDevice(Traffic.device, at: .zero, into: &events)
        engine.removeDevice(Traffic.device.id, at: .zero, into: &events)
        for event in events { snapshot.apply(event) }
        #expect(snapshot.devices.isEmpty)
        #expect(snapshot.time == lastTime)
    }
}
