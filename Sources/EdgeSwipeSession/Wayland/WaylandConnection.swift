public import CWayland
import EdgeSwipeSystem
import Glibc
public import Logging
import NIOConcurrencyHelpers
public import SystemPackage

/// The session's one connection to the Wayland compositor (`$WAYLAND_DISPLAY`), shared by every part that needs it
/// (the virtual keyboard; the overlay plugs in the same way), with its own thread that reads and dispatches events.
///
/// Requests may be sent from any thread (libwayland-client locks the display around each), and are flushed at once
/// by ``flush()``; events are read only by the connection's thread, which sleeps in `ppoll` on the display and a
/// wake-up pipe: no wake-ups while nothing happens.
public final class WaylandConnection: @unchecked Sendable {
    /// What the compositor offers, by interface name, as the registry announced it.
    public struct Global: Hashable, Sendable {
        public var name: UInt32
        public var interface: String
        public var version: UInt32
    }

    /// The `wl_display`, for the parts that make their own objects on it (the overlay's surfaces).
    public let display: OpaquePointer
    private let registry: OpaquePointer
    private let logger: Logger
    private let wake: WakePipe
    private let state = NIOLockedValueBox(State())
    /// Called on the connection's thread after each dispatch of events (for parts that draw: the overlay).
    private let afterDispatch = NIOLockedValueBox<[@Sendable () -> Void]>([])

    struct State {
        var globals: [Global] = []
        var stopped = false
        var lost: String?
    }

    /// Connects to `$WAYLAND_DISPLAY` (or `display` when given) and reads the registry's globals (one round trip).
    public init(display name: String? = nil, logger: Logger) throws(WaylandError) {
        guard let display = wl_display_connect(name) else {
            throw WaylandError("cannot connect to the Wayland display \(name ?? Self.environment("WAYLAND_DISPLAY").map { "'\($0)'" } ?? "($WAYLAND_DISPLAY is not set)"): \(String(cString: strerror(errno)))")
        }
        guard let registry = wl_display_get_registry(display) else {
            wl_display_disconnect(display)
            throw WaylandError("wl_display.get_registry failed")
        }
        do { wake = try WakePipe() } catch {
            wl_registry_destroy(registry)
            wl_display_disconnect(display)
            throw WaylandError("cannot make a wake-up pipe: \(error)")
        }
        self.display = display
        self.registry = registry
        self.logger = logger
        wl_registry_add_listener(registry, WaylandConnection.registryListener, Unmanaged.passUnretained(self).toOpaque())
        guard wl_display_roundtrip(display) >= 0 else {
            wl_registry_destroy(registry)
            wl_display_disconnect(display)
            throw WaylandError("the compositor closed the connection during the first round trip")
        }
    }

    deinit {
        wl_registry_destroy(registry)
        wl_display_disconnect(display)
    }

    /// The globals announced so far.
    public var globals: [Global] { state.withLockedValue { $0.globals } }

    /// The global named `interface`, if the compositor offers it.
    public func global(_ interface: String) -> Global? { globals.first { $0.interface == interface } }

    /// Binds `global` with `wlInterface` at `min(version, global.version)`; the proxy is the caller's to destroy.
    public func bind(_ global: Global, _ wlInterface: UnsafePointer<wl_interface>, version: UInt32) -> OpaquePointer? {
        wl_registry_bind(registry, global.name, wlInterface, min(version, global.version)).map { OpaquePointer($0) }
    }

    /// Why the connection is gone (a protocol error or the compositor closing it), or `nil` while it works.
    public var lost: String? { state.withLockedValue { $0.lost } }

    /// Sends what was queued; from any thread.
    @discardableResult
    public func flush() -> Bool {
        if wl_display_flush(display) < 0 && errno != EAGAIN {
            noteLost()
            return false
        }
        return true
    }

    /// Runs `body` on the connection's thread after every dispatch of events.
    public func onDispatch(_ body: @escaping @Sendable () -> Void) {
        afterDispatch.withLockedValue { $0.append(body) }
    }

    /// Starts the thread that reads and dispatches events until ``stop()`` or the connection is lost.
    public func start() throws(Errno) {
        try SystemThread.start(name: "wayland", detached: true) { [self] in run() }
    }

    /// Ends the event thread (it returns within one wake-up).
    public func stop() {
        state.withLockedValue { $0.stopped = true }
        wake.wake()
    }

    /// Wakes the event thread, so that it dispatches and runs the ``onDispatch(_:)`` bodies.
    public func wakeUp() { wake.wake() }

    private func run() {
        let fd = wl_display_get_fd(display)
        let waiter = DescriptorWaiter()
        while !state.withLockedValue({ $0.stopped }) {
            while wl_display_prepare_read(display) != 0 {
                if wl_display_dispatch_pending(display) < 0 { noteLost(); return }
            }
            flush()
            waiter.removeAll()
            waiter.add(fd)
            waiter.add(wake.readEnd)
            do { try waiter.wait(timeoutMicroseconds: nil) } catch {
                wl_display_cancel_read(display)
                continue
            }
            if waiter.isReady(0) {
                if wl_display_read_events(display) < 0 { noteLost(); return }
            } else {
                wl_display_cancel_read(display)
            }
            if waiter.isReady(1) { wake.drain() }
            if wl_display_dispatch_pending(display) < 0 { noteLost(); return }
            for body in afterDispatch.withLockedValue({ $0 }) { body() }
        }
    }

    /// Records (once) and logs why the connection broke.
    private func noteLost() {
        let error = wl_display_get_error(display)
        var reason = error == 0 ? "the compositor closed the connection" : String(cString: strerror(error))
        if error == EPROTO {
            var code: UInt32 = 0
            var id: UInt32 = 0
            let interface = cwayland_protocol_error(display, &code, &id).map { String(cString: $0) } ?? "?"
            reason = "protocol error \(code) on \(interface)@\(id)"
        }
        let first = state.withLockedValue { s -> Bool in
            guard s.lost == nil else { return false }
            s.lost = reason
            return true
        }
        if first { logger.error("wayland: connection lost: \(reason)") }
    }

    fileprivate func announce(_ global: Global) {
        // Every one, in order: there is one wl_output per monitor (``global(_:)`` gives the first of a name).
        state.withLockedValue { $0.globals.append(global) }
    }

    fileprivate func withdraw(_ name: UInt32) {
        state.withLockedValue { $0.globals.removeAll { $0.name == name } }
    }

    private static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// One listener for every connection's registry; `data` is the connection.
    nonisolated(unsafe) private static let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
        let listener = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_registry_listener(
            global: { data, _, name, interface, version in
                guard let data, let interface else { return }
                Unmanaged<WaylandConnection>.fromOpaque(data).takeUnretainedValue()
                    .announce(Global(name: name, interface: String(cString: interface), version: version))
            },
            global_remove: { data, _, name in
                guard let data else { return }
                Unmanaged<WaylandConnection>.fromOpaque(data).takeUnretainedValue().withdraw(name)
            }))
        return listener
    }()
}

public struct WaylandError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
