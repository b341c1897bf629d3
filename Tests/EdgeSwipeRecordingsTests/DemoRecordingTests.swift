import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeInputTestSupport
import EdgeSwipeRecordings
import EdgeSwipeTestSupport
import Foundation
import Testing

@Suite struct DemoRecordingTests {
    /// `demo/edgeswipe-demo.evemu` is the generator's output, byte for byte. To regenerate it after changing the
    /// generator, run the tests with `EDGESWIPE_WRITE_DEMO=1`.
    @Test func theCommittedDemoIsWhatTheGeneratorWrites() throws {
        let generated = DemoRecording.evemu()
        #expect(generated == DemoRecording.evemu(), "the generator is not deterministic")
        let path = Fixtures.demoPath()
        if ProcessInfo.processInfo.environment["EDGESWIPE_WRITE_DEMO"] == "1" {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try generated.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let committed = try #require(FileManager.default.contents(atPath: path), "\(path) is missing")
        #expect(committed == Data(generated.utf8))
    }

    @Test func theDemoParsesBackToTheSameEvents() throws {
        let parsed = try Recording.parse(DemoRecording.evemu(), path: "edgeswipe-demo.evemu")
        #expect(parsed.devices.count == 1)
        #expect(parsed.devices.first?.description == DemoRecording.device)
        #expect(parsed.devices.first?.events == DemoRecording.events())
    }

    @Test func theDeviceIsASevenInchScreen() throws {
        let device = try DemoRecording.device.touchDevice(id: DeviceID(1), path: "demo")
        #expect(device.kind == .touchscreen)
        #expect(device.size == MillimeterSize(widthMM: 155, heightMM: 87))
        #expect(DemoRecording.device.classification == .touch(.touchscreen, .multitouchB(slots: 10)))
    }

    /// Played through the default configuration: every edge completes once, the early release cancels, and the
    /// quick flick completes although it was released below 50 %.
    @Test func playsAsScripted() throws {
        let (events, _, engine) = replay([DemoRecording.recording()])
        let check = StreamCheck(events)
        #expect(check.problems == [])
        #expect(check.outcomes.map(\.description) == [
            "left completed", "right completed", "top completed", "bottom completed", "left cancelled", "right completed",
        ])
        #expect(engine.nextDeadline == nil)

        // The flick: released well below half-way, finished by its velocity.
        let flick = try #require(check.began.last)
        let release = events.compactMap { e -> TransitionEvent? in
            if case .transition(let t) = e, t.id == flick, t.phase == .finishing, t.animation != nil { return t }
            return nil
        }.first
        let released = try #require(release)
        #expect(released.percent < Percent(0.5))
        #expect(released.percent > Percent(0.25))
    }

    @Test func swipesAreAboutASecondApartAt120Hz() {
        let events = DemoRecording.events()
        let reports = events.filter { $0.type == EvdevType.syn && $0.code == EvdevSyn.report }.map(\.time.microseconds)
        let gaps = zip(reports, reports.dropFirst()).map { $1 - $0 }
        #expect(gaps.filter { $0 < 100_000 }.allSatisfy { $0 % DemoRecording.frameIntervalUS == 0 })
        #expect(gaps.filter { $0 >= 900_000 }.count == DemoRecording.swipes.count - 1)
    }
}
