import CXKBCommon
import EdgeSwipeSessionModel
import Glibc

/// An XKB keymap of our own (the layout from `XKB_DEFAULT_LAYOUT` and its siblings, else `us`), from which a chord's
/// key code and modifier mask come: the compositor reads the virtual keyboard's keys through exactly this keymap.
final class KeymapResolver {
    private let context: OpaquePointer
    private let keymap: OpaquePointer
    /// The keymap as text, for `zwp_virtual_keyboard_v1.keymap`.
    let text: [UInt8]

    /// A key press the compositor understands: an evdev key code and the modifier mask held around it.
    struct Press: Hashable, Sendable {
        var evdevCode: UInt32
        var modifierMask: UInt32
    }

    init() throws(KeyChordError) {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw KeyChordError("xkbcommon: cannot make a context") }
        // NULL names: xkbcommon takes XKB_DEFAULT_RULES/MODEL/LAYOUT/VARIANT/OPTIONS from the environment, else its
        // built-in defaults (evdev, pc105, us).
        guard let keymap = xkb_keymap_new_from_names(context, nil, XKB_KEYMAP_COMPILE_NO_FLAGS) else {
            xkb_context_unref(context)
            throw KeyChordError("xkbcommon cannot compile a keymap (is xkb-data installed? XKB_DEFAULT_LAYOUT=\(Self.environment("XKB_DEFAULT_LAYOUT") ?? "unset"))")
        }
        guard let raw = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else {
            xkb_keymap_unref(keymap)
            xkb_context_unref(context)
            throw KeyChordError("xkbcommon cannot write its keymap as text")
        }
        // The protocol wants the terminating NUL inside the mapped size.
        text = Array(UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw) + 1))
        free(raw)
        self.context = context
        self.keymap = keymap
    }

    deinit {
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    private static func environment(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        return String(cString: v)
    }

    /// The key code and modifiers for `chord`: the first key whose level 1 bears the keysym, else one whose level 2
    /// does, with Shift added. `nil` when the layout has no key for it.
    func press(for chord: KeyChord) -> Press? {
        var mask: UInt32 = 0
        for m in chord.modifiers {
            let index = xkb_keymap_mod_get_index(keymap, m.xkbName)
            guard index != XKB_MOD_INVALID else { return nil }
            mask |= 1 << index
        }
        guard let (code, level) = key(for: chord.keysym) else { return nil }
        let shift = xkb_keymap_mod_get_index(keymap, "Shift")
        let extra: UInt32 = level == 1 && shift != XKB_MOD_INVALID ? 1 << shift : 0
        return Press(evdevCode: code, modifierMask: mask | extra)
    }

    /// `chord` as keys to hold and press, for a sender that has no modifier mask (KWin's fake input: it reads the
    /// keys through the user's keymap as if they were typed): the modifiers' own keys (Shift too, when the keysym
    /// is on a key's second level), then the key. `nil` when the layout lacks one of them; `mod2` and `mod3` have no
    /// key that only holds them.
    func keys(for chord: KeyChord) -> (held: [UInt32], key: UInt32)? {
        guard let (code, level) = key(for: chord.keysym) else { return nil }
        var modifiers = chord.modifiers
        if level == 1 && !modifiers.contains(.shift) { modifiers.insert(.shift, at: 0) }
        var held: [UInt32] = []
        for m in modifiers {
            guard let sym = Self.modifierKeysym(m), let (modifierCode, modifierLevel) = key(for: sym), modifierLevel == 0 else { return nil }
            held.append(modifierCode)
        }
        return (held, code)
    }

    /// The key that holds `modifier` on a standard layout: its left one (AltGr's is ISO_Level3_Shift).
    static func modifierKeysym(_ modifier: KeyChord.Modifier) -> UInt32? {
        switch modifier {
        case .shift: 0xffe1  // Shift_L
        case .ctrl: 0xffe3  // Control_L
        case .alt: 0xffe9  // Alt_L
        case .super: 0xffeb  // Super_L
        case .altgr: 0xfe03  // ISO_Level3_Shift
        case .mod2, .mod3: nil
        }
    }

    /// The evdev code of the first key whose first level bears `keysym`, else of one whose second level does, and
    /// that level (0 or 1).
    private func key(for keysym: UInt32) -> (code: UInt32, level: UInt32)? {
        for level: UInt32 in [0, 1] {
            var code = xkb_keymap_min_keycode(keymap)
            while code <= xkb_keymap_max_keycode(keymap) {
                defer { code += 1 }
                guard level < xkb_keymap_num_levels_for_key(keymap, code, 0) else { continue }
                var syms: UnsafePointer<xkb_keysym_t>? = nil
                let n = xkb_keymap_key_get_syms_by_level(keymap, code, 0, level, &syms)
                guard n > 0, let syms else { continue }
                // XKB key codes are evdev's plus 8 (the X11 offset).
                if (0..<Int(n)).contains(where: { syms[$0] == keysym }), code >= 8 { return (code - 8, level) }
            }
        }
        return nil
    }
}
