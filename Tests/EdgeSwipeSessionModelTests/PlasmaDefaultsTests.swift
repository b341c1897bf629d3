import Testing

@testable import EdgeSwipeProtocol
@testable import EdgeSwipeSessionModel

/// The rules a session with no file runs on KDE Plasma (PlasmaDefaults.swift), against the same stream the general
/// defaults' cases use (RuleMatcherTests).
@Suite("Plasma's built-in rules")
struct PlasmaDefaultsTests {
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var desktop: Desktop?
        var messages: [ServerMessage]
        /// Each firing's rule and effect.
        var fired: [String]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "KDE: a completed 3-finger swipe left goes to the desktop on the right", desktop: .kde,
             messages: [Stream.hello()] + Stream.swipe(1, .left),
             fired: ["next desktop: kwin shortcut \"Switch One Desktop to the Right\""]),
        Case(name: "KDE: a completed 3-finger swipe right goes to the desktop on the left", desktop: .kde,
             messages: [Stream.hello()] + Stream.swipe(1, .right),
             fired: ["previous desktop: kwin shortcut \"Switch One Desktop to the Left\""]),
        Case(name: "KDE: a completed 1-finger left-edge swipe sends alt+Left", desktop: .kde,
             messages: [Stream.hello()] + Stream.edgeSwipe(1), fired: ["back: key alt+Left"]),
        Case(name: "KDE: a cancelled swipe and a cancelled edge swipe fire nothing", desktop: .kde,
             messages: [Stream.hello()] + Stream.swipe(1, .left, end: .cancelled) + Stream.edgeSwipe(2, end: .cancelled), fired: []),
        Case(name: "KDE: a 4-finger swipe is not a desktop switch", desktop: .kde,
             messages: [Stream.hello()] + Stream.swipe(1, .left, fingers: 4), fired: []),
        Case(name: "sway keeps the general defaults: workspaces, not KWin's shortcuts", desktop: .sway,
             messages: [Stream.hello()] + Stream.swipe(1, .left) + Stream.edgeSwipe(2),
             fired: ["next workspace: workspace next", "back: key alt+Left"]),
        Case(name: "an unknown desktop keeps the general defaults", desktop: nil,
             messages: [Stream.hello()] + Stream.swipe(1, .right), fired: ["previous workspace: workspace previous"]),
    ]

    @Test("with no rules file, each desktop's built-in rules fire as the table says", arguments: cases)
    func table(_ c: Case) {
        var matcher = RuleMatcher(rules: .defaults(for: c.desktop), desktop: c.desktop)
        let fired = c.messages.flatMap { RuleMatcherTests.firings(matcher.handle($0, app: nil)) }.map { "\($0.rule.name): \($0.rule.effect)" }
        #expect(fired == c.fired)
    }

    @Test("Plasma's rules name KDE, and fire on no other desktop")
    func onlyOnKDE() {
        #expect(RuleSet.plasmaRules.allSatisfy { $0.match.desktop == .kde && $0.place == "built-in" })
        var matcher = RuleMatcher(rules: RuleSet(fileRules: [], file: nil, builtIn: RuleSet.plasmaRules), desktop: .gnome)
        #expect(([Stream.hello()] + Stream.swipe(1, .left)).flatMap { RuleMatcherTests.firings(matcher.handle($0, app: nil)) }.isEmpty)
    }
}
