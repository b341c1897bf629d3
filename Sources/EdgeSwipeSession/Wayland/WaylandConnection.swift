import CWayland
import EdgeSwipeSystem
import Glibc

/// A global the compositor announced in its registry.
public struct WaylandGlobal: Hashable, Sendable {
    public var name: UInt32
    public var interface: String
    public var version: UInt32

    public init(name: UInt32, interface: String, version: UInt32) {
        self.name = name
        self.interface = interface
        self.version = version
    }
}

/// One connection to the compositor and its registry, on the thread that made it (the Wayland thread's, in the
/// session): what the parts that need the compositor (the keys, the overlay) bind their globals from.
///
/// Nothing here waits for the compositor. The registry's first globals are asked for with a `wl_display.sync` whose
/// answer marks them complete (``isReady``), instead of a round trip that a stopped compositor would never answer;
/// ``flush()`` says when the compositor has not taken everything (``hasUnsentRequests``), so that the caller queues
/// nothing more until the socket is writable again: libwayland 1.21 keeps at most 4 KiB of requests, and one more
/// than that is a fatal error on the connection (`EAGAIN`, what a stopped sway gave us: issue 35, item 3).
final class WaylandConnection {
    let display: WaylandDisplay
    private let registry: WaylandObject<RegistryKind>
    private let state = RegistryState()
    private var firstSync: WaylandObject<CallbackKind>?
    /// Whether the last flush left requests in libwayland's buffer: wait for `POLLOUT` before queueing more.
    private(set) var hasUnsentRequests = false

    /// What the registry's listener writes (the context it is given), read by the connection.
    final class RegistryState {
        var globals: [WaylandGlobal] = []
        /// Set by each announcement and withdrawal; cleared by ``WaylandConnection/takeGlobalsChanged()``.
        var changed = false
        var ready = false
    }

    /// Connects to `name` (`nil`: `$WAYLAND_DISPLAY`) and asks for the registry's globals, without waiting for them.
    convenience init(name: String?) throws(WaylandError) {
        try self.init(display: WaylandDisplay(connectingTo: name))
    }

    init(display: WaylandDisplay) throws(WaylandError) {
        self.display = display
        guard let registry = WaylandObject<RegistryKind>(wl_display_get_registry(display.pointer), on: display) else {
            throw WaylandError("wl_display.get_registry failed")
        }
        self.registry = registry
        wl_registry_add_listener(registry.proxy, Self.registryListener, registry.retaining(state))
        // Answered after every global the compositor had when it read get_registry.
        guard let sync = WaylandObject<CallbackKind>(wl_display_sync(display.pointer), on: display) else {
            throw WaylandError("wl_display.sync failed")
        }
        wl_callback_add_listener(sync.proxy, Self.syncListener, sync.retaining(state))
        firstSync = sync
    }

    /// Whether the first globals have all arrived.
    var isReady: Bool { state.ready }

    /// The globals announced so far, in order (one `wl_output` per monitor).
    var globals: [WaylandGlobal] { state.globals }

    /// The first global named `interface`, if the compositor offers it.
    func global(_ interface: String) -> WaylandGlobal? { state.globals.first { $0.interface == interface } }

    /// Whether globals came or went since the last call.
    func takeGlobalsChanged() -> Bool {
        defer { state.changed = false }
        return state.changed
    }

    /// Binds `global` at `min(version, global.version)`, owned.
    func bind<Kind: WaylandKind>(_ global: WaylandGlobal, _ kind: Kind.Type, _ interface: UnsafePointer<wl_interface>, version: UInt32) -> WaylandObject<Kind>? {
        let proxy = wl_registry_bind(registry.proxy, global.name, interface, min(version, global.version))
        return WaylandObject<Kind>(proxy.map { OpaquePointer($0) }, on: display)
    }

    /// The descriptor to wait on.
    var descriptor: Int32 { wl_display_get_fd(display.pointer) }

    enum Outcome: Equatable {
        case ok
        /// The connection is broken, for this reason.
        case lost(String)
    }

    /// Sends what libwayland holds. When the socket is full (the compositor is not reading), what is left stays
    /// there and ``hasUnsentRequests`` says so, until a later flush (when the descriptor is writable) sends it.
    @discardableResult
    func flush() -> Outcome {
        if wl_display_flush(display.pointer) >= 0 {
            hasUnsentRequests = false
            return .ok
        }
        if errno == EAGAIN {
            hasUnsentRequests = true
            return .ok
        }
        return .lost(lossReason(fallback: errno))
    }

    /// Runs the listeners of the events already read.
    func dispatchPending() -> Outcome {
        wl_display_dispatch_pending(display.pointer) < 0 ? .lost(lossReason(fallback: errno)) : .ok
    }

    /// Reads what the compositor sent, once the descriptor was readable (between ``prepareRead()`` and this).
    func readEvents() -> Outcome {
        wl_display_read_events(display.pointer) < 0 ? .lost(lossReason(fallback: errno)) : .ok
    }

    /// Announces that this thread is about to wait and then read; `false` (after dispatching them) while events
    /// are already queued.
    func prepareRead() -> Outcome {
        while wl_display_prepare_read(display.pointer) != 0 {
            if wl_display_dispatch_pending(display.pointer) < 0 { return .lost(lossReason(fallback: errno)) }
        }
        return .ok
    }

    /// The wait ended without anything to read.
    func cancelRead() { wl_display_cancel_read(display.pointer) }

    /// Why the connection broke: the protocol error the compositor posted, or the socket's error.
    func lossReason(fallback: Int32) -> String {
        let error = wl_display_get_error(display.pointer)
        if error == EPROTO {
            var code: UInt32 = 0
            var id: UInt32 = 0
            let interface = cwayland_protocol_error(display.pointer, &code, &id).map { String(cString: $0) } ?? "?"
            return "protocol error \(code) on \(interface)@\(id)"
        }
        let cause = error != 0 ? error : fallback
        if cause == EPIPE || cause == ECONNRESET || cause == 0 { return "the compositor closed the connection" }
        return String(cString: strerror(cause))
    }

    // MARK: Listeners (on the connection's thread, during a dispatch)

    nonisolated(unsafe) private static let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
        let listener = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_registry_listener(
            global: { data, _, name, interface, version in
                guard let state = listenerContext(data, as: RegistryState.self), let interface else { return }
                state.globals.append(WaylandGlobal(name: name, interface: String(cString: interface), version: version))
                state.changed = true
            },
            global_remove: { data, _, name in
                guard let state = listenerContext(data, as: RegistryState.self) else { return }
                state.globals.removeAll { $0.name == name }
                state.changed = true
            }))
        return listener
    }()

    nonisolated(unsafe) private static let syncListener: UnsafeMutablePointer<wl_callback_listener> = {
        let listener = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_callback_listener(done: { data, _, _ in
            guard let state = listenerContext(data, as: RegistryState.self) else { return }
            state.ready = true
            state.changed = true
        }))
        return listener
    }()
}

extension WaylandConnection {
    /// The globals of the compositor at `name` (`nil`: `$WAYLAND_DISPLAY`), read on the calling thread within
    /// `timeoutMicroseconds`: for `--check-config`, which asks once and exits.
    static func readGlobals(name: String? = nil, timeoutMicroseconds: Int64 = 2_000_000) throws(WaylandError) -> [WaylandGlobal] {
        let connection = try WaylandConnection(name: name)
        let deadline = MonotonicClock.now().microseconds &+ UInt64(max(0, timeoutMicroseconds))
        while !connection.isReady {
            if case .lost(let why) = connection.flush() { throw WaylandError("the compositor's registry: \(why)") }
            if case .lost(let why) = connection.prepareRead() { throw WaylandError("the compositor's registry: \(why)") }
            var descriptor = pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0)
            let now = MonotonicClock.now().microseconds
            guard now < deadline, poll(&descriptor, 1, Int32(clamping: (deadline - now + 999) / 1000)) > 0 else {
                connection.cancelRead()
                throw WaylandError("the compositor did not list its globals within \(timeoutMicroseconds / 1000) ms")
            }
            if case .lost(let why) = connection.readEvents() { throw WaylandError("the compositor's registry: \(why)") }
            if case .lost(let why) = connection.dispatchPending() { throw WaylandError("the compositor's registry: \(why)") }
        }
        return connection.globals
    }
}

extension WaylandGlobal {
    /// The globals of the compositor at `display` (`nil`: `$WAYLAND_DISPLAY`), read once on the calling thread: for
    /// `--check-config`, which asks and exits.
    public static func read(display: String? = nil) throws(WaylandError) -> [WaylandGlobal] {
        try WaylandConnection.readGlobals(name: display)
    }

    /// Why keys cannot be sent on a compositor offering `globals`, or `nil` when they can (or will, once it has a
    /// seat).
    public static func keyProblem(in globals: [WaylandGlobal]) -> WaylandError? {
        if case .unavailable(let why) = KeyBackendChoice.choose(from: globals) { return WaylandError(why) }
        return nil
    }
}
