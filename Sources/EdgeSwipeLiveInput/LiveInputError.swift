public import EdgeSwipeInput
import Glibc
import SystemPackage

/// Why live input could not be set up or a device could not be read: the call, the place and the reason.
public enum LiveInputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system or library call failed with `errno`.
    case system(call: String, path: String?, errno: Int32)
    /// libinput refused (it logs its own reason through the logger).
    case libinput(String)
    /// The device was opened but cannot be read as a touch surface.
    case device(path: String, TouchDeviceError)

    public var description: String {
        switch self {
        case .system(let call, let path, let code):
            "\(call)\(path.map { " \($0)" } ?? ""): \(Errno(rawValue: code)) (errno \(code))"
        case .libinput(let what): what
        case .device(let path, let error): "\(path): \(error)"
        }
    }
}

/// Why libinput's request to open an event node was refused.
public enum Unopened: Hashable, Sendable, CustomStringConvertible {
    /// udev does not know the node as an input device.
    case unknownNode
    /// Not opened on purpose: not a touch surface (a keyboard, a mouse...), or a touch surface the configuration
    /// keeps out (`[devices]` `allow`/`deny`, the `EDGESWIPE_IGNORE` udev tag). `reason` is the filter's.
    case notWanted(DeviceCandidate, reason: String)
    /// A touch surface that could not be opened (`EACCES`: this user may not read it).
    case cannotOpen(DeviceCandidate, LiveInputError)

    public var description: String {
        switch self {
        case .unknownNode: "not an input device node udev knows"
        case .notWanted(let candidate, let reason): "\"\(candidate.name)\" not opened: \(reason)"
        case .cannotOpen(_, let error): "\(error)"
        }
    }
}

/// Why the daemon reads no touch device, said with what a person can do about it: logged at start-up, printed by
/// `--list-devices`.
public enum NoTouchDevice: Hashable, Sendable, CustomStringConvertible {
    /// Touch surfaces are there, but could not be opened: by path, the device's name and `errno`.
    case unreadable([UnreadableDevice])
    /// Touch surfaces are there, and the configuration keeps every one out: by path, the name and the filter's reason.
    case keptOut([KeptOutDevice])
    /// No touch surface at all: `otherDevices` input devices that are not one (keyboards, mice, buttons).
    case nonePresent(seat: String?, otherDevices: Int)

    public struct UnreadableDevice: Hashable, Sendable {
        public var path: String
        public var name: String
        public var errno: Int32
    }

    public struct KeptOutDevice: Hashable, Sendable {
        public var path: String
        public var name: String
        public var reason: String
    }

    /// Judges what libinput offered: a touch surface that could not be opened says more than one kept out on
    /// purpose, which says more than the devices that are no touch surface.
    public init(unopened: [Unopened], seat: String?) {
        var unreadable: [UnreadableDevice] = []
        var keptOut: [KeptOutDevice] = []
        var others = 0
        for u in unopened {
            switch u {
            case .cannotOpen(let candidate, let error):
                var code = EIO
                if case .system(_, _, let e) = error { code = e }
                unreadable.append(UnreadableDevice(path: candidate.path, name: candidate.name, errno: code))
            case .notWanted(let candidate, let reason):
                if candidate.touchKind != nil {
                    keptOut.append(KeptOutDevice(path: candidate.path, name: candidate.name, reason: reason))
                } else {
                    others += 1
                }
            case .unknownNode:
                others += 1
            }
        }
        if !unreadable.isEmpty {
            self = .unreadable(unreadable)
        } else if !keptOut.isEmpty {
            self = .keptOut(keptOut)
        } else {
            self = .nonePresent(seat: seat, otherDevices: others)
        }
    }

    /// What to run to see EdgeSwipe work without touch hardware.
    static let demoHint = "without touch hardware, `edgeswiped --replay demo/edgeswipe-demo.evemu --loop` (in the source tree) plays the demo"

    public var description: String {
        switch self {
        case .unreadable(let devices):
            let list = devices.map { "\($0.path) \"\($0.name)\" (\(String(cString: strerror($0.errno))))" }.joined(separator: ", ")
            let permission = devices.contains { $0.errno == EACCES || $0.errno == EPERM }
            return "no touch device can be read: \(list). "
                + (permission
                    ? "This user may not read them: install the udev rules and add the user to the edgeswipe group (then log in again), or run the system service (README, \"Installing as a service\"); `edgeswiped --list-devices` checks."
                    : "The daemon keeps waiting for touch devices it can open.")
        case .keptOut(let devices):
            let list = devices.map { "\($0.path) \"\($0.name)\" (\($0.reason))" }.joined(separator: ", ")
            return "no touch device is used: the configuration keeps out every one present: \(list). Change `allow`/`deny` in [devices], or the \(DeviceFilter.ignoreProperty) udev tag."
        case .nonePresent(let seat, let others):
            let place = seat.map { " on seat \($0)" } ?? ""
            let found = others == 0
                ? "no input device at all\(place) (no /dev/input/event* that udev knows)"
                : "no touchscreen or touchpad\(place), only \(others) other input device\(others == 1 ? "" : "s") (keyboards, mice, buttons)"
            return "\(found): waiting for one to be plugged in (a device on another seat needs --seat); \(Self.demoHint)."
        }
    }
}
