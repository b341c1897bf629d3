public import CWayland
import EdgeSwipeVocabulary
import EdgeSwipeSystem
import Glibc
import NIOConcurrencyHelpers

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

/// The listener for ``ToplevelFocus``: binds the compositor's `zwlr_foreign_toplevel_manager_v1` on the session's
/// Wayland connection and calls `focused` (on the connection's thread) with each newly focused app id, `nil` when no
/// window is active. It owns the manager and every handle, and destroys them when released.
public final class ForeignToplevels: @unchecked Sendable {
    private let connection: WaylandConnection
    private let manager: OpaquePointer
    private let focusedChanged: @Sendable (String?) -> Void
    /// The handles (owned), and the model; touched on the connection's thread, and by the deinit.
    private let state = NIOLockedValueBox(State())

    struct State {
        var handles: [UInt32: OpaquePointer] = [:]
        var focus = ToplevelFocus()
    }

    /// Why the compositor cannot say which window is focused this way.
    public static let unsupportedHint = "the compositor offers no zwlr_foreign_toplevel_manager_v1 and no IPC the session speaks: rules with 'app' cannot match"

    /// Binds the manager; the compositor then announces every window (on the connection's thread, once it runs).
    public init(connection: WaylandConnection, focused: @escaping @Sendable (String?) -> Void) throws(WaylandError) {
        guard let global = connection.global("zwlr_foreign_toplevel_manager_v1") else { throw WaylandError(Self.unsupportedHint) }
        guard let manager = connection.bind(global, cwayland_zwlr_foreign_toplevel_manager_v1_interface(), version: 1) else {
            throw WaylandError("cannot bind zwlr_foreign_toplevel_manager_v1")
        }
        self.connection = connection
        self.manager = manager
        self.focusedChanged = focused
        zwlr_foreign_toplevel_manager_v1_add_listener(manager, Self.managerListener, Unmanaged.passUnretained(self).toOpaque())
        guard connection.flush() else { throw WaylandError(connection.lost ?? "the compositor closed the connection") }
        connection.wakeUp()
    }

    deinit {
        let handles = state.withLockedValue { s -> [OpaquePointer] in
            defer { s.handles = [:] }
            return Array(s.handles.values)
        }
        for handle in handles { zwlr_foreign_toplevel_handle_v1_destroy(handle) }
        // Version 1 has no destructor request for the manager: `stop` tells the compositor, and the proxy goes.
        zwlr_foreign_toplevel_manager_v1_stop(manager)
        wl_proxy_destroy(manager)
        connection.flush()
    }

    /// The focused app id as last reported, or `nil`.
    public var focused: String? { state.withLockedValue { $0.focus.focused } }

    private func handle(_ proxy: OpaquePointer) -> UInt32 { wl_proxy_get_id(proxy) }

    fileprivate func added(_ proxy: OpaquePointer) {
        state.withLockedValue { $0.handles[handle(proxy)] = proxy }
        zwlr_foreign_toplevel_handle_v1_add_listener(proxy, Self.handleListener, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func update(_ proxy: OpaquePointer, _ body: (inout ToplevelFocus, UInt32) -> String??) {
        let id = handle(proxy)
        if let change = state.withLockedValue({ body(&$0.focus, id) }) { focusedChanged(change) }
    }

    fileprivate func closed(_ proxy: OpaquePointer) {
        let id = handle(proxy)
        let change = state.withLockedValue { s -> String?? in
            s.handles[id] = nil
            return s.focus.closed(id)
        }
        zwlr_foreign_toplevel_handle_v1_destroy(proxy)
        if let change { focusedChanged(change) }
    }

    private static func owner(_ data: UnsafeMutableRawPointer?) -> ForeignToplevels? {
        data.map { Unmanaged<ForeignToplevels>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) private static let managerListener: UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_foreign_toplevel_manager_v1_listener(
            toplevel: { data, _, toplevel in
                guard let toplevel else { return }
                owner(data)?.added(toplevel)
            },
            finished: { _, _ in }))
        return listener
    }()

    nonisolated(unsafe) private static let handleListener: UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_foreign_toplevel_handle_v1_listener(
            title: { _, _, _ in },
            app_id: { data, proxy, appID in
                guard let proxy, let appID else { return }
                let text = String(cString: appID)
                owner(data)?.update(proxy) { focus, id in
                    focus.appID(id, text)
                    return nil
                }
            },
            output_enter: { _, _, _ in },
            output_leave: { _, _, _ in },
            state: { data, proxy, array in
                guard let proxy else { return }
                var values: [UInt32] = []
                if let array, let base = array.pointee.data {
                    // An array of 32-bit values; at most a page of them is read (a window has a handful of states).
                    let count = min(array.pointee.size / MemoryLayout<UInt32>.size, 1024)
                    let words = base.bindMemory(to: UInt32.self, capacity: count)
                    values = (0..<count).map { words[$0] }
                }
                owner(data)?.update(proxy) { focus, id in
                    focus.state(id, values)
                    return nil
                }
            },
            done: { data, proxy in
                guard let proxy else { return }
                owner(data)?.update(proxy) { focus, id in focus.done(id) }
            },
            closed: { data, proxy in
                guard let proxy else { return }
                owner(data)?.closed(proxy)
            }))
        return listener
    }()
}
