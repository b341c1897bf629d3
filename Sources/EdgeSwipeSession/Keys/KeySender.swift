public import EdgeSwipeSessionModel

/// The session's keys role: something that presses a rule's chord on the user's desktop, without waiting. On GNOME it
/// is EdgeSwipe's extension (``GnomeShell``, through `SendChord`); the wlroots virtual keyboard (``VirtualKeyboard``)
/// and KWin's fake input are the other backends this role is for. A backend says a failure itself, naming the rule.
public protocol KeySender: Sendable {
    /// Sends `chord` for `rule` (its name in log lines).
    func send(_ chord: KeyChord, rule: String)
}

extension GnomeShell: KeySender {}
