import CInput
import EdgeSwipeInput
import Glibc

// libudev, each pointer owned by one final class and released in its deinit.

/// A udev context (`struct udev`), for looking devices up by their node.
final class UdevContext {
    let handle: OpaquePointer

    init() throws(LiveInputError) {
        guard let handle = udev_new() else { throw .system(call: "udev_new", path: nil, errno: errno) }
        self.handle = handle
    }

    deinit { udev_unref(handle) }

    /// The udev device of an event node, found by its device number.
    func device(forNode path: String) -> UdevDevice? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR else { return nil }
        guard let device = udev_device_new_from_devnum(handle, CChar(UInt8(ascii: "c")), info.st_rdev) else { return nil }
        return UdevDevice(owning: device)
    }
}

/// A udev device (`struct udev_device`) this object holds a reference to.
final class UdevDevice {
    let handle: OpaquePointer

    /// Takes over a reference the caller got from libudev.
    init(owning handle: OpaquePointer) { self.handle = handle }

    /// Takes a new reference to a device libinput (or a parent lookup) lends.
    init(borrowing handle: OpaquePointer) {
        self.handle = udev_device_ref(handle) ?? handle
    }

    deinit { udev_device_unref(handle) }

    var properties: [String: String] {
        var result: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(handle)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) {
                result[String(cString: name)] = udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        return result
    }

    var node: String? { udev_device_get_devnode(handle).map { String(cString: $0) } }

    /// The kernel's name of the input device (the `name` attribute of the parent `inputN`).
    var inputName: String? {
        // The parent is borrowed: it lives as long as this device.
        guard let parent = udev_device_get_parent_with_subsystem_devtype(handle, "input", nil),
            let name = udev_device_get_sysattr_value(parent, "name")
        else { return nil }
        return String(cString: name)
    }

    func candidate(path: String) -> DeviceCandidate {
        DeviceCandidate(name: inputName ?? path, path: path, properties: properties)
    }
}
