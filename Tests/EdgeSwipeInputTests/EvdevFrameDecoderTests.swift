import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeInputTestSupport
import Testing

/// One decoding scenario: frames of events in, readable touch changes out.
struct DecoderCase: CustomTestStringConvertible, Sendable {
    var name: String
    var touchProtocol: TouchProtocol
    var hasTouchKey = true
    var frames: [[Ev]]
    var expected: [String]
    var testDescription: String { name }
}

private let touch = EvdevKey.btnTouch

@Suite struct EvdevFrameDecoderTests {
    static let multitouchB: [DecoderCase] = [
        DecoderCase(
            name: "one finger lands, moves and lifts", touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(5), .x(100), .y(200)], [.x(110)], [.id(-1)]],
            expected: ["down 0 @100,200", "motion 0 @110,200", "up 0 @110,200"]),
        DecoderCase(
            name: "two fingers in two slots", touchProtocol: .multitouchB(slots: 10),
            frames: [
                [.id(1), .x(100), .y(100)], [.slot(1), .id(2), .x(500), .y(500)],
                [.slot(0), .x(120), .slot(1), .x(520)], [.slot(0), .id(-1)], [.slot(1), .id(-1)],
            ],
            expected: [
                "down 0 @100,100", "down 1 @500,500", "motion 0 @120,100", "motion 1 @520,500", "up 0 @120,100",
                "up 1 @520,500",
            ]),
        DecoderCase(
            name: "a reused slot keeps the coordinate the kernel does not resend", touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(1), .x(100), .y(200)], [.id(-1)], [.id(2), .y(300)]],
            expected: ["down 0 @100,200", "up 0 @100,200", "down 0 @100,300"]),
        DecoderCase(
            name: "a new tracking id on an occupied slot is an up and a down", touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(1), .x(100), .y(100)], [.id(2), .x(800), .y(800)]],
            expected: ["down 0 @100,100", "up 0 @100,100", "down 0 @800,800"]),
        DecoderCase(
            name: "a repeated tracking id is not a new touch", touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(1), .x(100), .y(100)], [.id(1), .x(150)]],
            expected: ["down 0 @100,100", "motion 0 @150,100"]),
        DecoderCase(
            name: "a repeated position is not a motion", touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(1), .x(100), .y(100)], [.x(100), .y(100)], [.id(-1)]],
            expected: ["down 0 @100,100", "up 0 @100,100"]),
        DecoderCase(
            name: "a touch that lands and lifts within one frame is a tap", touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(1), .x(100), .y(100), .id(-1)]],
            expected: ["down 0 @100,100", "up 0 @100,100"]),
        DecoderCase(
            name: "a stream starting mid-touch ignores that touch until it lifts", touchProtocol: .multitouchB(slots: 10),
            frames: [[.x(100), .y(100)], [.x(120)], [.id(-1)], [.id(4), .x(300), .y(300)]],
            expected: ["down 0 @300,300"]),
        DecoderCase(
            name: "a touch landing without a known position is never reported", touchProtocol: .multitouchB(slots: 10),
            frames: [[.slot(2), .id(9), .x(100)], [.slot(2), .y(100)], [.slot(2), .x(150)], [.slot(2), .id(-1)]],
            expected: []),
        DecoderCase(
            name: "a slot beyond the device's slots is ignored", touchProtocol: .multitouchB(slots: 2),
            frames: [[.slot(5), .id(1), .x(1), .y(1)], [.slot(0), .id(2), .x(10), .y(10)]],
            expected: ["down 0 @10,10"]),
        DecoderCase(
            name: "values beyond the range are clamped to the axis", touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(1), .x(-50), .y(1200)]],
            expected: ["down 0 @0,1000"]),
        DecoderCase(
            name: "single-touch emulation and keys are ignored on MT devices", touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(1), .x(100), .y(100), .absX(999), .key(touch, 1)], [.absX(5), .key(touch, 0)]],
            expected: ["down 0 @100,100"]),
        DecoderCase(
            name: "SYN_DROPPED: reported, discarded to the next report, the touch then ignored until it lifts",
            touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(1), .x(100), .y(100)], [.x(200), .dropped, .x(300)], [.x(400)], [.id(-1)], [.id(2), .x(600), .y(600)]],
            expected: ["down 0 @100,100", "lost", "down 0 @600,600"]),
        DecoderCase(
            name: "after SYN_DROPPED a new touch must send its whole position", touchProtocol: .multitouchB(slots: 10),
            frames: [[.id(1), .x(100), .y(100)], [.id(-1)], [.dropped], [.id(2), .x(600)], [.id(-1)], [.id(3), .x(700), .y(700)]],
            expected: ["down 0 @100,100", "up 0 @100,100", "lost", "down 0 @700,700"]),
    ]

    static let multitouchA: [DecoderCase] = [
        DecoderCase(
            name: "protocol A: one contact", touchProtocol: .multitouchA,
            frames: [[.x(100), .y(100), .mtReport, .key(touch, 1)], [.x(110), .y(100), .mtReport], [.key(touch, 0)]],
            expected: ["down 0 @100,100", "motion 0 @110,100", "up 0 @110,100"]),
        DecoderCase(
            name: "protocol A: contacts keep their ids when the report order changes", touchProtocol: .multitouchA,
            frames: [
                [.x(100), .y(100), .mtReport, .x(800), .y(800), .mtReport, .key(touch, 1)],
                [.x(790), .y(790), .mtReport, .x(110), .y(100), .mtReport],
                [.x(120), .y(100), .mtReport],
            ],
            expected: [
                "down 0 @100,100", "down 1 @800,800", "motion 1 @790,790", "motion 0 @110,100", "up 1 @790,790",
                "motion 0 @120,100",
            ]),
        DecoderCase(
            name: "protocol A: hovering contacts before BTN_TOUCH are not touches", touchProtocol: .multitouchA,
            frames: [[.x(100), .y(100), .mtReport], [.x(101), .y(100), .mtReport, .key(touch, 1)], [.x(102), .y(100), .mtReport, .key(touch, 0)]],
            expected: ["down 0 @101,100", "up 0 @101,100"]),
        DecoderCase(
            name: "protocol A: an empty report means no contacts", touchProtocol: .multitouchA,
            frames: [[.x(100), .y(100), .mtReport, .key(touch, 1)], [.mtReport]],
            expected: ["down 0 @100,100", "up 0 @100,100"]),
        DecoderCase(
            name: "protocol A: a contact without both coordinates is dropped", touchProtocol: .multitouchA,
            frames: [[.x(5), .mtReport, .key(touch, 1)]],
            expected: []),
        DecoderCase(
            name: "protocol A: a jump across the surface is a new contact", touchProtocol: .multitouchA,
            frames: [[.x(100), .y(100), .mtReport, .key(touch, 1)], [.x(900), .y(900), .mtReport]],
            expected: ["down 0 @100,100", "up 0 @100,100", "down 0 @900,900"]),
        DecoderCase(
            name: "protocol A: the device's own tracking ids are used", touchProtocol: .multitouchA,
            frames: [
                [.id(7), .x(100), .y(100), .mtReport, .id(8), .x(120), .y(100), .mtReport, .key(touch, 1)],
                [.id(8), .x(101), .y(100), .mtReport, .id(7), .x(119), .y(100), .mtReport],
            ],
            expected: ["down 0 @100,100", "down 1 @120,100", "motion 1 @101,100", "motion 0 @119,100"]),
        DecoderCase(
            name: "protocol A without BTN_TOUCH: contacts count on their own", touchProtocol: .multitouchA, hasTouchKey: false,
            frames: [[.x(100), .y(100), .mtReport], [.mtReport]],
            expected: ["down 0 @100,100", "up 0 @100,100"]),
        DecoderCase(
            name: "protocol A: SYN_DROPPED distrusts the contacts down at the time", touchProtocol: .multitouchA,
            frames: [
                [.x(100), .y(100), .mtReport, .key(touch, 1)], [.dropped], [.x(110), .y(100), .mtReport],
                [.x(120), .y(100), .mtReport, .x(600), .y(600), .mtReport], [.x(600), .y(600), .mtReport],
            ],
            expected: ["down 0 @100,100", "lost", "down 1 @600,600"]),
    ]

    static let singleTouch: [DecoderCase] = [
        DecoderCase(
            name: "single-touch: ABS_X/Y while BTN_TOUCH is set", touchProtocol: .singleTouch,
            frames: [[.absX(100), .absY(200), .key(touch, 1)], [.absX(150)], [.key(touch, 0)]],
            expected: ["down 0 @100,200", "motion 0 @150,200", "up 0 @150,200"]),
        DecoderCase(
            name: "single-touch: a stream starting mid-touch waits for the next touch", touchProtocol: .singleTouch,
            frames: [[.absX(100)], [.absX(200)], [.key(touch, 0)], [.key(touch, 1), .absY(5)]],
            expected: ["down 0 @200,5"]),
        DecoderCase(
            name: "single-touch without BTN_TOUCH uses BTN_TOOL_FINGER", touchProtocol: .singleTouch, hasTouchKey: false,
            frames: [[.absX(1), .absY(2), .key(EvdevKey.btnToolFinger, 1)], [.key(EvdevKey.btnToolFinger, 0)]],
            expected: ["down 0 @1,2", "up 0 @1,2"]),
        DecoderCase(
            name: "single-touch: SYN_DROPPED", touchProtocol: .singleTouch,
            frames: [
                [.absX(100), .absY(100), .key(touch, 1)], [.dropped], [.absX(300)], [.key(touch, 0)],
                [.key(touch, 1), .absX(400)], [.key(touch, 0)], [.key(touch, 1), .absX(500), .absY(500)],
            ],
            expected: ["down 0 @100,100", "lost", "down 0 @500,500"]),
    ]

    @Test(arguments: multitouchB + multitouchA + singleTouch)
    func decodes(_ c: DecoderCase) {
        var decoder = TestDevices.decoder(c.touchProtocol, hasTouchKey: c.hasTouchKey)
        #expect(decode(events(c.frames), with: &decoder) == c.expected)
    }

    @Test func framesCarryTheDeviceAndTheReportTime() throws {
        var decoder = TestDevices.decoder(.multitouchB(slots: 2), device: TestDevices.screen(id: 7))
        var outputs: [EvdevFrameDecoder.Output] = []
        for e in events([[.id(1), .x(250), .y(750)]], intervalMS: 10) {
            if let o = decoder.feed(e) { outputs.append(o) }
        }
        guard case .frame(let frame)? = outputs.first else {
            Issue.record("no frame")
            return
        }
        #expect(frame.device == DeviceID(7))
        #expect(frame.time == MonotonicInstant(microseconds: 10_000))
        #expect(frame.touches.map(\.position) == [NormalizedPoint(x: 0.25, y: 0.75)])
    }

    @Test func droppedEventsReportLossOnTheDeviceAtItsTime() {
        var decoder = TestDevices.decoder(.multitouchB(slots: 2), device: TestDevices.screen(id: 3))
        let output = decoder.feed(EvdevEvent(time: MonotonicInstant(microseconds: 42), type: EvdevType.syn, code: EvdevSyn.dropped, value: 0))
        #expect(output == .eventsLost(DeviceID(3), MonotonicInstant(microseconds: 42)))
        let discarded = events([[.id(1), .x(1), .y(1)]])
        for e in discarded { #expect(decoder.feed(e) == nil) }
        #expect(decoder.statistics.discardedEvents == discarded.count)
        #expect(decoder.statistics.eventsLost == 1)
    }

    @Test func positionsAreClampedAndNegativeMinimumsNormalized() throws {
        let device = try TestDevices.bcm5974.touchDevice(id: DeviceID(1), path: "test")
        var decoder = try EvdevFrameDecoder(description: TestDevices.bcm5974, device: device)
        let frames: [[Ev]] = [
            [.x(-4620), .y(-150), .mtReport, .x(5140), .y(6600), .mtReport, .x(260), .y(3225), .mtReport, .x(-9000), .y(9000), .mtReport, .key(touch, 1)],
        ]
        var positions: [NormalizedPoint] = []
        for e in events(frames) {
            if case .frame(let f)? = decoder.feed(e) { positions = f.touches.map(\.position) }
        }
        #expect(positions == [
            NormalizedPoint(x: 0, y: 0), NormalizedPoint(x: 1, y: 1), NormalizedPoint(x: 0.5, y: 0.5),
            NormalizedPoint(x: 0, y: 1),
        ])
    }

    @Test func semiMultitouchDevicesAreRejectedByName() {
        let device = TestDevices.screen()
        #expect(throws: TouchDeviceError.semiMultitouch(name: "CyPS/2 Cypress Trackpad")) {
            _ = try EvdevFrameDecoder(description: TestDevices.cypress, device: device)
        }
        #expect(
            TouchDeviceError.semiMultitouch(name: "CyPS/2 Cypress Trackpad").description
                == "\"CyPS/2 Cypress Trackpad\": rejected: semi-multitouch (INPUT_PROP_SEMI_MT) reports a bounding box of the fingers, not their positions")
    }

    @Test func aNewGeometryAppliesToTheNextFrames() {
        var decoder = TestDevices.decoder(.multitouchB(slots: 2))
        var rotated = TestDevices.screen()
        rotated.rotation = .degrees180
        var positions: [NormalizedPoint] = []
        for (i, e) in events([[.id(1), .x(100), .y(200)], [.x(101)]]).enumerated() {
            if i == 4 { decoder.update(device: rotated) }
            if case .frame(let f)? = decoder.feed(e) { positions += f.touches.map(\.position) }
        }
        #expect(positions.count == 2)
        #expect(abs(positions[0].x - 0.1) < 1e-9 && abs(positions[0].y - 0.2) < 1e-9)
        #expect(abs(positions[1].x - 0.899) < 1e-9 && abs(positions[1].y - 0.8) < 1e-9)
    }

    /// libevdev's resync after SYN_DROPPED: the state differences are applied silently, and the touches down
    /// afterwards are ignored until they lift; a touch landing later is reported.
    @Test func libevdevResyncAppliesStateAndDistrustsTouchesDown() {
        var decoder = TestDevices.decoder(.multitouchB(slots: 4))
        var lines = decode(events([[.id(1), .x(100), .y(100)]]), with: &decoder)
        let t = MonotonicInstant(microseconds: 50_000)
        let sync: [EvdevEvent] = [
            EvdevEvent(time: t, type: EvdevType.syn, code: EvdevSyn.dropped, value: 0),
            .abs(EvdevAbs.mtSlot, 0, at: t), .abs(EvdevAbs.mtTrackingID, -1, at: t),
            .abs(EvdevAbs.mtTrackingID, 2, at: t), .abs(EvdevAbs.mtPositionX, 300, at: t),
            .abs(EvdevAbs.mtSlot, 1, at: t), .abs(EvdevAbs.mtTrackingID, 3, at: t),
            .abs(EvdevAbs.mtPositionX, 500, at: t), .abs(EvdevAbs.mtPositionY, 500, at: t),
            .report(at: t),
        ]
        for e in sync { if let o = decoder.feedResync(e) { lines += describe(o, on: decoder.device) } }
        #expect(decoder.touchesDown == 0)
        let after = events([[.slot(0), .x(310)], [.slot(1), .id(-1)], [.slot(2), .id(4), .x(700), .y(700)]])
            .map { EvdevEvent(time: $0.time + Microseconds(100_000), type: $0.type, code: $0.code, value: $0.value) }
        lines += decode(after, with: &decoder)
        #expect(lines == ["down 0 @100,100", "lost", "down 2 @700,700"])
        #expect(decoder.touchesDown == 1)
    }

    @Test func aReusedOutputBufferKeepsEarlierFramesIntact() {
        var decoder = TestDevices.decoder(.multitouchB(slots: 2))
        var frames: [TouchFrame] = []
        for e in events([[.id(1), .x(1), .y(1)], [.x(2)], [.x(3)]]) {
            if case .frame(let f)? = decoder.feed(e) { frames.append(f) }
        }
        #expect(frames.map { $0.touches.map { decoder.device.raw($0.position).x } } == [[1], [2], [3]])
    }
}
