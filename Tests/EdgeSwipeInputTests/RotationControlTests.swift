import EdgeSwipeCore
@testable import EdgeSwipeInput
import EdgeSwipeSeat
import Testing

/// A 220 x 140 mm touchscreen (resolution 10 units/mm), as a source normalizes it: with its configured rotation.
private func screen(_ id: UInt32, name: String = "Panel", phys: String? = "usb-1/input0", output: String? = "DSI-1", auto: Bool = false, rotation: Rotation = .degrees0) -> TouchDevice {
    TouchDevice(
        id: DeviceID(id), name: name, kind: .touchscreen, x: AxisRange(minimum: 0, maximum: 2200, resolution: 10),
        y: AxisRange(minimum: 0, maximum: 1400, resolution: 10), rotation: rotation, path: "/dev/input/event\(id)",
        identity: DeviceIdentity(name: name, bus: 3, vendor: 0x1234, product: 0x5678, phys: phys), output: output,
        followsAccelerometer: auto)
}

private func pad(_ id: UInt32) -> TouchDevice {
    TouchDevice(
        id: DeviceID(id), name: "Pad", kind: .touchpad, x: AxisRange(minimum: 0, maximum: 1000, resolution: 10),
        y: AxisRange(minimum: 0, maximum: 600, resolution: 10), identity: DeviceIdentity(name: "Pad", bus: 0x18))
}

private func step(_ ms: UInt64, _ input: InputStep.Input) -> InputStep {
    InputStep(time: MonotonicInstant(microseconds: ms * 1000), input: input)
}

private func frame(_ device: UInt32, _ ms: UInt64, _ touches: [(Int32, TouchPhase, Double, Double)]) -> InputStep {
    step(ms, .frame(TouchFrame(
        device: DeviceID(device), time: MonotonicInstant(microseconds: ms * 1000),
        touches: touches.map { Touch(id: $0.0, phase: $0.1, position: NormalizedPoint(x: $0.2, y: $0.3)) })))
}

/// What came out of the stage, as short lines: `added 1 @90`, `changed 1 @90`, `1 down 0.5,0.0`.
private struct Sink {
    var lines: [String] = []

    mutating func record(_ step: InputStep) {
        switch step.input {
        case .deviceAdded(let d): lines.append("added \(d.id.rawValue) @\(d.rotation.rawValue)")
        case .deviceChanged(let d): lines.append("changed \(d.id.rawValue) @\(d.rotation.rawValue)")
        case .deviceRemoved(let id): lines.append("removed \(id.rawValue)")
        case .eventsLost(let id): lines.append("lost \(id.rawValue)")
        case .swipe(let id, let input):
            switch input {
            case .begin(let n): lines.append("swipe \(id.rawValue) begin \(n)")
            case .update(let d): lines.append("swipe \(id.rawValue) update \(Self.format(d.x)),\(Self.format(d.y))")
            case .end(let cancelled): lines.append("swipe \(id.rawValue) end\(cancelled ? " cancelled" : "")")
            }
        case .frame(let f):
            lines.append(f.touches.map { t in
                "\(f.device.rawValue) \(t.phase.rawValue) \(Self.format(t.position.x)),\(Self.format(t.position.y))"
            }.joined(separator: "; "))
        }
    }

    static func format(_ v: Double) -> String { String(Double((v * 100).rounded()) / 100) }
}

@Suite struct RotationControlTests {
    @Test func aRotationSetBetweenSequencesTurnsTheNextTouchAndIsAnnounced() throws {
        var control = RotationControl()
        var sink = Sink()
        control.pass(step(0, .deviceAdded(screen(1)))) { sink.record($0) }
        let outcome = try control.set(.fixed(.degrees90), on: .allTouchscreens, at: MonotonicInstant(microseconds: 1000)) { sink.record($0) }
        #expect(outcome == RotationOutcome(applied: [DeviceID(1)]))
        control.pass(frame(1, 2, [(0, .down, 0, 0.5)])) { sink.record($0) }
        // The device's physical left edge, half way down, is the top edge the user sees, half way across.
        #expect(sink.lines == ["added 1 @0", "changed 1 @90", "1 down 0.5,0.0"])
    }

    @Test func aRotationSetMidGestureWaitsForTheLastFingerToLift() throws {
        var control = RotationControl()
        var sink = Sink()
        control.pass(step(0, .deviceAdded(screen(1)))) { sink.record($0) }
        control.pass(frame(1, 10, [(0, .down, 0.01, 0.5), (1, .down, 0.5, 0.5)])) { sink.record($0) }
        let outcome = try control.set(.fixed(.degrees180), on: .device(DeviceID(1)), at: MonotonicInstant(microseconds: 15_000)) { sink.record($0) }
        #expect(outcome == RotationOutcome(pending: [DeviceID(1)]))
        control.pass(frame(1, 20, [(0, .motion, 0.2, 0.5)])) { sink.record($0) }
        control.pass(frame(1, 30, [(0, .up, 0.2, 0.5)])) { sink.record($0) }
        control.pass(frame(1, 40, [(1, .up, 0.5, 0.5)])) { sink.record($0) }
        control.pass(frame(1, 50, [(2, .down, 0.1, 0.25)])) { sink.record($0) }
        #expect(sink.lines == [
            "added 1 @0", "1 down 0.01,0.5; 1 down 0.5,0.5", "1 motion 0.2,0.5", "1 up 0.2,0.5", "1 up 0.5,0.5",
            "changed 1 @180", "1 down 0.9,0.75",
        ])
    }

    @Test func libinputSwipeDeltasTurnWithTheRotationInForce() throws {
        var control = RotationControl()
        var sink = Sink()
        control.pass(step(0, .deviceAdded(screen(1)))) { sink.record($0) }
        _ = try control.set(.fixed(.degrees90), on: .device(DeviceID(1)), at: MonotonicInstant(microseconds: 1000)) { sink.record($0) }
        control.pass(step(10, .swipe(DeviceID(1), .begin(fingers: 3)))) { sink.record($0) }
        control.pass(step(20, .swipe(DeviceID(1), .update(delta: MillimeterVector(x: 2, y: 0))))) { sink.record($0) }
        control.pass(step(30, .swipe(DeviceID(1), .end(cancelled: false)))) { sink.record($0) }
        // Fingers moving right on the device move down as the user sees it, turned 90° clockwise.
        #expect(sink.lines == ["added 1 @0", "changed 1 @90", "swipe 1 begin 3", "swipe 1 update -0.0,2.0", "swipe 1 end"])
    }

    @Test func lostEventsEndTheSequenceForAWaitingRotation() throws {
        var control = RotationControl()
        var sink = Sink()
        control.pass(step(0, .deviceAdded(screen(1)))) { sink.record($0) }
        control.pass(frame(1, 10, [(0, .down, 0.5, 0.5)])) { sink.record($0) }
        _ = try control.set(.fixed(.degrees270), on: .device(DeviceID(1)), at: MonotonicInstant(microseconds: 15_000)) { sink.record($0) }
        control.pass(step(20, .eventsLost(DeviceID(1)))) { sink.record($0) }
        #expect(sink.lines.suffix(2) == ["lost 1", "changed 1 @270"])
    }

    @Test func theAccelerometerTurnsAutoDevicesUntilAClientSetsOneAndAutoGivesItBack() throws {
        var control = RotationControl()
        var sink = Sink()
        control.pass(step(0, .deviceAdded(screen(1, auto: true)))) { sink.record($0) }
        control.pass(step(0, .deviceAdded(screen(2, name: "Fixed", phys: "usb-2", rotation: .degrees180)))) { sink.record($0) }
        control.accelerometerChanged(.degrees90, at: MonotonicInstant(microseconds: 1000)) { sink.record($0) }
        _ = try control.set(.fixed(.degrees0), on: .device(DeviceID(1)), at: MonotonicInstant(microseconds: 2000)) { sink.record($0) }
        control.accelerometerChanged(.degrees270, at: MonotonicInstant(microseconds: 3000)) { sink.record($0) }
        _ = try control.set(.automatic, on: .allTouchscreens, at: MonotonicInstant(microseconds: 4000)) { sink.record($0) }
        #expect(sink.lines == ["added 1 @0", "added 2 @180", "changed 1 @90", "changed 1 @0", "changed 1 @270"])
    }

    @Test func aDeviceThatComesBackUnderAnotherNodeKeepsWhatWasSetForIt() throws {
        var control = RotationControl()
        var sink = Sink()
        control.pass(step(0, .deviceAdded(screen(1)))) { sink.record($0) }
        _ = try control.set(.fixed(.degrees90), on: .output("DSI-1"), at: MonotonicInstant(microseconds: 1000)) { sink.record($0) }
        control.pass(step(2, .deviceRemoved(DeviceID(1)))) { sink.record($0) }
        control.pass(step(3, .deviceAdded(screen(7)))) { sink.record($0) }
        // Another device of the same model on another port is another identity.
        control.pass(step(4, .deviceAdded(screen(8, phys: "usb-9/input0")))) { sink.record($0) }
        #expect(sink.lines == ["added 1 @0", "changed 1 @90", "removed 1", "added 7 @90", "added 8 @0"])
        // And a restart remembers it the same way.
        var restarted = RotationControl(remembered: control.remembered)
        restarted.pass(step(0, .deviceAdded(screen(3)))) { _ in }
        #expect(restarted.devices.map(\.rotation) == [.degrees90])
    }

    @Test func touchpadsAreNotTouchscreens() throws {
        var control = RotationControl()
        var sink = Sink()
        control.pass(step(0, .deviceAdded(pad(1)))) { sink.record($0) }
        #expect(throws: RotationRefusal.noTouchscreen) {
            _ = try control.set(.fixed(.degrees90), on: .allTouchscreens, at: .zero) { sink.record($0) }
        }
        // Named, a touchpad turns too (one mounted upside down in a kiosk).
        #expect(try control.set(.fixed(.degrees180), on: .device(DeviceID(1)), at: .zero) { sink.record($0) }.applied == [DeviceID(1)])
    }

    @Test(arguments: [
        (RotationTarget.device(DeviceID(9)), RotationRefusal.unknownDevice(DeviceID(9))),
        (.output("HDMI-A-1"), .unknownOutput("HDMI-A-1", known: ["DSI-1"])),
    ])
    func unknownTargetsAreRefused(_ target: RotationTarget, _ refusal: RotationRefusal) {
        var control = RotationControl()
        control.pass(step(0, .deviceAdded(screen(1)))) { _ in }
        #expect(throws: refusal) { _ = try control.set(.fixed(.degrees90), on: target, at: .zero) { _ in } }
    }

    @Test func theRememberedRotationsAreBounded() throws {
        var control = RotationControl()
        for i in 1...UInt32(StateLimits.maxRememberedRotations + 5) {
            control.pass(step(0, .deviceAdded(screen(i, name: "Panel \(i)")))) { _ in }
            _ = try control.set(.fixed(.degrees90), on: .device(DeviceID(i)), at: .zero) { _ in }
            control.pass(step(1, .deviceRemoved(DeviceID(i)))) { _ in }
        }
        #expect(control.remembered.count == StateLimits.maxRememberedRotations)
        #expect(control.remembered.first?.device.name == "Panel 6")
    }

    /// The whole way: a swipe from the physical left edge of a screen turned a quarter clockwise (left-up) starts
    /// a gesture on the edge the user sees, the top.
    @Test func aSwipeFromThePhysicalLeftEdgeOfAScreenTurnedLeftUpIsATopSwipe() throws {
        var control = RotationControl()
        var engine = Engine(configuration: .default)
        var events: [EngineEvent] = []
        func feed(_ s: InputStep) { control.pass(s) { $0.apply(to: &engine, into: &events) } }
        feed(step(0, .deviceAdded(screen(1, auto: true))))
        control.accelerometerChanged(try #require(AccelerometerOrientation.leftUp.rotation), at: MonotonicInstant(microseconds: 1000)) {
            $0.apply(to: &engine, into: &events)
        }
        feed(frame(1, 10, [(0, .down, 0.005, 0.5)]))
        for i in 1...20 { feed(frame(1, 10 + UInt64(i) * 8, [(0, .motion, 0.005 + Double(i) * 0.02, 0.5)])) }
        feed(frame(1, 200, [(0, .up, 0.4, 0.5)]))
        let edges = events.compactMap { if case .gesture(let g) = $0 { g.edge } else { nil } }
        #expect(!edges.isEmpty)
        #expect(Set(edges) == [.top])
        let changed = events.compactMap { if case .device(let d) = $0, d.change == .changed { d.device.rotation } else { nil } }
        #expect(changed == [.degrees90])
    }
}
