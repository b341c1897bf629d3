public import EdgeSwipeCore

// Rotation at run time, for every source alike (libinput touchscreens, libevdev touchpads, recordings): the one
// stage between the source's steps and the engine, which turns each step and hands it to the engine's entry point
// for it. Sources keep normalizing with the configured rotation (libinput's matrix included); this stage turns each
// touch further by the difference to the rotation in force, and tells the engine about a change only between touch
// sequences.

/// Why a `set-rotation` names no device.
public enum RotationRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownDevice(DeviceID)
    case unknownOutput(String, known: [String])
    case noTouchscreen

    /// The protocol's error code.
    public var code: String {
        switch self {
        case .unknownDevice: "unknown-device"
        case .unknownOutput: "unknown-output"
        case .noTouchscreen: "no-device"
        }
    }

    public var description: String {
        switch self {
        case .unknownDevice(let id): "no device has id \(id.rawValue) (see the devices op)"
        case .unknownOutput(let name, let known):
            "no touchscreen drives output \"\(name)\"" + (known.isEmpty ? " (no touchscreen names its output)" : " (known: \(known.joined(separator: ", ")))")
        case .noTouchscreen: "there is no touchscreen to rotate"
        }
    }
}

/// What a `set-rotation` did: devices whose new rotation is in force now, and devices with a finger down that get
/// it when every finger has lifted.
public struct RotationOutcome: Hashable, Sendable {
    public var applied: [DeviceID]
    public var pending: [DeviceID]
    public init(applied: [DeviceID] = [], pending: [DeviceID] = []) {
        self.applied = applied
        self.pending = pending
    }
}

/// A rotation a client set for a device, remembered by the device's identity (so that it survives a new node, a
/// resume and a restart).
public struct RememberedRotation: Hashable, Sendable, Codable {
    public var device: DeviceIdentity
    public var rotation: Rotation
    public init(device: DeviceIdentity, rotation: Rotation) {
        self.device = device
        self.rotation = rotation
    }
}

/// The rotation in force for every device, and the stage that applies it on the way to the engine.
///
/// A device's rotation is, in order: the one a client set for it (`set-rotation`, until a `set-rotation` with
/// `auto` names it), else the accelerometer's latest reading for a device configured `rotation = "auto"`, else the
/// configured rotation (what the source normalized with). A change takes effect between touch sequences: on a
/// device with a finger down it waits until the last finger lifts, so a gesture never changes orientation half
/// way. The engine hears of it as ``InputStep/Input/deviceChanged(_:)``, which it announces as a `device` event.
public struct RotationControl: Sendable {
    private struct Slot: Sendable {
        /// As the engine knows it: the rotation in force.
        var device: TouchDevice
        /// The rotation the source normalizes with.
        var source: Rotation
        /// Touches reported down and not yet lifted.
        var down: Set<Int32> = []
        /// A rotation waiting for the last finger to lift.
        var pending: Rotation?
    }

    /// In the order devices were added (for stable replies and logs).
    private var slots: [Slot] = []
    /// What clients set, oldest first, at most ``StateLimits/maxRememberedRotations``.
    public private(set) var remembered: [RememberedRotation]
    /// The accelerometer's latest reading (kept when iio-sensor-proxy goes away).
    public private(set) var accelerometer: Rotation?
    /// Reused for turned frames, so that a rotated device's touches do not allocate.
    private var scratch = TouchFrame(device: DeviceID(0), time: .zero, touches: [])

    public init(remembered: [RememberedRotation] = []) {
        var unique: [RememberedRotation] = []
        for r in remembered {
            unique.removeAll { $0.device == r.device }
            unique.append(r)
        }
        self.remembered = Array(unique.suffix(StateLimits.maxRememberedRotations))
        scratch.touches.reserveCapacity(10)
    }

    /// The devices as the engine knows them, in the order they were added.
    public var devices: [TouchDevice] { slots.map(\.device) }

    /// Whether any device present follows the accelerometer.
    public var followsAccelerometer: Bool { slots.contains { $0.device.followsAccelerometer } }

    // MARK: - To the engine

    /// Hands `step` to the engine, turned as the rotation in force says; then, when it lifted the last finger of a
    /// device whose new rotation was waiting for that, the device's change. The input thread's whole path from a
    /// source to the engine.
    public mutating func feed(_ step: InputStep, to engine: inout Engine, into events: inout [EngineEvent]) {
        pass(step) { $0.apply(to: &engine, into: &events) }
    }

    /// A client's `set-rotation`: remembers it for each device named (or forgets what was set, for
    /// ``RotationSetting/automatic``), and turns each now (the engine hears of it at once) or, on a device with a
    /// finger down, when the last one lifts.
    public mutating func set(
        _ setting: RotationSetting, on target: RotationTarget, at time: MonotonicInstant, to engine: inout Engine,
        into events: inout [EngineEvent]
    ) throws(RotationRefusal) -> RotationOutcome {
        try set(setting, on: target, at: time) { $0.apply(to: &engine, into: &events) }
    }

    /// The accelerometer's new reading, for devices configured `rotation = "auto"` that no client has rotated; the
    /// engine hears at once of a device it turns now.
    public mutating func accelerometerChanged(
        _ rotation: Rotation, at time: MonotonicInstant, to engine: inout Engine, into events: inout [EngineEvent]
    ) {
        accelerometerChanged(rotation, at: time) { $0.apply(to: &engine, into: &events) }
    }

    // MARK: - Steps from the sources

    /// Hands `step` on to `sink`, turned as the rotation in force says; applies a rotation that was waiting for
    /// the last finger of a device to lift right after the frame that lifted it. (The tests read the steps here.)
    mutating func pass(_ step: InputStep, to sink: (InputStep) -> Void) {
        switch step.input {
        case .deviceAdded(var device):
            slots.removeAll { $0.device.id == device.id }
            let source = device.rotation
            device.rotation = rotation(for: device, source: source)
            slots.append(Slot(device: device, source: source))
            sink(InputStep(time: step.time, input: .deviceAdded(device)))
        case .deviceRemoved(let id):
            slots.removeAll { $0.device.id == id }
            sink(step)
        case .deviceChanged:
            sink(step)
        case .swipe(let id, let input):
            // libinput's swipe deltas were turned with the configured rotation, as the frames were: turn them by
            // the difference too.
            guard let i = index(id), case .update(let delta) = input else {
                sink(step)
                return
            }
            let turn = slots[i].device.rotation.relative(to: slots[i].source)
            sink(turn == .degrees0 ? step : InputStep(time: step.time, input: .swipe(id, .update(delta: turn.apply(delta)))))
        case .eventsLost(let id):
            sink(step)
            // The source trusts none of the touches down now and reports nothing more of them.
            guard let i = index(id) else { return }
            slots[i].down.removeAll()
            applyPending(i, at: step.time, sink)
        case .frame(let frame):
            guard let i = index(frame.device) else {
                sink(step)
                return
            }
            for touch in frame.touches {
                switch touch.phase {
                case .down: slots[i].down.insert(touch.id)
                case .motion: break
                case .up, .cancel: slots[i].down.remove(touch.id)
                }
            }
            let turn = slots[i].device.rotation.relative(to: slots[i].source)
            if turn == .degrees0 {
                sink(step)
            } else {
                scratch.device = frame.device
                scratch.time = frame.time
                scratch.touches.removeAll(keepingCapacity: true)
                for touch in frame.touches {
                    scratch.touches.append(Touch(id: touch.id, phase: touch.phase, position: turn.apply(touch.position)))
                }
                sink(InputStep(time: step.time, input: .frame(scratch)))
            }
            if slots[i].down.isEmpty { applyPending(i, at: step.time, sink) }
        }
    }

    // MARK: - Changes

    /// A client's `set-rotation`: remembers it for each device named (or forgets what was set, for
    /// ``RotationSetting/automatic``), and applies it now or, on a device with a finger down, when the last one
    /// lifts.
    mutating func set(
        _ setting: RotationSetting, on target: RotationTarget, at time: MonotonicInstant, _ sink: (InputStep) -> Void
    ) throws(RotationRefusal) -> RotationOutcome {
        let chosen = try indices(of: target)
        for i in chosen {
            let identity = slots[i].device.identity
            remembered.removeAll { $0.device == identity }
            if case .fixed(let r) = setting {
                remembered.append(RememberedRotation(device: identity, rotation: r))
                if remembered.count > StateLimits.maxRememberedRotations { remembered.removeFirst() }
            }
        }
        var outcome = RotationOutcome()
        for i in chosen {
            if reconsider(i, at: time, sink) {
                outcome.applied.append(slots[i].device.id)
            } else {
                outcome.pending.append(slots[i].device.id)
            }
        }
        return outcome
    }

    /// The accelerometer's new reading, for devices configured `rotation = "auto"` that no client has rotated.
    mutating func accelerometerChanged(_ rotation: Rotation, at time: MonotonicInstant, _ sink: (InputStep) -> Void) {
        accelerometer = rotation
        for i in slots.indices where slots[i].device.followsAccelerometer { _ = reconsider(i, at: time, sink) }
    }

    // MARK: - Inside

    private func index(_ id: DeviceID) -> Int? { slots.firstIndex { $0.device.id == id } }

    private func indices(of target: RotationTarget) throws(RotationRefusal) -> [Int] {
        switch target {
        case .device(let id):
            guard let i = index(id) else { throw .unknownDevice(id) }
            return [i]
        case .allTouchscreens:
            let found = slots.indices.filter { slots[$0].device.kind == .touchscreen }
            guard !found.isEmpty else { throw .noTouchscreen }
            return found
        case .output(let name):
            let found = slots.indices.filter { slots[$0].device.kind == .touchscreen && slots[$0].device.output == name }
            guard !found.isEmpty else {
                throw .unknownOutput(name, known: Array(Set(slots.compactMap(\.device.output))).sorted())
            }
            return found
        }
    }

    /// The rotation in force for a device the source normalizes with `source`.
    private func rotation(for device: TouchDevice, source: Rotation) -> Rotation {
        if let set = remembered.last(where: { $0.device == device.identity }) { return set.rotation }
        if device.followsAccelerometer, let accelerometer { return accelerometer }
        return source
    }

    /// Brings a device to the rotation in force: now (true) or, with a finger down, once the last one lifts (false).
    private mutating func reconsider(_ i: Int, at time: MonotonicInstant, _ sink: (InputStep) -> Void) -> Bool {
        let wanted = rotation(for: slots[i].device, source: slots[i].source)
        guard wanted != slots[i].device.rotation else {
            slots[i].pending = nil
            return true
        }
        slots[i].pending = wanted
        guard slots[i].down.isEmpty else { return false }
        applyPending(i, at: time, sink)
        return true
    }

    private mutating func applyPending(_ i: Int, at time: MonotonicInstant, _ sink: (InputStep) -> Void) {
        guard let wanted = slots[i].pending else { return }
        slots[i].pending = nil
        guard wanted != slots[i].device.rotation else { return }
        slots[i].device.rotation = wanted
        sink(InputStep(time: time, input: .deviceChanged(slots[i].device)))
    }
}
