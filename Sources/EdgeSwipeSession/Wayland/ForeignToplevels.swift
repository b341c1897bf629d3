import CWayland
import EdgeSwipeVocabulary

/// Which window is active, from `zwlr_foreign_toplevel_manager_v1` (wlr-foreign-toplevel-management, version 1): the
/// focused app for rules with `app = …` on a compositor that offers the protocol but no IPC the session speaks (phoc;
/// docs/COMPOSITORS.md). A value: the listener feeds it each handle's events, and it says when the focused app changed.
///
/// A handle's `app_id` and `state` take effect at its `done` (the protocol's batch). The focused app is that of the
/// window whose state last became `activated`; none when no window is. An app id longer than ``maxAppIDBytes`` is cut
/// (it comes from another client, through the compositor).
struct ToplevelFocus: Equatable {
    struct Window: Equatable {
        var appID = ""
        var activated = false
    }

    /// The longest app id kept, in bytes (cut at a character boundary).
    static let maxAppIDBytes = 256

    private(set) var windows: [UInt32: Window] = [:]
    private var pending: [UInt32: Window] = [:]
    /// The windows that were activated, the latest last.
    private var activations: [UInt32] = []
    private(set) var focused: String?

    /// `app_id` for handle `id`, until its `done`.
    mutating func appID(_ id: UInt32, _ appID: String) {
        pending[id, default: windows[id] ?? Window()].appID = appID.prefix(utf8Bytes: Self.maxAppIDBytes)
    }

    /// `state` for handle `id` (its values, 32-bit each), until its `done`.
    mutating func state(_ id: UInt32, _ values: [UInt32]) {
        pending[id, default: windows[id] ?? Window()].activated = values.contains(Self.activated)
    }

    /// Handle `id`'s batch is complete: the new focused app, if it changed.
    mutating func done(_ id: UInt32) -> String?? {
        guard let window = pending.removeValue(forKey: id) else { return nil }
        let wasActivated = windows[id]?.activated ?? false
        windows[id] = window
        // A window that stays activated keeps its place; one that becomes activated is the latest.
        if !window.activated {
            activations.removeAll { $0 == id }
        } else if !wasActivated || !activations.contains(id) {
            activations.removeAll { $0 == id }
            activations.append(id)
        }
        return refocus()
    }

    /// Handle `id` is gone: the new focused app, if it changed.
    mutating func closed(_ id: UInt32) -> String?? {
        windows[id] = nil
        pending[id] = nil
        activations.removeAll { $0 == id }
        return refocus()
    }

    private mutating func refocus() -> String?? {
        let now = activations.last.flatMap { windows[$0]?.appID }.flatMap { $0.isEmpty ? nil : $0 }
        guard now != focused else { return nil }
        focused = now
        return .some(now)
    }

    /// ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED.
    static let activated: UInt32 = 2
}

/// The listener for ``ToplevelFocus``, made by the Wayland thread on each connection whose compositor offers
/// `zwlr_foreign_toplevel_manager_v1` (``WaylandThread/followFocus(_:)``): it binds the manager and calls `focused`
/// (on the Wayland thread) with each newly focused app id, `nil` when no window is active. The manager and every handle
/// are owned (``WaylandObject``): released with the connection's link.
final class ForeignToplevels {
    static let interface = "zwlr_foreign_toplevel_manager_v1"

    private let manager: WaylandObject<ForeignToplevelManagerKind>

    /// What the listeners read: the handles (owned) and the model. Retained by the manager, which outlives nothing
    /// it serves: the handles go with this context when the manager goes.
    final class Context {
        let display: WaylandDisplay
        let focused: @Sendable (String?) -> Void
        var handles: [UInt32: WaylandObject<ForeignToplevelHandleKind>] = [:]
        var focus = ToplevelFocus()

        init(display: WaylandDisplay, focused: @escaping @Sendable (String?) -> Void) {
            self.display = display
            self.focused = focused
        }

        func update(_ change: String??) {
            if let change { focused(change) }
        }
    }

    /// Binds the manager (version 1); the compositor then announces every window.
    init(on connection: WaylandConnection, focused: @escaping @Sendable (String?) -> Void) throws(WaylandError) {
        guard let global = connection.global(Self.interface) else {
            throw WaylandError("the compositor offers no \(Self.interface) and no IPC the session speaks: rules with 'app' cannot match")
        }
        guard let manager = connection.bind(global, ForeignToplevelManagerKind.self, cwayland_zwlr_foreign_toplevel_manager_v1_interface(), version: 1)
        else { throw WaylandError("cannot bind \(Self.interface)") }
        self.manager = manager
        let context = Context(display: connection.display, focused: focused)
        zwlr_foreign_toplevel_manager_v1_add_listener(manager.proxy, Self.managerListener, manager.retaining(context))
    }

    nonisolated(unsafe) private static let managerListener: UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_foreign_toplevel_manager_v1_listener(
            toplevel: { data, _, proxy in
                guard let context = listenerContext(data, as: Context.self),
                    let handle = WaylandObject<ForeignToplevelHandleKind>(proxy, on: context.display)
                else { return }
                context.handles[wl_proxy_get_id(handle.proxy)] = handle
                // The manager retains the context, and the handles go before it: `data` outlives every handle.
                zwlr_foreign_toplevel_handle_v1_add_listener(handle.proxy, ForeignToplevels.handleListener, data)
            },
            finished: { _, _ in }))
        return listener
    }()

    nonisolated(unsafe) private static let handleListener: UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_foreign_toplevel_handle_v1_listener(
            title: { _, _, _ in },
            app_id: { data, proxy, appID in
                guard let context = listenerContext(data, as: Context.self), let proxy, let appID else { return }
                context.focus.appID(wl_proxy_get_id(proxy), String(cString: appID))
            },
            output_enter: { _, _, _ in },
            output_leave: { _, _, _ in },
            state: { data, proxy, array in
                guard let context = listenerContext(data, as: Context.self), let proxy else { return }
                var values: [UInt32] = []
                if let array, let base = array.pointee.data {
                    // An array of 32-bit values; at most 1,024 are read (a window has a handful of states).
                    let count = min(array.pointee.size / MemoryLayout<UInt32>.size, 1024)
                    let words = base.bindMemory(to: UInt32.self, capacity: count)
                    values = (0..<count).map { words[$0] }
                }
                context.focus.state(wl_proxy_get_id(proxy), values)
            },
            done: { data, proxy in
                guard let context = listenerContext(data, as: Context.self), let proxy else { return }
                context.update(context.focus.done(wl_proxy_get_id(proxy)))
            },
            closed: { data, proxy in
                guard let context = listenerContext(data, as: Context.self), let proxy else { return }
                let id = wl_proxy_get_id(proxy)
                let change = context.focus.closed(id)
                // Its deinit sends destroy, as the protocol asks of a closed handle.
                context.handles[id] = nil
                context.update(change)
            }))
        return listener
    }()
}

enum ForeignToplevelManagerKind: WaylandKind {
    static let name = "zwlr_foreign_toplevel_manager_v1"
    /// Version 1 has no destructor request: `stop` tells the compositor, and our proxy goes.
    static func destroy(_ proxy: OpaquePointer, version: UInt32) {
        zwlr_foreign_toplevel_manager_v1_stop(proxy)
        wl_proxy_destroy(proxy)
    }
}

enum ForeignToplevelHandleKind: WaylandKind {
    static let name = "zwlr_foreign_toplevel_handle_v1"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { zwlr_foreign_toplevel_handle_v1_destroy(proxy) }
}
