// libFuzzer target: the evdev frame decoder, on random event sequences for random devices: protocol B with any
// slot count, protocol A, single-touch; slots and tracking ids out of range, positions anywhere in Int32,
// SYN_DROPPED anywhere, libevdev resync events, raw events of any type and code, timestamps that jump and step
// back. The frames go on into an engine. Checked, besides "no crash":
// - every touch is inside 0...1;
// - per slot, in order: down, then motion, then up or cancel; never motion/up without a down, never down twice;
// - the engine's stream keeps its invariants, and once the device is removed nothing runs.
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvdevFrames(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var input = FuzzBytes(data, count: count)
    let shape = input.u8()
    let touchProtocol: TouchProtocol =
        switch shape % 4 {
        case 0, 1: .multitouchB(slots: Int(input.u8() % 70))
        case 2: .multitouchA
        default: .singleTouch
        }
    let kind: DeviceKind = shape & 0x10 == 0 ? .touchscreen : .touchpad
    func axis() -> AxisRange {
        let minimum: Int32 = shape & 0x20 == 0 ? 0 : -Int32(input.u16())
        let maximum = minimum &+ Int32(input.u16())
        return AxisRange(minimum: minimum, maximum: maximum, resolution: Int32(input.u8() % 64))
    }
    let x = axis(), y = axis()
    let rotation = Rotation.allCases[Int(shape >> 6) % Rotation.allCases.count]
    let device = TouchDevice(id: DeviceID(1), name: "fuzz", kind: kind, x: x, y: y, rotation: rotation, path: "fuzz")
    guard var decoder = try? EvdevFrameDecoder(protocol: touchProtocol, device: device, hasTouchKey: shape & 0x08 != 0) else {
        return 0
    }

    var engine = Engine(configuration: .default)
    var events: [EngineEvent] = []
    var check = EngineStreamCheck()
    var down: Set<Int32> = []
    var time = MonotonicInstant(microseconds: 1_000_000)
    engine.addDevice(device, at: time, into: &events)

    func deliver(_ output: EvdevFrameDecoder.Output?) {
        switch output {
        case nil: return
        case .eventsLost(let id, let at)?:
            precondition(id == device.id)
            down.removeAll()
            engine.eventsLost(on: id, at: at, into: &events)
        case .frame(let frame)?:
            precondition(frame.device == device.id)
            // A slot may appear more than once in a frame, in order: a touch that landed and lifted within the frame
            // is a tap (down, up), and a new one may land in the same slot (down).
            for touch in frame.touches {
                let p = touch.position
                precondition(p.x >= 0 && p.x <= 1 && p.y >= 0 && p.y <= 1, "touch outside 0...1: \(p)")
                switch touch.phase {
                case .down: precondition(down.insert(touch.id).inserted, "slot \(touch.id) down twice")
                case .motion: precondition(down.contains(touch.id), "motion of slot \(touch.id), which is not down")
                case .up, .cancel: precondition(down.remove(touch.id) != nil, "\(touch.phase) of slot \(touch.id), which is not down")
                }
            }
            RecordingPlayer.runDeadlines(of: &engine, before: frame.time, into: &events)
            engine.handle(frame, into: &events)
        }
        for e in events { check.check(e) }
        events.removeAll(keepingCapacity: true)
    }

    var steps = 0
    while !input.isEmpty && steps < 20_000 {
        steps += 1
        let op = input.u8()
        // The high bits move the clock: mostly forward a little, sometimes far, rarely back.
        switch op >> 5 {
        case 0, 1, 2, 3: time = time.advanced(by: Microseconds(Int64(op >> 5) * 4_000))
        case 4, 5: time = time.advanced(by: Microseconds(Int64(input.u16())))
        case 6: time = time.advanced(by: Microseconds(Int64(input.u16()) * 1_000))
        default: time = MonotonicInstant(microseconds: time.microseconds &- min(time.microseconds, UInt64(input.u16())))
        }
        let (type, code, value): (UInt16, UInt16, Int32)
        switch op & 0x1f {
        case 0, 1, 2, 3: (type, code, value) = (EvdevType.syn, EvdevSyn.report, 0)
        case 4: (type, code, value) = (EvdevType.syn, EvdevSyn.dropped, 0)
        case 5: (type, code, value) = (EvdevType.syn, EvdevSyn.mtReport, 0)
        case 6, 7: (type, code, value) = (EvdevType.abs, EvdevAbs.mtSlot, Int32(Int8(bitPattern: input.u8())))
        case 8, 9: (type, code, value) = (EvdevType.abs, EvdevAbs.mtTrackingID, input.u8() < 96 ? -1 : Int32(input.u16()))
        case 10, 11, 12: (type, code, value) = (EvdevType.abs, EvdevAbs.mtPositionX, input.coordinate(x))
        case 13, 14, 15: (type, code, value) = (EvdevType.abs, EvdevAbs.mtPositionY, input.coordinate(y))
        case 16, 17: (type, code, value) = (EvdevType.abs, EvdevAbs.x, input.coordinate(x))
        case 18, 19: (type, code, value) = (EvdevType.abs, EvdevAbs.y, input.coordinate(y))
        case 20, 21: (type, code, value) = (EvdevType.key, EvdevKey.btnTouch, Int32(input.u8() % 3))
        case 22: (type, code, value) = (EvdevType.key, EvdevKey.btnToolFinger, Int32(input.u8() % 3))
        case 23: (type, code, value) = (EvdevType.key, EvdevKey.btnToolQuintTap, Int32(input.u8() % 2))
        case 24: (type, code, value) = (EvdevType.abs, EvdevAbs.mtPressure, input.i32())
        case 25:
            // libevdev's resync events, delivered after a loss on live devices.
            let t = input.u8() % 3
            let resync = EvdevEvent(
                time: time, type: [EvdevType.abs, EvdevType.key, EvdevType.syn][Int(t)],
                code: [EvdevAbs.mtSlot, EvdevAbs.mtTrackingID, EvdevAbs.mtPositionX, EvdevAbs.mtPositionY, EvdevKey.btnTouch, EvdevSyn.report][Int(input.u8() % 6)],
                value: Int32(Int16(bitPattern: input.u16())))
            deliver(decoder.feedResync(resync))
            continue
        case 26:
            engine.removeDevice(device.id, at: time, into: &events)
            down.removeAll()
            decoder.forgetTouches()
            engine.addDevice(device, at: time, into: &events)
            for e in events { check.check(e) }
            events.removeAll(keepingCapacity: true)
            continue
        default: (type, code, value) = (input.u16() % EvdevType.count, input.u16(), input.i32())
        }
        deliver(decoder.feed(time: time, type: type, code: code, value: value))
    }
    precondition(decoder.touchesDown >= 0)
    engine.removeDevice(device.id, at: time, into: &events)
    RecordingPlayer.runDeadlines(of: &engine, before: nil, into: &events)
    for e in events { check.check(e) }
    check.checkQuiet(engine)
    return 0
}
