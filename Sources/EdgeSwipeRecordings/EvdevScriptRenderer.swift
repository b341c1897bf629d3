public import EdgeSwipeCore
public import EdgeSwipeInput
public import EdgeSwipeFingerScript

/// The kernel's events for scripted fingers, as an MT protocol B device sends them: the events the demo
/// recording, the benchmarks' synthetic stream and the tests' recordings are made of. `scripts/e2e/make-scenarios.py`
/// follows the same rules, event for event (a test compares them).
///
/// Per instant of the script, one frame:
/// - each sample in order: `ABS_MT_SLOT` when the slot changes (slot 0 is current at first); a landing's
///   `ABS_MT_TRACKING_ID` (the sample's, or the next unused); `ABS_MT_POSITION_X`/`_Y` only where the value
///   changed from the slot's last one (the kernel filters the rest); a lift's `ABS_MT_TRACKING_ID -1`;
/// - then the pointer emulation, `ABS_X`/`ABS_Y` of the oldest finger still down, where they changed;
/// - then `BTN_TOUCH` when the first finger lands or the last lifts, and the `BTN_TOOL_*` of the finger count when
///   it changes (each only if the device has the key);
/// - then `SYN_REPORT`, unless the frame changed nothing (a finger at rest sends no frames).
///
/// Positions are rounded half away from zero. Out-of-range positions are written as they are: real devices
/// report them too.
public enum EvdevScriptRenderer {
    public static func events(
        _ script: FingerScript, on device: EvdevDeviceDescription, origin: MonotonicInstant = .zero
    ) -> [EvdevEvent] {
        var state = State(device: device)
        var i = 0
        let samples = script.samples
        while i < samples.count {
            let time = origin.advanced(by: samples[i].time)
            var j = i
            while j < samples.count && samples[j].time == samples[i].time { j += 1 }
            state.frame(samples[i..<j], at: time)
            i = j
        }
        return state.events
    }

    private struct State {
        let hasSlots: Bool
        let hasPointer: Bool
        let keys: Set<UInt16>
        var events: [EvdevEvent] = []
        var currentSlot: Int32 = 0
        var last: [Int32: RawPoint] = [:]
        /// Fingers down, oldest first.
        var active: [Int32] = []
        var usedTrackingIDs: Int32 = 0
        var pointer: RawPoint? = nil
        var tool: UInt16? = nil

        init(device: EvdevDeviceDescription) {
            hasSlots = device.absInfo[EvdevAbs.mtSlot] != nil && device.absInfo[EvdevAbs.mtPositionX] != nil
            hasPointer = device.absInfo[EvdevAbs.x] != nil && device.absInfo[EvdevAbs.y] != nil
            keys = device.keys
        }

        static func tool(for fingers: Int) -> UInt16? {
            switch fingers {
            case 0: nil
            case 1: EvdevKey.btnToolFinger
            case 2: EvdevKey.btnToolDoubleTap
            case 3: EvdevKey.btnToolTripleTap
            case 4: EvdevKey.btnToolQuadTap
            default: EvdevKey.btnToolQuintTap
            }
        }

        mutating func emit(_ time: MonotonicInstant, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(EvdevEvent(time: time, type: type, code: code, value: value))
        }

        mutating func position(_ finger: Int32, _ p: RawPoint, at time: MonotonicInstant) {
            let old = last[finger]
            if hasSlots {
                if old?.x != p.x { emit(time, EvdevType.abs, EvdevAbs.mtPositionX, p.x) }
                if old?.y != p.y { emit(time, EvdevType.abs, EvdevAbs.mtPositionY, p.y) }
            }
            last[finger] = p
        }

        mutating func frame(_ samples: ArraySlice<FingerScript.Sample>, at time: MonotonicInstant) {
            let before = events.count
            let fingersBefore = active.count
            for s in samples {
                let down = active.contains(s.finger)
                switch s.phase {
                case .down where !down, .motion where down, .up where down, .cancel where down:
                    break
                case .down, .motion, .up, .cancel:
                    // A finger that lands twice or moves without landing: not something a device sends.
                    continue
                }
                if hasSlots && s.finger != currentSlot {
                    emit(time, EvdevType.abs, EvdevAbs.mtSlot, s.finger)
                    currentSlot = s.finger
                }
                switch s.phase {
                case .down:
                    let id = s.trackingID ?? usedTrackingIDs + 1
                    usedTrackingIDs = max(usedTrackingIDs, id)
                    if hasSlots { emit(time, EvdevType.abs, EvdevAbs.mtTrackingID, id) }
                    position(s.finger, s.raw, at: time)
                    active.append(s.finger)
                case .motion:
                    position(s.finger, s.raw, at: time)
                case .up, .cancel:
                    if hasSlots { emit(time, EvdevType.abs, EvdevAbs.mtTrackingID, -1) }
                    active.removeAll { $0 == s.finger }
                }
            }
            if hasPointer, let oldest = active.first, let p = last[oldest] {
                if pointer?.x != p.x { emit(time, EvdevType.abs, EvdevAbs.x, p.x) }
                if pointer?.y != p.y { emit(time, EvdevType.abs, EvdevAbs.y, p.y) }
                pointer = p
            }
            if keys.contains(EvdevKey.btnTouch) && (fingersBefore == 0) != active.isEmpty {
                emit(time, EvdevType.key, EvdevKey.btnTouch, active.isEmpty ? 0 : 1)
            }
            let newTool = Self.tool(for: active.count)
            if newTool != tool {
                if let old = tool, keys.contains(old) { emit(time, EvdevType.key, old, 0) }
                if let new = newTool, keys.contains(new) { emit(time, EvdevType.key, new, 1) }
                tool = newTool
            }
            if events.count > before { events.append(.report(at: time)) }
        }
    }
}
