import CInput
import EdgeSwipeCore
import EdgeSwipeInput
import Logging

import Glibc
import SystemPackage

/// What libinput's callbacks reach: the filter that decides which nodes may be opened, and the logger. It is
/// handed to libinput as `user_data` (unretained: the ``LibinputContext`` keeps it alive for libinput's
/// lifetime), and reached from non-capturing `@convention(c)` closures.
final class LibinputCallbacks {
    let udev: UdevContext
    let filter: DeviceFilter
    let logger: Logger
    /// What each accepted node is, by path, as found when libinput opened it.
    private(set) var accepted: [String: (candidate: DeviceCandidate, kind: DeviceKind, description: EvdevDeviceDescription?)] = [:]
    /// Why a node was not opened, by path: for the path backend's error, and for saying why no touch device is
    /// read (``NoTouchDevice``).
    private(set) var rejected: [String: Unopened] = [:]

    init(udev: UdevContext, filter: DeviceFilter, logger: Logger) {
        self.udev = udev
        self.filter = filter
        self.logger = logger
    }

    func forget(path: String) {
        accepted[path] = nil
        rejected[path] = nil
    }

    /// Why the node would not be opened, or `nil` if it would: for explicit paths, so that the caller hears the
    /// reason rather than libinput's (which does not even ask to open a node that is not a device).
    func refusal(path: String) -> String? {
        guard let udevDevice = udev.device(forNode: path) else { return "not an input device node udev knows" }
        let candidate = udevDevice.candidate(path: path)
        if case .reject(let reason) = filter.decide(candidate) { return "\"\(candidate.name)\" not opened: \(reason)" }
        return nil
    }

    /// libinput's `open_restricted`: the filter first (keyboards, mice and ignored devices are never opened),
    /// then `open(O_RDONLY|O_NONBLOCK|O_CLOEXEC)`. Returns the descriptor or `-errno`.
    func openRestricted(path: String) -> Int32 {
        guard let udevDevice = udev.device(forNode: path) else {
            logger.warning("\(path): not an input device node udev knows; not opened")
            rejected[path] = .unknownNode
            return -ENODEV
        }
        let candidate = udevDevice.candidate(path: path)
        switch filter.decide(candidate) {
        case .reject(let reason):
            logger.info("\(path) \"\(candidate.name)\": not opened: \(reason)")
            rejected[path] = .notWanted(candidate, reason: reason)
            return -EACCES
        case .accept(let kind):
            let fd: Int32
            do { fd = try EventNode.open(path).rawValue } catch {
                logger.error("\(error)")
                rejected[path] = .cannotOpen(candidate, error)
                if case .system(_, _, let code) = error { return -code }
                return -EIO
            }
            // libevdev reads the description with ioctls only; it neither reads events nor grabs.
            let description = try? Libevdev(fd: fd, path: path).description
            accepted[path] = (candidate, kind, description.map { d in
                var d = d
                d.udevProperties = candidate.properties
                return d
            })
            logger.debug("\(path) \"\(candidate.name)\": opened as a \(kind)")
            return fd
        }
    }

    func log(priority: UInt32, message: String) {
        let level = LibinputLog.level(forPriority: priority)
        logger.log(level: level, "libinput: \(LibinputLog.line(message))")
    }
}

/// A libinput context (`struct libinput`) on the udev backend (a seat) or the path backend (explicit nodes).
final class LibinputContext {
    let handle: OpaquePointer
    let callbacks: LibinputCallbacks
    /// libinput keeps this pointer, not a copy, so it lives exactly as long as the context.
    private let interface: UnsafeMutablePointer<libinput_interface>

    enum Backend {
        case udev(seat: String)
        case path
    }

    init(backend: Backend, callbacks: LibinputCallbacks) throws(LiveInputError) {
        self.callbacks = callbacks
        let interface = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
        interface.initialize(to: libinput_interface(
            open_restricted: { path, _, userData in
                guard let path, let userData else { return -EINVAL }
                let callbacks = Unmanaged<LibinputCallbacks>.fromOpaque(userData).takeUnretainedValue()
                return callbacks.openRestricted(path: String(cString: path))
            },
            close_restricted: { fd, _ in
                try? FileDescriptor(rawValue: fd).close()
            }))
        let userData = Unmanaged.passUnretained(callbacks).toOpaque()
        let created: OpaquePointer?
        switch backend {
        case .udev: created = libinput_udev_create_context(interface, userData, callbacks.udev.handle)
        case .path: created = libinput_path_create_context(interface, userData)
        }
        guard let created else {
            interface.deinitialize(count: 1)
            interface.deallocate()
            throw .libinput("libinput: could not create a context")
        }
        self.handle = created
        self.interface = interface
        libinput_log_set_priority(
            handle, libinput_log_priority(LibinputLog.priority(for: callbacks.logger.logLevel)))
        libinput_log_set_handler(handle) { li, priority, format, args in
            guard let li, let format, let args, let userData = libinput_get_user_data(li) else { return }
            let callbacks = Unmanaged<LibinputCallbacks>.fromOpaque(userData).takeUnretainedValue()
            // A va_list can be read once, so the message is formatted into a buffer large enough for libinput's
            // longest lines; anything longer is cut.
            var buffer = [CChar](repeating: 0, count: 2048)
            _ = vsnprintf(&buffer, buffer.count, format, args)
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            callbacks.log(priority: priority.rawValue, message: String(decoding: bytes, as: UTF8.self))
        }
        if case .udev(let seat) = backend {
            guard libinput_udev_assign_seat(handle, seat) == 0 else {
                libinput_unref(handle)
                interface.deinitialize(count: 1)
                interface.deallocate()
                throw .libinput("libinput: could not assign seat \"\(seat)\"")
            }
        }
    }

    deinit {
        libinput_unref(handle)
        interface.deinitialize(count: 1)
        interface.deallocate()
    }

    var fd: Int32 { libinput_get_fd(handle) }

    /// The path backend: adds a node (`--device /dev/input/eventN`); `nil` when libinput refused it.
    func addPath(_ path: String) -> OpaquePointer? { libinput_path_add_device(handle, path) }

    func dispatch() throws(LiveInputError) {
        let rc = libinput_dispatch(handle)
        if rc < 0 { throw .system(call: "libinput_dispatch", path: nil, errno: -rc) }
    }
}

/// A reference to a libinput device (`struct libinput_device`), kept while EdgeSwipe uses it. It also keeps its
/// context alive, because libinput frees every device when the context goes (libinput_unref's documented bug).
final class LibinputDevice {
    let handle: OpaquePointer
    let context: LibinputContext

    init(_ handle: OpaquePointer, context: LibinputContext) {
        self.handle = libinput_device_ref(handle) ?? handle
        self.context = context
    }

    deinit { libinput_device_unref(handle) }

    var udevDevice: UdevDevice? { libinput_device_get_udev_device(handle).map { UdevDevice(owning: $0) } }

    var name: String { libinput_device_get_name(handle).map { String(cString: $0) } ?? "" }

    /// libinput's size in millimetres, when it knows one.
    var size: MillimeterSize? {
        var w = 0.0
        var h = 0.0
        guard libinput_device_get_size(handle, &w, &h) == 0, w > 0, h > 0 else { return nil }
        return MillimeterSize(widthMM: w, heightMM: h)
    }

    var hasTouch: Bool { libinput_device_has_capability(handle, LIBINPUT_DEVICE_CAP_TOUCH) != 0 }

    /// Sets libinput's calibration matrix (calibration, then rotation); false when the device has none.
    @discardableResult
    func setCalibration(_ matrix: [Float]) -> Bool {
        guard matrix.count == 6, libinput_device_config_calibration_has_matrix(handle) != 0 else { return false }
        let status = matrix.withUnsafeBufferPointer { libinput_device_config_calibration_set_matrix(handle, $0.baseAddress) }
        return status == LIBINPUT_CONFIG_STATUS_SUCCESS
    }
}
