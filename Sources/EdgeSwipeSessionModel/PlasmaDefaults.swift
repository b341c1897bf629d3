/// The built-in rules on KDE Plasma (issue 38): what a session does there with no rules file, and after a file's own
/// rules unless it says `defaults = false` (``RuleSet/builtInRules(for:)`` picks them on KDE).
///
/// KWin has no compositor IPC the session speaks, so the sway/Hyprland/niri defaults' `workspace` rules cannot run on
/// it; its virtual desktops are switched through its own global shortcuts instead (`org.kde.kglobalaccel`,
/// `/component/kwin`, `invokeShortcut`), which KWin serves itself. The names are KWin's action names (its
/// `kwin.kglobalaccel` component), the same in Plasma 5.27 and 6. The "back" key is the defaults' own.
extension RuleSet {
    /// Plasma's built-in rules: a completed 3-finger swipe left goes to the desktop on the right (the next, as on
    /// sway), right to the one on the left, and a completed 1-finger left-edge swipe sends alt+Left.
    public static let plasmaRules: [Rule] = [
        Rule(
            name: "next desktop", place: Rule.builtInPlace, match: RuleMatch(swipe: .left, fingers: 3...3, desktop: .kde),
            effect: .kwinShortcut("Switch One Desktop to the Right")),
        Rule(
            name: "previous desktop", place: Rule.builtInPlace, match: RuleMatch(swipe: .right, fingers: 3...3, desktop: .kde),
            effect: .kwinShortcut("Switch One Desktop to the Left")),
        Rule(name: "back", place: Rule.builtInPlace, match: RuleMatch(edge: .left, fingers: 1...1, desktop: .kde), effect: .key(backChord)),
    ]
}
