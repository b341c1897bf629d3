import CWayland
import Glibc

/// The thread a display was made on: the only one that may touch it or anything made on it. The session's is the
/// Wayland thread (``WaylandThread``); `--check-config`'s, the main thread, which makes its own display and lets it go
/// before it returns.
///
/// libwayland-client would take requests from any thread (it locks the display around each), but what our objects
/// hold (listener contexts, buffers being painted, the flush state that bounds what is queued) has no lock: every
/// object checks, at each use, that it is on its display's thread. A mistake traps at once, with the object's name,
/// rather than racing (held by `WaylandObjectTests`).
struct OwningThread: Sendable {
    private let thread: pthread_t

    init() { thread = pthread_self() }

    var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

    /// Traps unless called on the owning thread.
    func check(_ what: @autoclosure () -> String) {
        precondition(isCurrent, "\(what()) was touched off the thread that owns its Wayland display")
    }
}

/// One connection to a compositor (`wl_display_connect`), disconnected when the last object made on it goes: each
/// ``WaylandObject`` holds its display, so nothing outlives the connection it was made on.
final class WaylandDisplay {
    private let raw: OpaquePointer
    let owner = OwningThread()

    /// Connects to `name` (`nil`: `$WAYLAND_DISPLAY`, as libwayland reads it); an error naming the display and the
    /// cause.
    init(connectingTo name: String?) throws(WaylandError) {
        guard let display = wl_display_connect(name) else {
            let cause = String(cString: strerror(errno))
            let shown = name ?? getenv("WAYLAND_DISPLAY").map { "'\(String(cString: $0))'" } ?? "($WAYLAND_DISPLAY is not set)"
            throw WaylandError("cannot connect to the Wayland display \(shown): \(cause)")
        }
        raw = display
    }

    /// Takes over `descriptor`, a socket already connected to a compositor (or, in tests, to nothing that reads).
    init(adopting descriptor: Int32) throws(WaylandError) {
        guard let display = wl_display_connect_to_fd(descriptor) else {
            throw WaylandError("wl_display_connect_to_fd(\(descriptor)) failed: \(String(cString: strerror(errno)))")
        }
        raw = display
    }

    deinit {
        owner.check("wl_display")
        wl_display_disconnect(raw)
    }

    /// The `wl_display`, on the owning thread only.
    var pointer: OpaquePointer {
        owner.check("wl_display")
        return raw
    }
}

/// How one kind of Wayland object is let go of: its destructor request where the version it was bound or made at has
/// one (the compositor then frees its side too), else only our proxy (`wl_proxy_destroy`).
protocol WaylandKind {
    /// The interface's name, for messages.
    static var name: String { get }
    static func destroy(_ proxy: OpaquePointer, version: UInt32)
}

/// One Wayland object we made or bound, owned: its `deinit` sends the destructor request (``WaylandKind``) on the
/// display's thread. It holds the display and whatever it was made from (a layer surface its `wl_surface`), so that
/// those go after it, and the context its listener reads (retained here, freed with it: the listener's `data` never
/// outlives the proxy that passes it).
final class WaylandObject<Kind: WaylandKind> {
    private let raw: OpaquePointer
    let display: WaylandDisplay
    private let keeping: [AnyObject]
    private var context: AnyObject?

    /// Takes ownership of `proxy`, made on `display` (`nil`, as a failed constructor returns, gives `nil`).
    init?(_ proxy: OpaquePointer?, on display: WaylandDisplay, keeping parents: [AnyObject] = []) {
        display.owner.check(Kind.name)
        guard let proxy else { return nil }
        raw = proxy
        self.display = display
        keeping = parents
    }

    deinit {
        display.owner.check(Kind.name)
        Kind.destroy(raw, version: wl_proxy_get_version(raw))
    }

    /// The proxy, for requests: on the display's thread only.
    var proxy: OpaquePointer {
        display.owner.check(Kind.name)
        return raw
    }

    /// The version the object was bound or made at.
    var version: UInt32 { wl_proxy_get_version(proxy) }

    /// Keeps `context` for as long as this object lives and gives the pointer to pass as its listener's `data`.
    func retaining(_ context: AnyObject) -> UnsafeMutableRawPointer {
        display.owner.check(Kind.name)
        self.context = context
        return Unmanaged.passUnretained(context).toOpaque()
    }
}

/// The listener's side of ``WaylandObject/retaining(_:)``: the context behind a listener's `data`.
func listenerContext<Context: AnyObject>(_ data: UnsafeMutableRawPointer?, as: Context.Type) -> Context? {
    data.map { Unmanaged<Context>.fromOpaque($0).takeUnretainedValue() }
}

// MARK: The kinds the session uses

enum RegistryKind: WaylandKind {
    static let name = "wl_registry"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_registry_destroy(proxy) }
}

/// A `wl_callback` (a frame callback, a `wl_display.sync`): the compositor frees its side when it fires.
enum CallbackKind: WaylandKind {
    static let name = "wl_callback"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_callback_destroy(proxy) }
}

enum CompositorKind: WaylandKind {
    static let name = "wl_compositor"
    /// No destructor request before version 6 (not in libwayland 1.21's XML either).
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_proxy_destroy(proxy) }
}

enum ShmKind: WaylandKind {
    static let name = "wl_shm"
    /// `release` came with version 2 (libwayland 1.22); we bind version 1.
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_proxy_destroy(proxy) }
}

enum ShmPoolKind: WaylandKind {
    static let name = "wl_shm_pool"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_shm_pool_destroy(proxy) }
}

enum BufferKind: WaylandKind {
    static let name = "wl_buffer"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_buffer_destroy(proxy) }
}

enum SurfaceKind: WaylandKind {
    static let name = "wl_surface"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_surface_destroy(proxy) }
}

enum RegionKind: WaylandKind {
    static let name = "wl_region"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_region_destroy(proxy) }
}

enum OutputKind: WaylandKind {
    static let name = "wl_output"
    /// `release` since version 3; before it the compositor keeps its side until we disconnect.
    static func destroy(_ proxy: OpaquePointer, version: UInt32) {
        if version >= 3 { wl_output_release(proxy) } else { wl_output_destroy(proxy) }
    }
}

enum SeatKind: WaylandKind {
    static let name = "wl_seat"
    /// `release` since version 5.
    static func destroy(_ proxy: OpaquePointer, version: UInt32) {
        if version >= 5 { wl_seat_release(proxy) } else { wl_seat_destroy(proxy) }
    }
}

enum LayerShellKind: WaylandKind {
    static let name = "zwlr_layer_shell_v1"
    /// Our XML describes version 1, which has no destructor (`destroy` came with 3).
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_proxy_destroy(proxy) }
}

enum LayerSurfaceKind: WaylandKind {
    static let name = "zwlr_layer_surface_v1"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { zwlr_layer_surface_v1_destroy(proxy) }
}

enum PresentationKind: WaylandKind {
    static let name = "wp_presentation"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wp_presentation_destroy(proxy) }
}

/// One commit's `wp_presentation_feedback`: the compositor forgets it after `presented` or `discarded`, and it has
/// no destructor request, so only our proxy goes (also when the surface goes before either came).
enum PresentationFeedbackKind: WaylandKind {
    static let name = "wp_presentation_feedback"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wp_presentation_feedback_destroy(proxy) }
}

enum VirtualKeyboardManagerKind: WaylandKind {
    static let name = "zwp_virtual_keyboard_manager_v1"
    /// The manager has no destructor request.
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_proxy_destroy(proxy) }
}

enum VirtualKeyboardKind: WaylandKind {
    static let name = "zwp_virtual_keyboard_v1"
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { zwp_virtual_keyboard_v1_destroy(proxy) }
}

enum FakeInputKind: WaylandKind {
    static let name = "org_kde_kwin_fake_input"
    /// `destroy` came with version 5; our XML stops at 4, which we bind at most.
    static func destroy(_ proxy: OpaquePointer, version: UInt32) { wl_proxy_destroy(proxy) }
}

public struct WaylandError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
