import CXKBCommon

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
    package init(_ description: String) { self.description = description }
}
