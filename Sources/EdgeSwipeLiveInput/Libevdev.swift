import CInput
import EdgeSwipeCore
import EdgeSwipeInput
import Glibc
import EdgeSwipeSystem
import SystemPackage

// libevdev, each pointer owned by one final class and released in its deinit.

/// A libevdev view of an open event node (`struct libevdev`); it does not own the descriptor.
final class Libevdev {
    let handle: OpaquePointer

    init(fd: Int32, path: String) throws(LiveInputError) {
        var device: OpaquePointer? = nil
        let rc = libevdev_new_from_fd(fd, &device)
        guard rc == 0, let device else { throw .system(call: "libevdev_new_from_fd", path: path, errno: -rc) }
        handle = device
    }

    deinit { libevdev_free(handle) }

    /// The facts classification and decoding need: name, id, properties, keys and absinfo.
    var description: EvdevDeviceDescription {
        let name = libevdev_get_name(handle).map { String(cString: $0) } ?? ""
        let id = InputID(
            bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(handle)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(handle)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(handle)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(handle)))
        var properties: InputProperties = []
        for bit in 0..<32 where libevdev_has_property(handle, UInt32(bit)) != 0 {
            if let p = InputProperties(bit: bit) { properties.insert(p) }
        }
        var types: Set<UInt16> = []
        for type in 0..<EvdevType.count where libevdev_has_event_type(handle, UInt32(type)) != 0 { types.insert(type) }
        var keys: Set<UInt16> = []
        if types.contains(EvdevType.key) {
            for code in 0..<EvdevKey.count where libevdev_has_event_code(handle, UInt32(EvdevType.key), UInt32(code)) != 0 {
                keys.insert(code)
            }
        }
        var absInfo: [UInt16: AbsInfo] = [:]
        for code in 0..<EvdevAbs.count {
            guard libevdev_has_event_code(handle, UInt32(EvdevType.abs), UInt32(code)) != 0,
                let info = libevdev_get_abs_info(handle, UInt32(code))?.pointee
            else { continue }
            absInfo[code] = AbsInfo(
                minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz, flat: info.flat, resolution: info.resolution)
        }
        var description = EvdevDeviceDescription(
            name: name, id: id, properties: properties, eventTypes: types, keys: keys, absInfo: absInfo)
        description.phys = libevdev_get_phys(handle).map { String(cString: $0) }
        description.uniq = libevdev_get_uniq(handle).map { String(cString: $0) }
        return description
    }

    /// One `libevdev_next_event`, in normal or sync mode.
    func next(sync: Bool) -> EvdevRead {
        var ev = input_event()
        let flags = sync ? LIBEVDEV_READ_FLAG_SYNC.rawValue : LIBEVDEV_READ_FLAG_NORMAL.rawValue
        let rc = libevdev_next_event(handle, flags, &ev)
        let time = MonotonicInstant(microseconds: UInt64(max(0, ev.time.tv_sec)) * 1_000_000 + UInt64(max(0, ev.time.tv_usec)))
        let event = EvdevEvent(time: time, type: ev.type, code: ev.code, value: ev.value)
        switch rc {
        case Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue): return .event(event)
        case Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue): return .sync(event)
        case -EAGAIN: return .again
        default: return .failed(errno: -rc)
        }
    }
}

/// An event node opened for reading (`O_RDONLY|O_NONBLOCK|O_CLOEXEC`), never grabbed.
final class EventNode {
    let fd: Int32
    let path: String

    init(path: String) throws(LiveInputError) {
        self.fd = try Self.open(path).rawValue
        self.path = path
    }

    deinit { try? FileDescriptor(rawValue: fd).close() }

    /// How every event node is opened, libinput's included: read-only, non-blocking, close-on-exec, never grabbed.
    static func open(_ path: String) throws(LiveInputError) -> FileDescriptor {
        do { return try FileDescriptor.open(atPath: path, .readOnly, options: [.nonBlocking, .closeOnExec]) } catch {
            throw .system(call: "open", path: path, errno: error.rawValue)
        }
    }
}

/// A touchpad read through libevdev, beside libinput.
///
/// It is opened without `EVIOCGRAB`: a grab would take the pad from the compositor, whose pointer, scrolling
/// and clicks must keep working while EdgeSwipe watches for edge swipes. Reading alongside is what evdev allows
/// any number of readers to do. Its clock is set to `CLOCK_MONOTONIC` (evdev defaults to the wall clock), so its
/// timestamps are on the same clock as libinput's and the engine's.
final class EvdevTouchpad {
    let node: EventNode
    let evdev: Libevdev
    var decoder: EvdevFrameDecoder
    var loop = EvdevReadLoop()

    /// Reads the pad's description and builds its decoder for the device `makeDevice` describes.
    init(
        node: EventNode, makeDevice: (EvdevDeviceDescription) throws(LiveInputError) -> TouchDevice
    ) throws(LiveInputError) {
        self.node = node
        self.evdev = try Libevdev(fd: node.fd, path: node.path)
        let rc = libevdev_set_clock_id(evdev.handle, MonotonicClock.clockID)
        guard rc == 0 else { throw .system(call: "libevdev_set_clock_id", path: node.path, errno: -rc) }
        let description = evdev.description
        let device = try makeDevice(description)
        do {
            decoder = try EvdevFrameDecoder(description: description, device: device)
        } catch {
            throw .device(path: node.path, error)
        }
    }

    /// Reads everything pending without blocking; `.failed(ENODEV)` when the pad was unplugged.
    func drain(_ handle: (InputStep) -> Void) -> EvdevReadLoop.Outcome {
        let evdev = self.evdev
        return loop.drain(decoder: &decoder, read: { evdev.next(sync: $0) }, handle: handle)
    }
}
