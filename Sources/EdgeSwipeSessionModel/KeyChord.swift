import CWayland
import Glibc

/// A key with the modifiers held while it is pressed, as a rule writes it: `alt+Left`, `ctrl+alt+t`,
/// `XF86AudioRaiseVolume`. The key is an XKB keysym name (as `xev` and sway's `bindsym` name keys); the modifiers
/// are `shift`, `ctrl` (`control`), `alt` (`mod1`), `super` (`logo`, `mod4`), `altgr` (`mod5`), `mod2`, `mod3`.
public struct KeyChord: Hashable, Sendable, CustomStringConvertible {
    public enum Modifier: String, Hashable, Sendable, CaseIterable, Comparable {
        case shift, ctrl, alt, mod2, mod3, `super`, altgr

        /// The name xkbcommon's keymaps give the modifier.
        public var xkbName: String {
            switch self {
            case .shift: "Shift"
            case .ctrl: "Control"
            case .alt: "Mod1"
            case .mod2: "Mod2"
            case .mod3: "Mod3"
            case .super: "Mod4"
            case .altgr: "Mod5"
            }
        }

        static let aliases: [String: Modifier] = [
            "shift": .shift, "ctrl": .ctrl, "control": .ctrl, "alt": .alt, "mod1": .alt, "mod2": .mod2, "mod3": .mod3,
            "super": .super, "logo": .super, "mod4": .super, "win": .super, "altgr": .altgr, "mod5": .altgr,
        ]

        public static func < (a: Modifier, b: Modifier) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    public var modifiers: [Modifier]
    /// The keysym's canonical name (`Left`).
    public var keyName: String
    public var keysym: UInt32

    /// Reads `text`; the error says which part is wrong.
    public init(parsing text: String) throws(KeyChordError) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false).map { String($0) }
        guard let key = parts.last, !key.isEmpty, !parts.dropLast().contains(where: \.isEmpty) else {
            throw KeyChordError("'\(text)' is not a key chord: write modifiers and a key joined by '+' (alt+Left)")
        }
        var modifiers: [Modifier] = []
        for part in parts.dropLast() {
            guard let m = Modifier.aliases[part.lowercased()] else {
                throw KeyChordError("'\(part)' in '\(text)' is not a modifier; expected shift, ctrl, alt, super, altgr, mod2 or mod3")
            }
            guard !modifiers.contains(m) else { throw KeyChordError("'\(text)' names \(m.rawValue) twice") }
            modifiers.append(m)
        }
        var sym = xkb_keysym_from_name(key, XKB_KEYSYM_NO_FLAGS)
        if sym == 0 { sym = xkb_keysym_from_name(key, XKB_KEYSYM_CASE_INSENSITIVE) }
        guard sym != 0 else {
            throw KeyChordError("'\(key)' in '\(text)' is not a key name (XKB keysym names: Left, Return, F5, XF86AudioRaiseVolume, a, ...)")
        }
        self.modifiers = modifiers.sorted()
        self.keysym = sym
        self.keyName = Self.name(of: sym) ?? key
    }

    static func name(of keysym: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = xkb_keysym_get_name(keysym, &buffer, buffer.count)
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { (modifiers.map(\.rawValue) + [keyName]).joined(separator: "+") }
}

public struct KeyChordError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

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
        let shift = xkb_keymap_mod_get_index(keymap, "Shift")
        for level: UInt32 in [0, 1] {
            var code = xkb_keymap_min_keycode(keymap)
            while code <= xkb_keymap_max_keycode(keymap) {
                defer { code += 1 }
                guard level < xkb_keymap_num_levels_for_key(keymap, code, 0) else { continue }
                var syms: UnsafePointer<xkb_keysym_t>? = nil
                let n = xkb_keymap_key_get_syms_by_level(keymap, code, 0, level, &syms)
                guard n > 0, let syms else { continue }
                if (0..<Int(n)).contains(where: { syms[$0] == chord.keysym }) {
                    let extra: UInt32 = level == 1 && shift != XKB_MOD_INVALID ? 1 << shift : 0
                    // XKB key codes are evdev's plus 8 (the X11 offset).
                    return Press(evdevCode: code - 8, modifierMask: mask | extra)
                }
            }
        }
        return nil
    }
}
