public import EdgeSwipeSessionModel

/// The session's one way to press a key chord, whatever carries it: the Wayland thread's backends (the wlroots
/// virtual keyboard, KWin's fake input: ``WaylandThread``), GNOME Shell's extension over D-Bus, and later libei
/// (docs/COMPOSITORS.md, "The key sender"). The session's event loop hands a chord over and goes on: a sender never
/// waits for the compositor, and says itself (once) when and why a chord cannot be pressed.
public protocol KeySender: Sendable {
    /// Queues `chord` for the rule described by `rule` (its name in log lines); returns at once.
    func send(_ chord: KeyChord, rule: String)
}

/// Which Wayland backend carries chords on a compositor, from the globals it offers: the virtual keyboard where there
/// is one (wlroots: sway, Hyprland, phoc...), else KWin's fake input (granted by our desktop entry), else none, with
/// the real cause. Chosen again when globals come or go (a seat that appears late, issue 38 item 4).
enum KeyBackendChoice: Hashable, Sendable {
    case virtualKeyboard(manager: WaylandGlobal, seat: WaylandGlobal)
    case fakeInput(WaylandGlobal)
    /// The virtual keyboard is offered but the compositor has no seat yet (phoc makes it with its first input
    /// device): the keyboard is made as soon as one appears.
    case waitingForSeat
    case unavailable(String)

    static let virtualKeyboardInterface = "zwp_virtual_keyboard_manager_v1"
    static let fakeInputInterface = "org_kde_kwin_fake_input"
    /// `keyboard_key`'s version.
    static let fakeInputKeyVersion: UInt32 = 4

    /// Why a compositor that offers neither protocol takes no keys: what it lacks, which is the cause (weston also has
    /// no seat, but a seat would not help it).
    static let noProtocol =
        "the compositor offers no virtual keyboard protocol (zwp_virtual_keyboard_manager_v1, which wlroots compositors have) "
        + "and no KWin fake input (org_kde_kwin_fake_input, which KWin grants to edgeswipe-session through its installed "
        + "desktop entry: docs/COMPOSITORS.md)"

    static func choose(from globals: [WaylandGlobal]) -> KeyBackendChoice {
        if let manager = globals.first(where: { $0.interface == virtualKeyboardInterface }) {
            guard let seat = globals.first(where: { $0.interface == "wl_seat" }) else { return .waitingForSeat }
            return .virtualKeyboard(manager: manager, seat: seat)
        }
        if let fake = globals.first(where: { $0.interface == fakeInputInterface }) {
            guard fake.version >= fakeInputKeyVersion else {
                return .unavailable("KWin's org_kde_kwin_fake_input is version \(fake.version); keys need version \(fakeInputKeyVersion) (KWin 5.27 or later)")
            }
            return .fakeInput(fake)
        }
        return .unavailable(noProtocol)
    }

    /// What the log says of this choice.
    var description: String {
        switch self {
        case .virtualKeyboard: "through the virtual keyboard (zwp_virtual_keyboard_v1)"
        case .fakeInput(let g): "through KWin's fake input (org_kde_kwin_fake_input version \(min(g.version, Self.fakeInputKeyVersion)))"
        case .waitingForSeat: "waiting for the compositor's seat (it has none yet: phoc makes one with its first input device)"
        case .unavailable(let why): "cannot be sent: \(why)"
        }
    }
}

/// One way of pressing chords on the current connection, on the Wayland thread: made when its globals are there,
/// let go of with the connection.
protocol KeyBackend: AnyObject {
    /// Queues the requests that press and release `chord` (the caller flushes).
    func press(_ chord: KeyChord) throws(WaylandError)
    /// What the log calls it.
    var summary: String { get }
}
