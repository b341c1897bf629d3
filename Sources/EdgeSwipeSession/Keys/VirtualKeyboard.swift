import CWayland
public import EdgeSwipeSessionModel
import EdgeSwipeSystem
import Glibc
import NIOConcurrencyHelpers
import SystemPackage

/// Key chords through the Wayland virtual-keyboard protocol (`zwp_virtual_keyboard_v1`, offered by wlroots
/// compositors: sway, Hyprland, phoc, labwc, river, Wayfire), with a keymap of our own made by xkbcommon.
///
/// A chord is sent as: the modifiers down, the key pressed and released, the modifiers up, then one flush; from the
/// caller's thread, without waiting for the compositor.
public final class VirtualKeyboard: @unchecked Sendable {
    private let connection: WaylandConnection
    private let seat: OpaquePointer
    private let manager: OpaquePointer
    private let keyboard: OpaquePointer
    private let keymap: KeymapResolver
    private let lock = NIOLock()

    /// Why a compositor without the protocol cannot take keys, said once at start-up and by `--check-config`.
    public static let unsupportedHint =
        "the compositor offers no zwp_virtual_keyboard_manager_v1 (GNOME and KDE do not): key rules cannot run; the RemoteDesktop portal's libei is the path there (not in Debian 12)"

    /// Creates the virtual keyboard on the compositor's first seat and uploads the keymap.
    public init(connection: WaylandConnection) throws(WaylandError) {
        guard let seatGlobal = connection.global("wl_seat") else { throw WaylandError("the compositor offers no wl_seat") }
        guard let managerGlobal = connection.global("zwp_virtual_keyboard_manager_v1") else { throw WaylandError(Self.unsupportedHint) }
        do { keymap = try KeymapResolver() } catch { throw WaylandError(error.description) }
        guard let seat = connection.bind(seatGlobal, cwayland_wl_seat_interface(), version: 1) else {
            throw WaylandError("cannot bind wl_seat")
        }
        guard let manager = connection.bind(managerGlobal, cwayland_zwp_virtual_keyboard_manager_v1_interface(), version: 1)
        else {
            wl_proxy_destroy(seat)
            throw WaylandError("cannot bind zwp_virtual_keyboard_manager_v1")
        }
        guard let keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(manager, seat) else {
            wl_proxy_destroy(manager)
            wl_proxy_destroy(seat)
            throw WaylandError("zwp_virtual_keyboard_manager_v1.create_virtual_keyboard failed")
        }
        self.connection = connection
        self.seat = seat
        self.manager = manager
        self.keyboard = keyboard
        let file: FileDescriptor
        do { file = try MemoryFile.make(name: "edgeswipe-keymap", bytes: keymap.text) } catch {
            throw WaylandError("cannot write the keymap to a memory file: \(error)")
        }
        defer { try? file.close() }
        // WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1; the compositor maps the file and keeps its own copy.
        zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, file.rawValue, UInt32(keymap.text.count))
        guard connection.flush() else { throw WaylandError(connection.lost ?? "the compositor closed the connection") }
    }

    deinit {
        zwp_virtual_keyboard_v1_destroy(keyboard)
        wl_proxy_destroy(manager)
        wl_proxy_destroy(seat)
        connection.flush()
    }

    /// Whether the layout has a key for `chord`.
    public func canType(_ chord: KeyChord) -> Bool { keymap.press(for: chord) != nil }

    /// Presses and releases `chord`; an error when the layout has no key for it or the connection is gone.
    public func type(_ chord: KeyChord) throws(WaylandError) {
        if let lost = connection.lost { throw WaylandError("the Wayland connection is gone: \(lost)") }
        guard let press = keymap.press(for: chord) else {
            throw WaylandError("the keymap has no key for '\(chord.keyName)'")
        }
        let time = UInt32(truncatingIfNeeded: MonotonicClock.now().microseconds / 1000)
        lock.withLock {
            // WL_KEYBOARD_KEY_STATE_PRESSED is 1, RELEASED 0.
            zwp_virtual_keyboard_v1_modifiers(keyboard, press.modifierMask, 0, 0, 0)
            zwp_virtual_keyboard_v1_key(keyboard, time, press.evdevCode, 1)
            zwp_virtual_keyboard_v1_key(keyboard, time, press.evdevCode, 0)
            zwp_virtual_keyboard_v1_modifiers(keyboard, 0, 0, 0, 0)
        }
        guard connection.flush() else { throw WaylandError("the Wayland connection is gone: \(connection.lost ?? "write failed")") }
    }
}
