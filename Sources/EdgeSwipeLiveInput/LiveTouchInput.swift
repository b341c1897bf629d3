import CInput
public import EdgeSwipeCore
public import EdgeSwipeInput
public import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Live touch devices: touchscreens through libinput, touchpads through libevdev beside it.
///
/// libinput finds every device (udev backend on a seat, with hotplug; or the path backend for explicit nodes)
/// and asks EdgeSwipe to open each one. Only touchscreens and touchpads that the ``DeviceFilter`` accepts are
/// opened; keyboards, mice and devices tagged `EDGESWIPE_IGNORE=1` never are. Touchscreens are read through
/// libinput's touch events (its calibration matrix carries the configured calibration and rotation). libinput
/// gives touchpads no finger positions, so each touchpad is also opened with libevdev, not grabbed (the desktop
/// keeps its pointer), and decoded by the same ``EvdevFrameDecoder`` as recordings. Of libinput's own events for a
/// touchpad only its swipe gestures are read (``InputStep/Input/swipe(_:_:)``): libinput decides their finger
/// count, thumbs, palms and the two-finger scroll; its pointer, scroll, pinch and hold events are not ours.
///
/// Everything runs on the caller's thread: poll ``pollDescriptors`` for readability, then call ``drain(now:_:)``,
/// which never blocks. Not `Sendable`: it belongs to the thread that polls it.
public final class LiveTouchInput {
    /// Where libinput finds devices.
    public enum Backend: Hashable, Sendable {
        /// Every device of a seat, with hotplug.
        case udev(seat: String)
        /// Exactly these event nodes (`--device /dev/input/eventN`).
        case paths([String])
    }

    private struct Entry {
        let libinputDevice: LibinputDevice
        let description: EvdevDeviceDescription
        var device: TouchDevice
        var setup: DeviceSetup
        /// libinput's own size, which the configured setup may override.
        let libinputSize: MillimeterSize?
        var assembler: TouchFrameAssembler
        let touchpad: EvdevTouchpad?
    }

    private let context: LibinputContext
    /// The seat of the udev backend; `nil` for explicit nodes.
    private let seat: String?
    private let logger: Logger
    private var setup: DeviceSetupProvider
    private var entries: [OpaquePointer: Entry] = [:]
    private var nextID: UInt32

    /// Sets up libinput; devices appear as ``InputStep/Input/deviceAdded(_:)`` on the first ``drain(now:_:)``.
    ///
    /// - Parameters:
    ///   - setup: each device's mounting and size (the configuration's rotation and calibration).
    ///   - firstDeviceID: ids are given in the order devices appear and never reused.
    public init(
        backend: Backend, filter: DeviceFilter = DeviceFilter(),
        setup: @escaping DeviceSetupProvider = { _, _, _ in DeviceSetup() },
        logger: Logger, firstDeviceID: UInt32 = 1
    ) throws(LiveInputError) {
        self.logger = logger
        self.setup = setup
        self.nextID = firstDeviceID
        let callbacks = LibinputCallbacks(udev: try UdevContext(), filter: filter, logger: logger)
        switch backend {
        case .udev(let seat):
            self.seat = seat
            context = try LibinputContext(backend: .udev(seat: seat), callbacks: callbacks)
        case .paths(let paths):
            self.seat = nil
            context = try LibinputContext(backend: .path, callbacks: callbacks)
            for path in paths {
                if let refusal = callbacks.refusal(path: path) { throw .libinput("\(path): \(refusal)") }
                if context.addPath(path) == nil {
                    throw .libinput("\(path): " + (callbacks.rejected[path]?.description ?? "libinput did not add it (see its log)"))
                }
            }
        }
    }

    deinit {
        // Device references go before the context: libinput frees its devices with the context.
        entries.removeAll()
    }

    /// The descriptors to poll for readability: libinput's, and one per touchpad.
    public var pollDescriptors: [Int32] {
        [context.fd] + entries.values.compactMap { $0.touchpad?.node.fd }.sorted()
    }

    /// The touch devices open now, in id order.
    public var devices: [TouchDevice] { entries.values.map(\.device).sorted { $0.id < $1.id } }

    /// Why no touch device is open, when none is: what libinput offered and why each was not opened. `nil` while
    /// one is open.
    public var noTouchDevice: NoTouchDevice? {
        guard entries.isEmpty else { return nil }
        return NoTouchDevice(unopened: context.callbacks.rejected.keys.sorted().compactMap { context.callbacks.rejected[$0] }, seat: seat)
    }

    /// Reads everything pending, without blocking, and hands each input to `handle` as it is decoded (so that
    /// decoding does not allocate). Devices added or removed are stamped `now`; touches carry their kernel time.
    public func drain(now: MonotonicInstant, _ handle: (InputStep) -> Void) throws(LiveInputError) {
        try context.dispatch()
        while let event = libinput_get_event(context.handle) {
            process(event, now: now, handle)
            libinput_event_destroy(event)
        }
        for (key, entry) in entries {
            guard let touchpad = entry.touchpad else { continue }
            if case .failed(let code) = touchpad.drain(handle) {
                logger.info("\(touchpad.node.path) \"\(entry.device.name)\": \(code == ENODEV ? "removed" : "read failed: \(String(cString: strerror(code)))")")
                remove(key, now: now, handle)
            }
        }
    }

    /// The same, collected into an array (convenient; the closure form avoids copying frames).
    public func drain(now: MonotonicInstant) throws(LiveInputError) -> [InputStep] {
        var steps: [InputStep] = []
        try drain(now: now) { steps.append($0) }
        return steps
    }

    /// Applies a new mounting (rotation, calibration, size) to every device, at runtime. Touchscreens get a new
    /// libinput calibration matrix. The engine has no way to change a device in place, so each changed device is
    /// removed (cancelling a gesture in flight) and added again with its new geometry; its touches down now are
    /// ignored until they lift.
    public func update(setup newSetup: @escaping DeviceSetupProvider, now: MonotonicInstant, _ handle: (InputStep) -> Void) {
        setup = newSetup
        for key in entries.keys.sorted(by: { (entries[$0]?.device.id ?? DeviceID(0)) < (entries[$1]?.device.id ?? DeviceID(0)) }) {
            guard var entry = entries[key] else { continue }
            let wanted = resolvedSetup(entry.description, kind: entry.device.kind, libinputSize: entry.libinputSize)
            guard wanted != entry.setup else { continue }
            entry.setup = wanted
            entry.device.rotation = wanted.rotation
            entry.device.calibration = wanted.calibration
            entry.device.assumedSize = wanted.assumedSize ?? TouchDevice.defaultAssumedSize(for: entry.device.kind)
            entry.device.reportedSize = wanted.reportedSize
            if let touchpad = entry.touchpad {
                touchpad.decoder.update(device: entry.device)
                touchpad.decoder.forgetTouches()
            } else {
                applyCalibration(entry.libinputDevice, setup: wanted, name: entry.device.name)
                entry.assembler.reset()
            }
            entries[key] = entry
            handle(InputStep(time: now, input: .deviceRemoved(entry.device.id)))
            handle(InputStep(time: now, input: .deviceAdded(entry.device)))
        }
    }

    /// Whether ``suspend(now:_:)`` was called and ``resume()`` not yet.
    public private(set) var isSuspended = false

    /// The machine is about to sleep (logind's `PrepareForSleep(true)`): libinput lets go of every device
    /// (`libinput_suspend`), and each is reported removed now, so that a gesture in flight is cancelled cleanly
    /// and no touch half-seen before the sleep is taken up after it. The touchpads' libevdev nodes close with them.
    public func suspend(now: MonotonicInstant, _ handle: (InputStep) -> Void) {
        guard !isSuspended else { return }
        isSuspended = true
        libinput_suspend(context.handle)
        // libinput queues a DEVICE_REMOVED for each device; take them (and anything read before them) now.
        do { try drain(now: now, handle) } catch { logger.error("input: \(error)") }
        // Whatever libinput did not report (a device it never added for us) is gone too.
        for key in entries.keys.sorted(by: { (entries[$0]?.device.id ?? DeviceID(0)) < (entries[$1]?.device.id ?? DeviceID(0)) }) {
            remove(key, now: now, handle)
        }
    }

    /// The machine woke (`PrepareForSleep(false)`): libinput opens the seat's devices again
    /// (`libinput_resume`), as they are now. Each comes back as a new ``InputStep/Input/deviceAdded(_:)`` on the
    /// next ``drain(now:_:)``, with a new id, its overrides and, by its identity, the rotation a client set; a
    /// touch controller that re-enumerated under another node is found the same way.
    public func resume() {
        guard isSuspended else { return }
        isSuspended = false
        if libinput_resume(context.handle) != 0 {
            logger.error("libinput_resume failed: devices may be missing until they are plugged in again")
        }
    }

    // MARK: - libinput events

    private func process(_ event: OpaquePointer, now: MonotonicInstant, _ handle: (InputStep) -> Void) {
        guard let device = libinput_event_get_device(event) else { return }
        let type = libinput_event_get_type(event)
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED:
            added(device, now: now, handle)
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            if let path = LibinputDevice(device, context: context).udevDevice?.node { context.callbacks.forget(path: path) }
            remove(device, now: now, handle)
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION, LIBINPUT_EVENT_TOUCH_UP, LIBINPUT_EVENT_TOUCH_CANCEL,
            LIBINPUT_EVENT_TOUCH_FRAME:
            guard var entry = entries[device], entry.touchpad == nil, let touch = libinput_event_get_touch_event(event) else { return }
            if type == LIBINPUT_EVENT_TOUCH_FRAME {
                let time = MonotonicInstant(microseconds: libinput_event_touch_get_time_usec(touch))
                if let frame = entry.assembler.endFrame(at: time) {
                    entries[device] = entry
                    handle(InputStep(time: time, input: .frame(frame)))
                    return
                }
            } else {
                let phase: TouchPhase =
                    switch type {
                    case LIBINPUT_EVENT_TOUCH_DOWN: .down
                    case LIBINPUT_EVENT_TOUCH_MOTION: .motion
                    case LIBINPUT_EVENT_TOUCH_UP: .up
                    default: .cancel
                    }
                // Single-touch devices have no slot (-1): their one touch is 0.
                let slot = max(0, libinput_event_touch_get_slot(touch))
                var position: NormalizedPoint? = nil
                if phase == .down || phase == .motion {
                    position = NormalizedPoint(
                        x: libinput_event_touch_get_x_transformed(touch, 1), y: libinput_event_touch_get_y_transformed(touch, 1))
                }
                entry.assembler.touch(phase, slot: slot, position: position)
            }
            entries[device] = entry
        case LIBINPUT_EVENT_GESTURE_SWIPE_BEGIN, LIBINPUT_EVENT_GESTURE_SWIPE_UPDATE, LIBINPUT_EVENT_GESTURE_SWIPE_END:
            guard let entry = entries[device], entry.touchpad != nil, let gesture = libinput_event_get_gesture_event(event) else { return }
            let time = MonotonicInstant(microseconds: libinput_event_gesture_get_time_usec(gesture))
            let input: SwipeGestureInput
            switch type {
            case LIBINPUT_EVENT_GESTURE_SWIPE_BEGIN:
                input = .begin(fingers: Int(libinput_event_gesture_get_finger_count(gesture)))
            case LIBINPUT_EVENT_GESTURE_SWIPE_UPDATE:
                input = .update(delta: Self.swipeDelta(
                    dx: libinput_event_gesture_get_dx_unaccelerated(gesture), dy: libinput_event_gesture_get_dy_unaccelerated(gesture),
                    rotation: entry.device.rotation))
            default:
                input = .end(cancelled: libinput_event_gesture_get_cancelled(gesture) != 0)
            }
            handle(InputStep(time: time, input: .swipe(entry.device.id, input)))
        default:
            // Pointer, scroll, pinch, hold and keyboard events (a touchpad's pointer, a touchscreen's buttons): not
            // ours.
            return
        }
    }

    /// libinput's unaccelerated touchpad delta, in millimetres of finger travel in the user's orientation.
    /// libinput 1.22 normalizes touchpad deltas to 1000 dpi and scales them by its constant touchpad filter
    /// (`touchpad_constant_filter`, `src/filter-touchpad.c`): 10.52 units per mm
    /// (``SwipeSettings/libinputUnitsPerMillimeter``). The pad's rotation turns the vector as it turns positions.
    static func swipeDelta(dx: Double, dy: Double, rotation: Rotation) -> MillimeterVector {
        let k = SwipeSettings.libinputUnitsPerMillimeter
        return rotation.apply(MillimeterVector(x: dx.isFinite ? dx / k : 0, y: dy.isFinite ? dy / k : 0))
    }

    private func added(_ pointer: OpaquePointer, now: MonotonicInstant, _ handle: (InputStep) -> Void) {
        let device = LibinputDevice(pointer, context: context)
        guard let path = device.udevDevice?.node, let accepted = context.callbacks.accepted[path] else {
            logger.debug("libinput added \"\(device.name)\", which EdgeSwipe did not open")
            return
        }
        guard var description = accepted.description else {
            logger.error("\(path) \"\(device.name)\": its description could not be read; ignored")
            return
        }
        description.udevProperties = accepted.candidate.properties
        let id = DeviceID(nextID)
        let libinputSize = device.size
        let deviceSetup = resolvedSetup(description, kind: accepted.kind, libinputSize: libinputSize)
        do throws(LiveInputError) {
            var touchDevice: TouchDevice
            var touchpad: EvdevTouchpad? = nil
            switch accepted.kind {
            case .touchscreen:
                guard device.hasTouch else {
                    logger.info("\(path) \"\(device.name)\": libinput gives it no touch events; ignored")
                    return
                }
                touchDevice = try makeTouchDevice(description, id: id, path: path, setup: deviceSetup)
                applyCalibration(device, setup: deviceSetup, name: touchDevice.name)
            case .touchpad:
                let pad = try EvdevTouchpad(node: try EventNode(path: path)) { (d: EvdevDeviceDescription) throws(LiveInputError) -> TouchDevice in
                    var d = d
                    d.udevProperties = description.udevProperties
                    return try self.makeTouchDevice(d, id: id, path: path, setup: deviceSetup)
                }
                touchDevice = pad.decoder.device
                touchpad = pad
            }
            touchDevice.kind = accepted.kind
            touchpad?.decoder.update(device: touchDevice)
            nextID += 1
            entries[pointer] = Entry(
                libinputDevice: device, description: description, device: touchDevice, setup: deviceSetup,
                libinputSize: libinputSize, assembler: TouchFrameAssembler(device: id), touchpad: touchpad)
            logger.info("\(path) \"\(touchDevice.name)\": \(touchDevice.kind) \(touchDevice.id)")
            handle(InputStep(time: now, input: .deviceAdded(touchDevice)))
        } catch {
            logger.error("\(error)")
        }
    }

    private func makeTouchDevice(
        _ description: EvdevDeviceDescription, id: DeviceID, path: String, setup: DeviceSetup
    ) throws(LiveInputError) -> TouchDevice {
        do {
            return try description.touchDevice(id: id, path: path, setup: setup)
        } catch {
            throw .device(path: path, error)
        }
    }

    /// The configured setup, with libinput's size where the configuration names none.
    private func resolvedSetup(_ description: EvdevDeviceDescription, kind: DeviceKind, libinputSize: MillimeterSize?) -> DeviceSetup {
        var s = setup(description.name, description.udevProperties, kind)
        if s.reportedSize == nil { s.reportedSize = libinputSize }
        return s
    }

    private func applyCalibration(_ device: LibinputDevice, setup: DeviceSetup, name: String) {
        let matrix = LibinputCalibration.matrix(rotation: setup.rotation, calibration: setup.calibration)
        if !device.setCalibration(matrix) && (setup.rotation != .degrees0 || setup.calibration != nil) {
            logger.warning("\"\(name)\": libinput has no calibration matrix for it; rotation and calibration not applied")
        }
    }

    private func remove(_ key: OpaquePointer, now: MonotonicInstant, _ handle: (InputStep) -> Void) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        logger.info("\(entry.device.path) \"\(entry.device.name)\": removed")
        handle(InputStep(time: now, input: .deviceRemoved(entry.device.id)))
    }
}
