import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeInputTestSupport
import EdgeSwipeRecordings
import Testing

/// A recording of one ELAN touchscreen whose single finger follows `frames`, its clock starting at `originUS`.
private func elanRecording(_ frames: [[Ev]], originUS: UInt64, path: String) -> Recording {
    let shifted = events(frames).map {
        EvdevEvent(time: $0.time + Microseconds(Int64(originUS)), type: $0.type, code: $0.code, value: $0.value)
    }
    return Recording(path: path, format: .evemu, devices: [
        RecordedDevice(description: TestDevices.elanTouchscreen, events: shifted, source: path)
    ])
}

/// A left-edge swipe on the ELAN screen (331 mm wide): lands 1 mm from the edge, moves `steps` x 60 units per
/// frame, and lifts unless `lift` is false.
private func leftSwipe(steps: Int, lift: Bool = true) -> [[Ev]] {
    var frames: [[Ev]] = [[.id(1), .x(10), .y(900)]]
    for i in 1...steps { frames.append([.x(Int32(10 + 60 * i))]) }
    if lift { frames.append([.id(-1)]) }
    return frames
}

@Suite struct RecordingPlayerTests {
    @Test func devicesGetIdsInOrderAndTheOthersAreSkippedWithReasons() {
        let keyboard = RecordedDevice(
            description: EvdevDeviceDescription(name: "Keyboard", keys: [EvdevKey.keyA, EvdevKey.keyQ]), events: [], source: "k")
        let cypress = RecordedDevice(description: TestDevices.cypress, events: [], source: "c")
        let screen = RecordedDevice(description: TestDevices.elanTouchscreen, events: [], source: "s")
        let pad = RecordedDevice(description: TestDevices.bcm5974, events: [], source: "p")
        let recording = Recording(path: "many.events", format: .evemu, devices: [keyboard, screen, cypress, pad])
        let player = RecordingPlayer(recordings: [recording], options: RecordingPlayer.Options(firstDeviceID: 10))
        #expect(player.devices.map(\.device.id) == [DeviceID(10), DeviceID(11)])
        #expect(player.devices.map(\.device.name) == ["ELAN Touchscreen", "bcm5974"])
        #expect(player.skipped.map(\.description) == [
            "k: \"Keyboard\": not a touch device (keyboard)",
            "c: \"CyPS/2 Cypress Trackpad\": rejected: semi-multitouch (INPUT_PROP_SEMI_MT) reports a bounding box of the fingers, not their positions",
        ])
    }

    @Test func stepsAddDecodeAndRemoveInTimeOrder() {
        let recording = elanRecording(leftSwipe(steps: 2), originUS: 5_000_000, path: "a")
        var player = RecordingPlayer(recordings: [recording], options: RecordingPlayer.Options(start: MonotonicInstant(microseconds: 100)))
        var steps: [String] = []
        while let step = player.next() {
            switch step.input {
            case .deviceAdded(let d): steps.append("\(step.time.microseconds) added \(d.id.rawValue)")
            case .deviceChanged(let d): steps.append("\(step.time.microseconds) changed \(d.id.rawValue)")
            case .frame(let f): steps.append("\(step.time.microseconds) " + f.touches.map { "\($0.phase.rawValue) \($0.id)" }.joined(separator: ","))
            case .eventsLost(let id): steps.append("\(step.time.microseconds) lost \(id.rawValue)")
            case .deviceRemoved(let id): steps.append("\(step.time.microseconds) removed \(id.rawValue)")
            case .swipe(let id, _): steps.append("\(step.time.microseconds) swipe \(id.rawValue)")
            }
        }
        #expect(steps == ["100 added 1", "100 down 0", "10100 motion 0", "20100 motion 0", "30100 up 0", "30100 removed 1"])
    }

    /// The daemon's replay decodes the next frame only after publishing the current one, unless this bound says
    /// it may be due already; a bound later than the step would hold a due step back.
    @Test("nextStepNotBefore is never later than the step next() returns", arguments: ["swipe", "concurrent", "clock-steps-back", "demo"])
    func nextStepBoundHolds(_ name: String) throws {
        let recordings: [Recording]
        switch name {
        case "swipe": recordings = [elanRecording(leftSwipe(steps: 5), originUS: 5_000_000, path: "a")]
        case "concurrent":
            recordings = [elanRecording(leftSwipe(steps: 3), originUS: 1_000_000_000, path: "a"),
                          elanRecording(leftSwipe(steps: 4, lift: false), originUS: 3_000_000, path: "b")]
        case "clock-steps-back":
            // The second frame is stamped before the recording's first event: it plays at the start.
            let early = [EvdevEvent(time: MonotonicInstant(microseconds: 4_000_000), type: EvdevType.abs, code: EvdevAbs.mtPositionX, value: 70),
                         EvdevEvent(time: MonotonicInstant(microseconds: 4_000_000), type: EvdevType.syn, code: EvdevSyn.report, value: 0)]
            var r = elanRecording(leftSwipe(steps: 2), originUS: 5_000_000, path: "a")
            r.devices[0].events.insert(contentsOf: early, at: 4)
            recordings = [r]
        default: recordings = [try Recording.parse(DemoRecording.evemu(), path: "edgeswipe-demo.evemu")]
        }
        var player = RecordingPlayer(recordings: recordings)
        var steps = 0
        while true {
            let bound = player.nextStepNotBefore
            guard let step = player.next() else { break }
            steps += 1
            if let bound { #expect(bound <= step.time, "\(name): step \(steps) at \(step.time), bound \(bound)") }
        }
        #expect(steps > 2)
        #expect(player.nextStepNotBefore == nil)
    }

    @Test func concurrentRecordingsAreAlignedAtTheStart() {
        let a = elanRecording([[.id(1), .x(500), .y(500)], [.id(-1)]], originUS: 1_000_000_000, path: "a")
        let b = elanRecording([[.id(1), .x(700), .y(700)], [.x(710)], [.id(-1)]], originUS: 3_000_000, path: "b")
        var player = RecordingPlayer(recordings: [a, b])
        var timeline: [String] = []
        while let step = player.next() {
            if case .frame(let f) = step.input {
                timeline.append("\(step.time.microseconds) \(f.device.rawValue) \(f.touches.map(\.phase.rawValue).joined())")
            }
        }
        #expect(timeline == ["0 1 down", "0 2 down", "10000 1 up", "10000 2 motion", "20000 2 up"])
    }

    @Test func aSwipeCompletesAndTheEngineSettles() {
        let (events, _, engine) = replay([elanRecording(leftSwipe(steps: 40), originUS: 0, path: "swipe")])
        let check = StreamCheck(events)
        #expect(check.problems == [])
        #expect(check.outcomes == [StreamCheck.Outcome(edge: .left, phase: .completed)])
        #expect(engine.nextDeadline == nil)
        // The run-out was reported by ticks on the replay's own clock, after the finger lifted.
        let ticks = events.compactMap { e -> MonotonicInstant? in
            if case .transition(let t) = e, t.isProgress, t.phase == .finishing { return t.time }
            return nil
        }
        #expect(!ticks.isEmpty)
        #expect(ticks.allSatisfy { $0 > MonotonicInstant(microseconds: 410_000) })
    }

    @Test func aRecordingThatEndsMidSwipeCancelsCleanly() {
        let (events, _, engine) = replay([elanRecording(leftSwipe(steps: 10, lift: false), originUS: 0, path: "cut")])
        let check = StreamCheck(events)
        #expect(check.problems == [])
        #expect(check.outcomes == [StreamCheck.Outcome(edge: .left, phase: .cancelled)])
        #expect(check.gestures.map(\.state).contains(.cancelled))
        #expect(engine.nextDeadline == nil)
        #expect(engine.knownDevices.isEmpty)
    }

    @Test func droppedEventsCancelTheGestureInFlight() {
        var frames = leftSwipe(steps: 30)
        frames.insert([.dropped], at: 10)
        let (events, player, _) = replay([elanRecording(frames, originUS: 0, path: "dropped")])
        let check = StreamCheck(events)
        #expect(check.problems == [])
        #expect(check.outcomes == [StreamCheck.Outcome(edge: .left, phase: .cancelled)])
        #expect(player.statistics(for: DeviceID(1))?.eventsLost == 1)
    }

    @Test func theClosureFormGivesTheSameEvents() {
        let recording = elanRecording(leftSwipe(steps: 40), originUS: 0, path: "swipe")
        var engine = Engine(configuration: .default)
        var player = RecordingPlayer(recordings: [recording])
        var viaClosure: [EngineEvent] = []
        player.play(into: &engine) { viaClosure.append($0) }
        #expect(viaClosure == replay([recording]).events)
    }

    @Test func theHostsSetupReachesTheDevices() {
        let recording = elanRecording(leftSwipe(steps: 2), originUS: 0, path: "rotated")
        let options = RecordingPlayer.Options(setup: { name, _, kind in
            DeviceSetup(rotation: kind == .touchscreen && name.hasPrefix("ELAN") ? .degrees180 : .degrees0)
        })
        let player = RecordingPlayer(recordings: [recording], options: options)
        #expect(player.devices.map(\.device.rotation) == [.degrees180])
    }

    @Test func keepingDevicesAfterTheEndLeavesThemKnown() {
        let recording = elanRecording(leftSwipe(steps: 2), originUS: 0, path: "kept")
        let (_, _, engine) = replay([recording], options: RecordingPlayer.Options(removeDevicesAtEnd: false))
        #expect(engine.knownDevices.map(\.name) == ["ELAN Touchscreen"])
    }
}
