public import EdgeSwipeBus
import EdgeSwipeSystem
import EdgeSwipeVocabulary
import Glibc
import SystemPackage

/// The focused app on KWin (docs/COMPOSITORS.md, "The focused window on KWin"): KWin offers an ordinary client no
/// protocol that says which window is active, so the session loads a KWin script (packaging/kwin/edgeswipe-focus.js,
/// embedded) that calls the session's `org.edgeswipe.Focus1.Activated(ss)` on every activation.
///
/// What is here: the script with the session's unique bus name written in, and what the session makes of one call
/// (``report(sender:kwinOwner:arguments:)``: only KWin's connection may report, each string is cut). ``KWinFocusFollower``
/// serves the method on the session's bus thread (``BusLoop``), follows who owns `org.kde.KWin`, and loads and unloads
/// the script over `org.kde.kwin.Scripting`.
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
        if let why = refusal(sender: sender, kwinOwner: kwinOwner) { return .accessDenied(why) }
        guard arguments.count == 2, case .string(let resourceClass) = arguments[0], case .string(let desktopFile) = arguments[1] else {
            return .invalidArguments("\(interface).\(method) takes (ss): the resource class and the desktop file name")
        }
        let app = (resourceClass.isEmpty ? desktopFile : resourceClass).prefix(utf8Bytes: maxFieldBytes)
        return .focused(app.isEmpty ? nil : app)
    }

    /// Why `sender` may not report, or `nil` when it is KWin's connection (the current owner of `org.kde.KWin`).
    public static func refusal(sender: String?, kwinOwner: String?) -> String? {
        guard let sender, let kwinOwner, sender == kwinOwner else {
            return "\(interface).\(method) is for KWin's connection (the owner of \(kwinName)) alone; \(sender ?? "an unnamed sender") is not it"
        }
        return nil
    }

    /// Writes the script for `destination` into `runtimeDirectory` (0600: it names our connection); its path.
    static func write(destination: String, runtimeDirectory: String) throws(KWinFocusError) -> String {
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
        return path
    }
}

/// Why KWin's focus script could not be loaded.
public enum KWinFocusError: Error, Hashable, Sendable, CustomStringConvertible {
    case badName(String)
    case noRuntimeDirectory
    case cannotWrite(path: String, reason: String)
    case bus(String)

    public var description: String {
        switch self {
        case .badName(let name): "KWin's focus script: '\(name)' is not a unique bus name"
        case .noRuntimeDirectory: "KWin's focus script: $XDG_RUNTIME_DIR is not set (the script is written there)"
        case .cannotWrite(let path, let reason): "KWin's focus script: cannot write \(path): \(reason)"
        case .bus(let why): "KWin's focus script: \(why)"
        }
    }
}

/// KWin's focus script, followed on the session's bus thread: on each connection it serves
/// `org.edgeswipe.Focus1` at `/org/edgeswipe/Session` (the caller check: the current owner of `org.kde.KWin` alone),
/// follows that owner (`GetNameOwner`, then `NameOwnerChanged`), and whenever KWin is there (at start, and when it
/// comes back) writes the script with this connection's unique name and has KWin load it (a stale one unloaded first,
/// `loadScript`, `start`). Nothing waits: each call's answer comes back as a later message. ``stop()`` unloads it.
public final class KWinFocusFollower: Sendable {
    private let loop: BusLoop
    private let runtimeDirectory: String

    /// What the bus thread keeps of it (``BusContext/local(_:make:)``).
    final class State {
        var owner: String?
        var path: String?
        var loaded = false
    }

    static let getNameOwner = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetNameOwner")

    /// Starts following on `loop`; `focused` gets each reported app (`nil`: no window active), on the bus thread.
    public init(loop: BusLoop, runtimeDirectory: String, focused: @escaping @Sendable (String?) -> Void) {
        self.loop = loop
        self.runtimeDirectory = runtimeDirectory
        loop.onConnected { [runtimeDirectory] context in Self.connected(context, runtimeDirectory: runtimeDirectory, focused: focused) }
    }

    /// Has KWin unload the script and removes its file (queued before the loop stops).
    public func stop() {
        loop.enqueue { context in
            let state = context.local(State.self) { State() }
            if state.loaded { try? context.send(KWinFocus.unloadScript, values: [.string(KWinFocus.pluginName)]) }
            if let path = state.path { _ = unlink(path) }
            state.loaded = false
        }
    }

    private static func connected(_ context: BusContext, runtimeDirectory: String, focused: @escaping @Sendable (String?) -> Void) {
        let state = context.local(State.self) { State() }
        state.owner = nil
        state.loaded = false
        let logger = context.logger
        do {
            try context.serve(
                KWinFocus.objectPath, interface: KWinFocus.interface,
                check: { call in KWinFocus.refusal(sender: call.sender, kwinOwner: state.owner) },
                methods: [
                    KWinFocus.method: { call in
                        switch KWinFocus.report(sender: call.sender, kwinOwner: state.owner, arguments: call.arguments) {
                        case .focused(let app):
                            focused(app)
                            return .done
                        case .accessDenied(let why): return .accessDenied(why)
                        case .invalidArguments(let why): return .invalidArgs(why)
                        }
                    },
                ])
            try context.addMatch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(KWinFocus.kwinName)'"
            ) { message in
                guard message.body.count == 3, case .string(let new) = message.body[2] else { return }
                state.owner = new.isEmpty ? nil : new
                state.loaded = false
                // KWin came (back): a new KWin has none of our scripts.
                if !new.isEmpty { load(context, state: state, runtimeDirectory: runtimeDirectory) }
            }
        } catch {
            logger.warning("focus: cannot serve \(KWinFocus.interface) for KWin's focus script: \(error); rules with 'app' cannot match on KWin")
            return
        }
        context.callAsync(getNameOwner, values: [.string(KWinFocus.kwinName)], timeout: DesktopBus.callTimeout) { result in
            guard case .success(let reply) = result, case .string(let owner)? = reply.body.first else {
                logger.notice("focus: \(KWinFocus.kwinName) is not on the session bus yet; KWin's focus script is loaded when it comes")
                return
            }
            state.owner = owner
            load(context, state: state, runtimeDirectory: runtimeDirectory)
        }
    }

    private static func load(_ context: BusContext, state: State, runtimeDirectory: String) {
        let logger = context.logger
        let path: String
        do {
            guard let unique = context.bus?.uniqueName else { throw KWinFocusError.bus("this connection has no unique name") }
            path = try KWinFocus.write(destination: unique, runtimeDirectory: runtimeDirectory)
        } catch {
            logger.warning("focus: \(error)")
            return
        }
        state.path = path
        let timeout = DesktopBus.callTimeout
        func failed(_ step: String, _ why: String) {
            logger.warning("focus: KWin's focus script: \(step): \(why); rules with 'app' cannot match on KWin")
        }
        context.callAsync(KWinFocus.unloadScript, values: [.string(KWinFocus.pluginName)], timeout: timeout) { _ in
            context.callAsync(KWinFocus.loadScript, values: [.string(path), .string(KWinFocus.pluginName)], timeout: timeout) { result in
                guard case .success(let reply) = result, case .int32(let id)? = reply.body.first, id >= 0 else {
                    return failed("loadScript", "\(result)")
                }
                context.callAsync(KWinFocus.start, values: [], timeout: timeout) { result in
                    if case .failure(let error) = result { return failed("start", "\(error)") }
                    state.loaded = true
                    logger.notice("focus: following the active window (KWin's focus script, loaded over org.kde.kwin.Scripting)")
                }
            }
        }
    }
}
