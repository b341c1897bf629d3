import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeInputTestSupport
import EdgeSwipeRecordings
import EdgeSwipeTestSupport
import Foundation
import Testing

@Suite struct DemoRecordingTests {
    /// The generated recordings in `demo/`.
    static let generators: [any GeneratedRecording.Type] = [DemoRecording.self, TouchpadDemoRecording.self]

    /// What one pass of the looped demo decides, in order: the touchscreen's four edges, its cancel and its flick,
    /// then the touchpad's 3-finger swipes, one committed each way and one cancelled.
    static let onePass = [
        "left completed", "right completed", "top completed", "bottom completed", "left cancelled", "right completed",
        "3-finger right completed", "3-finger left completed", "3-finger right cancelled",
    ]

    /// The looped demo's recordings as `edgeswiped --replay … --replay … --in-turn` plays them.
    static let inTurn = RecordingPlayer.Options(schedule: .aSecondApart)

    /// Each file in `demo/` is its generator's output, byte for byte. To regenerate them after changing a
    /// generator, run the tests with `EDGESWIPE_WRITE_DEMO=1`.
    @Test(arguments: Self.generators.map { ObjectIdentifier($0) })
    func theCommittedDemoIsWhatTheGeneratorWrites(_ which: ObjectIdentifier) throws {
        let generator = try #require(Self.generators.first { ObjectIdentifier($0) == which })
        let generated = generator.evemu()
        #expect(generated == generator.evemu(), "the generator is not deterministic")
        let path = Fixtures.packageRoot.appendingPathComponent("demo/\(generator.fileName)").path
        if ProcessInfo.processInfo.environment["EDGESWIPE_WRITE_DEMO"] == "1" {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try generated.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let committed = try #require(FileManager.default.contents(atPath: path), "\(path) is missing")
        #expect(committed == Data(generated.utf8), "\(path) is not what \(generator) writes")
    }

    @Test(arguments: Self.generators.map { ObjectIdentifier($0) })
    func theDemoParsesBackToTheSameEvents(_ which: ObjectIdentifier) throws {
        let generator = try #require(Self.generators.first { ObjectIdentifier($0) == which })
        let parsed = try Recording.parse(generator.evemu(), path: generator.fileName)
        #expect(parsed.devices.count == 1)
        #expect(parsed.devices.first?.description == generator.device)
        #expect(parsed.devices.first?.events == generator.events())
    }

    /// A 7" touchscreen, and a laptop's clickpad.
    @Test(arguments: [
        (ObjectIdentifier(DemoRecording.self), DeviceKind.touchscreen, MillimeterSize(widthMM: 155, heightMM: 87), 10),
        (ObjectIdentifier(TouchpadDemoRecording.self), .touchpad, MillimeterSize(widthMM: 100, heightMM: 60), 5),
    ])
    func theDevices(_ which: ObjectIdentifier, _ kind: DeviceKind, _ size: MillimeterSize, _ slots: Int) throws {
        let generator = try #require(Self.generators.first { ObjectIdentifier($0) == which })
        let device = try generator.device.touchDevice(id: DeviceID(1), path: "demo")
        #expect(device.kind == kind)
        #expect(device.size == size)
        #expect(generator.device.classification == .touch(kind, .multitouchB(slots: slots)))
    }

    /// Played through the default configuration: every edge completes once, the early release cancels, and the
    /// quick flick completes although it was released below 50 %.
    @Test func playsAsScripted() throws {
        let (events, _, engine) = replay([DemoRecording.recording()])
        let check = StreamCheck(events)
        #expect(check.problems == [])
        #expect(check.outcomes.map(\.description) == Array(Self.onePass.prefix(6)))
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

    /// The touchpad's three fingers, through the default configuration (the replay's emulation of libinput's
    /// swipes): previous tab, next tab, and a short swipe that cancels. Alone it plays from the initial state.
    @Test func theTouchpadPlaysAsScripted() throws {
        let (events, _, engine) = replay([TouchpadDemoRecording.recording()])
        let check = StreamCheck(events)
        #expect(check.problems == [])
        #expect(check.outcomes.map(\.description) == Array(Self.onePass.suffix(3)))
        #expect(check.beganGestures.allSatisfy { $0.fingers == 3 && $0.deviceKind == .touchpad }, "\(check.beganGestures)")
        #expect(engine.nextDeadline == nil)
    }

    /// The looped demo's pass: the touchscreen's recording, then a second later the touchpad's, from one clock;
    /// each swipe keeps its promise, and nothing of one recording overlaps the other.
    @Test func theTwoPlayInTurn() throws {
        let (events, player, engine) = replay([DemoRecording.recording(), TouchpadDemoRecording.recording()], options: Self.inTurn)
        let check = StreamCheck(events)
        #expect(check.problems == [])
        #expect(check.outcomes.map(\.description) == Self.onePass)
        #expect(engine.nextDeadline == nil)
        let screen = try #require(player.devices.first { $0.device.kind == .touchscreen }?.device.id)
        let lastOnScreen = try #require(check.gestures.last { $0.device == screen }?.time)
        let firstOnPad = try #require(check.gestures.first { $0.device != screen }?.time)
        #expect((firstOnPad - lastOnScreen).value >= 1_000_000, "the touchpad began \(firstOnPad - lastOnScreen) after the screen's last gesture")
        // Each device comes with its recording's turn, and goes at its end (played once; looped, the daemon keeps them).
        let devices = events.compactMap { e -> String? in if case .device(let d) = e { "\(d.change) \(d.device.name)" } else { nil } }
        #expect(devices == [
            "added EdgeSwipe Demo Touchscreen", "removed EdgeSwipe Demo Touchscreen", "added EdgeSwipe Demo Touchpad", "removed EdgeSwipe Demo Touchpad",
        ])
        // Played together, as --replay A --replay B without --in-turn does, the two would start at once.
        let (together, _, _) = replay([DemoRecording.recording(), TouchpadDemoRecording.recording()])
        #expect(StreamCheck(together).outcomes.map(\.description) != Self.onePass)
    }

    @Test func swipesAreAboutASecondApartAt120Hz() {
        let events = DemoRecording.events()
        let reports = events.filter { $0.type == EvdevType.syn && $0.code == EvdevSyn.report }.map(\.time.microseconds)
        let gaps = zip(reports, reports.dropFirst()).map { $1 - $0 }
        #expect(gaps.filter { $0 < 100_000 }.allSatisfy { $0 % DemoRecording.frameIntervalUS == 0 })
        #expect(gaps.filter { $0 >= 900_000 }.count == DemoRecording.swipes.count - 1)
    }
}
