public import EdgeSwipeBus
import EdgeSwipeSystem
import EdgeSwipeVocabulary
import Glibc
import SystemPackage

/// The focused app on KWin (docs/COMPOSITORS.md, "The focused window on KWin"): KWin offers an ordinary client no
/// protocol that says which window is active, so the session loads a KWin script (packaging/kwin/edgeswipe-focus.js,
/// embedded) that calls the session's `org.edgeswipe.Focus1.Activated(ss)` on every activation.
///
/// What is here: the script with the session's unique bus name written in, its loading and unloading over
/// `org.kde.kwin.Scripting`, and what the session makes of one call (``report(sender:kwinOwner:arguments:)``): only
/// KWin's connection may report, and each string is cut. Serving the method needs the session's bus event loop,
/// which exports `/org/edgeswipe/Session` and hands each call to ``report(sender:kwinOwner:arguments:)``.
public enum KWinFocus {
    /// The name KWin knows the script by: fixed, so that a stale one left by a crash is unloaded first.
    public static let pluginName = "edgeswipe-focus"
    public static let objectPath = "/org/edgeswipe/Session"
    public static let interface = "org.edgeswipe.Focus1"
    public static let method = "Activated"
    /// Who may call it: the owner of this name (KWin's own connection).
    public static let kwinName = "org.kde.KWin"
    /// Where the script names the session's connection.
    static let placeholder = "@EDGESWIPE_BUS_NAME@"
    /// The longest resource class or desktop file name kept, in bytes (another client's text, through KWin).
    public static let maxFieldBytes = 256

    static let loadScript = BusMethod(destination: kwinName, path: "/Scripting", interface: "org.kde.kwin.Scripting", member: "loadScript")
    static let start = BusMethod(destination: kwinName, path: "/Scripting", interface: "org.kde.kwin.Scripting", member: "start")
    static let unloadScript = BusMethod(destination: kwinName, path: "/Scripting", interface: "org.kde.kwin.Scripting", member: "unloadScript")

    /// The embedded script as shipped.
    public static var template: String { String(decoding: PackageResources.edgeswipe_focus_js, as: UTF8.self) }

    /// The script that reports to `destination` (the session's unique name, `:1.42`); `nil` when the name is not a
    /// unique name (it is written into JavaScript: only `:`, digits and dots may be).
    public static func script(destination: String) -> String? {
        guard destination.hasPrefix(":"), (2...255).contains(destination.utf8.count),
            destination.utf8.dropFirst().allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") })
        else { return nil }
        return template.replacing(placeholder, with: destination)
    }

    /// What an `Activated` call means for the session.
    public enum Report: Equatable, Sendable {
        /// The app now focused (its resource class, else its desktop file name), `nil` when no window is active.
        case focused(String?)
        /// Refused, with the error's text (answered as `org.freedesktop.DBus.Error.AccessDenied` or `InvalidArgs`).
        case accessDenied(String)
        case invalidArguments(String)
    }

    /// One call from `sender` with `arguments`, while `kwinOwner` owns `org.kde.KWin` (asked of the bus).
    public static func report(sender: String?, kwinOwner: String?, arguments: [BusValue]) -> Report {
        guard let sender, let kwinOwner, sender == kwinOwner else {
            return .accessDenied("\(interface).\(method) is for KWin's connection (the owner of \(kwinName)) alone; \(sender ?? "an unnamed sender") is not it")
        }
        guard arguments.count == 2, case .string(let resourceClass) = arguments[0], case .string(let desktopFile) = arguments[1] else {
            return .invalidArguments("\(interface).\(method) takes (ss): the resource class and the desktop file name")
        }
        let app = (resourceClass.isEmpty ? desktopFile : resourceClass).prefix(utf8Bytes: maxFieldBytes)
        return .focused(app.isEmpty ? nil : app)
    }

    /// Writes the script for `destination` into `runtimeDirectory` (0600: it names our connection) and has KWin load
    /// and start it, after unloading a stale one of the same name; the file's path.
    public static func load(on bus: SDBus, destination: String, runtimeDirectory: String) throws(KWinFocusError) -> String {
        guard let text = script(destination: destination) else { throw .badName(destination) }
        guard runtimeDirectory.hasPrefix("/") else { throw .noRuntimeDirectory }
        let name = "edgeswipe-focus-\(getpid()).js"
        let path = runtimeDirectory + "/" + name
        do {
            let folder = try FileDescriptor.open(FilePath(runtimeDirectory), .readOnly, options: [.directory, .closeOnExec])
            defer { try? folder.close() }
            try AtomicFileWriter(directory: folder, path: runtimeDirectory).write(Array(text.utf8), to: name)
        } catch {
            throw .cannotWrite(path: path, reason: "\(error)")
        }
        do {
            _ = try bus.call(unloadScript, values: [.string(pluginName)], timeout: DesktopBus.callTimeout)
            let loaded = try bus.call(loadScript, values: [.string(path), .string(pluginName)], timeout: DesktopBus.callTimeout)
            guard case .int32(let id)? = loaded.body.first, id >= 0 else {
                throw KWinFocusError.refused("loadScript answered \(loaded.body)")
            }
            _ = try bus.call(start, values: [], timeout: DesktopBus.callTimeout)
        } catch let error as KWinFocusError {
            throw error
        } catch {
            throw .bus("\(error)")
        }
        return path
    }

    /// Has KWin unload the script (at exit) and removes its file; whether KWin had it loaded.
    @discardableResult
    public static func unload(on bus: SDBus, path: String?) -> Bool {
        if let path { _ = unlink(path) }
        guard let reply = try? bus.call(unloadScript, values: [.string(pluginName)], timeout: DesktopBus.callTimeout) else { return false }
        if case .bool(let was)? = reply.body.first { return was }
        return false
    }
}

/// Why KWin's focus script could not be loaded.
public enum KWinFocusError: Error, Hashable, Sendable, CustomStringConvertible {
    case badName(String)
    case noRuntimeDirectory
    case cannotWrite(path: String, reason: String)
    case refused(String)
    case bus(String)

    public var description: String {
        switch self {
        case .badName(let name): "KWin's focus script: '\(name)' is not a unique bus name"
        case .noRuntimeDirectory: "KWin's focus script: $XDG_RUNTIME_DIR is not set (the script is written there)"
        case .cannotWrite(let path, let reason): "KWin's focus script: cannot write \(path): \(reason)"
        case .refused(let why): "KWin's focus script: KWin refused it: \(why)"
        case .bus(let why): "KWin's focus script: \(why)"
        }
    }
}
