import Testing

@testable import EdgeSwipeSession

/// The focused app from wlr-foreign-toplevel-management's events (Wayland/ForeignToplevels.swift), as a table of event
/// sequences and the focus changes they report. The real protocol is exercised on phoc by SessionMatrixTests.
@Suite("The focused app from foreign toplevels")
struct ToplevelFocusTests {
    enum Event: Sendable {
        case app(UInt32, String), state(UInt32, [UInt32]), done(UInt32), closed(UInt32)
    }

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var events: [Event]
        /// Each change reported, `-` for none focused.
        var changes: [String]
        var description: String { name }
    }

    static let activated: UInt32 = 2, maximized: UInt32 = 0

    static let cases: [Case] = [
        Case(name: "a window announced activated is focused at its done, not before",
             events: [.app(1, "foot"), .state(1, [activated]), .done(1)], changes: ["foot"]),
        Case(name: "nothing is reported until done",
             events: [.app(1, "foot"), .state(1, [activated])], changes: []),
        Case(name: "a second window activated takes the focus; the first's deactivation changes nothing more",
             events: [.app(1, "foot"), .state(1, [activated]), .done(1), .app(2, "firefox"), .state(2, [maximized, activated]), .done(2),
                      .state(1, []), .done(1)],
             changes: ["foot", "firefox"]),
        Case(name: "the focused window closes while another is still activated (its deactivation came first): focus returns",
             events: [.app(1, "foot"), .state(1, [activated]), .done(1), .app(2, "firefox"), .state(2, [activated]), .done(2), .closed(2)],
             changes: ["foot", "firefox", "foot"]),
        Case(name: "the only window closes: nothing is focused",
             events: [.app(1, "foot"), .state(1, [activated]), .done(1), .closed(1)], changes: ["foot", "-"]),
        Case(name: "an app id change of the focused window is a focus change; a title-only batch is not",
             events: [.app(1, "foot"), .state(1, [activated]), .done(1), .done(1), .app(1, "footclient"), .done(1)],
             changes: ["foot", "footclient"]),
        Case(name: "an activated window without an app id focuses nothing",
             events: [.state(1, [activated]), .done(1)], changes: []),
        Case(name: "a handle never announced closes: nothing changes",
             events: [.closed(9)], changes: []),
    ]

    @Test("the events give the focus changes the table says", arguments: cases)
    func table(_ c: Case) {
        var focus = ToplevelFocus()
        var changes: [String] = []
        for event in c.events {
            let change: String??
            switch event {
            case .app(let id, let app):
                focus.appID(id, app)
                change = nil
            case .state(let id, let values):
                focus.state(id, values)
                change = nil
            case .done(let id): change = focus.done(id)
            case .closed(let id): change = focus.closed(id)
            }
            if let change { changes.append(change ?? "-") }
        }
        #expect(changes == c.changes)
    }

    @Test("an app id past 256 bytes is cut at a character boundary")
    func longAppID() {
        var focus = ToplevelFocus()
        focus.appID(1, String(repeating: "é", count: 200))
        focus.state(1, [Self.activated])
        let change = focus.done(1)
        #expect(change??.utf8.count == 256)
        #expect(change??.allSatisfy { $0 == "é" } == true)
    }
}
