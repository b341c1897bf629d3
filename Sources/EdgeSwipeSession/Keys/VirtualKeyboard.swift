import CWayland
import EdgeSwipeSessionModel
import EdgeSwipeSystem
import Glibc
import SystemPackage

/// Key chords through the Wayland virtual-keyboard protocol (`zwp_virtual_keyboard_v1`, offered by wlroots
/// compositors: sway, Hyprland, phoc, labwc, river, Wayfire), with a keymap of our own made by xkbcommon.
///
/// Made as soon as the compositor has a seat and kept: on a seat without a keyboard the first virtual keyboard gives
/// it the capability, and clients ask for their `wl_keyboard` only then, so a chord sent right after the keyboard
/// is made can miss the focused window (docs/COMPOSITORS.md). A chord is the modifiers set, the key pressed and
/// released, the modifiers cleared.
final class VirtualKeyboard: KeyBackend {
    private let seat: WaylandObject<SeatKind>
    private let manager: WaylandObject<VirtualKeyboardManagerKind>
    private let keyboard: WaylandObject<VirtualKeyboardKind>
    private let keymap: KeymapResolver
    private let seatName = SeatName()

    /// The seat's name (`wl_seat.name`, version 2), for the log.
    final class SeatName { var value: String? }

    /// Binds `seatGlobal` and `managerGlobal` on `connection`, makes the keyboard and uploads `keymap`.
    init(on connection: WaylandConnection, seat seatGlobal: WaylandGlobal, manager managerGlobal: WaylandGlobal, keymap: KeymapResolver) throws(WaylandError) {
        guard let seat = connection.bind(seatGlobal, SeatKind.self, cwayland_wl_seat_interface(), version: 5) else {
            throw WaylandError("cannot bind wl_seat")
        }
        wl_seat_add_listener(seat.proxy, Self.seatListener, seat.retaining(seatName))
        guard let manager = connection.bind(managerGlobal, VirtualKeyboardManagerKind.self, cwayland_zwp_virtual_keyboard_manager_v1_interface(), version: 1)
        else { throw WaylandError("cannot bind zwp_virtual_keyboard_manager_v1") }
        guard let keyboard = WaylandObject<VirtualKeyboardKind>(
            zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(manager.proxy, seat.proxy), on: connection.display, keeping: [seat, manager])
        else { throw WaylandError("zwp_virtual_keyboard_manager_v1.create_virtual_keyboard failed") }
        self.seat = seat
        self.manager = manager
        self.keyboard = keyboard
        self.keymap = keymap
        let file: FileDescriptor
        do { file = try MemoryFile.make(name: "edgeswipe-keymap", bytes: keymap.text) } catch {
            throw WaylandError("cannot write the keymap to a memory file: \(error)")
        }
        // libwayland duplicates the descriptor when it queues the request; the compositor maps the file and keeps
        // its own copy.
        defer { try? file.close() }
        zwp_virtual_keyboard_v1_keymap(keyboard.proxy, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, file.rawValue, UInt32(keymap.text.count))
    }

    /// Said when the keyboard is made, before the seat's name has come.
    var summary: String { "the virtual keyboard (zwp_virtual_keyboard_v1)\(seatName.value.map { " on seat '\($0)'" } ?? "")" }

    func press(_ chord: KeyChord) throws(WaylandError) {
        guard let press = keymap.press(for: chord) else { throw WaylandError("the keymap has no key for '\(chord.keyName)'") }
        let time = UInt32(truncatingIfNeeded: MonotonicClock.now().microseconds / 1000)
        let proxy = keyboard.proxy
        // WL_KEYBOARD_KEY_STATE_PRESSED is 1, RELEASED 0.
        zwp_virtual_keyboard_v1_modifiers(proxy, press.modifierMask, 0, 0, 0)
        zwp_virtual_keyboard_v1_key(proxy, time, press.evdevCode, 1)
        zwp_virtual_keyboard_v1_key(proxy, time, press.evdevCode, 0)
        zwp_virtual_keyboard_v1_modifiers(proxy, 0, 0, 0, 0)
    }

    nonisolated(unsafe) private static let seatListener: UnsafeMutablePointer<wl_seat_listener> = {
        let listener = UnsafeMutablePointer<wl_seat_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_seat_listener(
            capabilities: { _, _, _ in },
            name: { data, _, name in
                guard let box = listenerContext(data, as: SeatName.self), let name else { return }
                box.value = String(cString: name)
            }))
        return listener
    }()
}

/// Key chords through KWin's `org_kde_kwin_fake_input` (version 4: `authenticate`, then `keyboard_key`), which KWin
/// grants to the executable its installed desktop entry names (docs/COMPOSITORS.md, "How KWin grants its restricted
/// interfaces"). KWin reads the keys through its own keymap, the user's, as if they were typed: a chord is its
/// modifier keys pressed, the key pressed and released, the modifiers released in reverse.
final class FakeInput: KeyBackend {
    private let fakeInput: WaylandObject<FakeInputKind>
    private let keymap: KeymapResolver

    init(on connection: WaylandConnection, global: WaylandGlobal, keymap: KeymapResolver) throws(WaylandError) {
        guard global.version >= KeyBackendChoice.fakeInputKeyVersion else {
            throw WaylandError("org_kde_kwin_fake_input version \(global.version) has no keyboard_key (version \(KeyBackendChoice.fakeInputKeyVersion))")
        }
        guard let fakeInput = connection.bind(global, FakeInputKind.self, cwayland_org_kde_kwin_fake_input_interface(), version: KeyBackendChoice.fakeInputKeyVersion)
        else { throw WaylandError("cannot bind org_kde_kwin_fake_input") }
        self.fakeInput = fakeInput
        self.keymap = keymap
        // KWin accepts every request but this one only once it came (5.27 asks nobody: the desktop entry is the whole
        // permission).
        org_kde_kwin_fake_input_authenticate(fakeInput.proxy, "EdgeSwipe", "press the key chords your swipe rules name")
    }

    var summary: String { "KWin's fake input (org_kde_kwin_fake_input version \(fakeInput.version))" }

    func press(_ chord: KeyChord) throws(WaylandError) {
        guard let keys = keymap.keys(for: chord) else {
            throw WaylandError("the keymap has no key for '\(chord)' as keys to press (mod2 and mod3 have none)")
        }
        let proxy = fakeInput.proxy
        let pressed = WL_KEYBOARD_KEY_STATE_PRESSED.rawValue, released = WL_KEYBOARD_KEY_STATE_RELEASED.rawValue
        for code in keys.held { org_kde_kwin_fake_input_keyboard_key(proxy, code, pressed) }
        org_kde_kwin_fake_input_keyboard_key(proxy, keys.key, pressed)
        org_kde_kwin_fake_input_keyboard_key(proxy, keys.key, released)
        for code in keys.held.reversed() { org_kde_kwin_fake_input_keyboard_key(proxy, code, released) }
    }
}
