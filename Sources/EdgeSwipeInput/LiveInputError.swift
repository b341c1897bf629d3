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
