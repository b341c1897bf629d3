import EdgeSwipeBus
import Testing

@testable import EdgeSwipeSession

/// KWin's focus script as the session writes it, and what it makes of each `org.edgeswipe.Focus1.Activated` call
/// (Bus/KWinFocus.swift). KWinTests runs the shipped script in a real KWin.
@Suite("The focused app on KWin: the script and its reports")
struct KWinFocusTests {
    @Test("the embedded script is packaging/kwin/edgeswipe-focus.js with the session's unique name written in once, and only a unique name is")
    func script() throws {
        let template = KWinFocus.template
        #expect(template.contains("workspace.clientActivated") && template.contains("callDBus"))
        #expect(template.components(separatedBy: KWinFocus.placeholder).count == 2)
        let text = try #require(KWinFocus.script(destination: ":1.42"))
        #expect(text.contains("const destination = \":1.42\";") && !text.contains(KWinFocus.placeholder))
        for bad in ["org.edgeswipe.Session", ":1.42\"; evil(); \"", "", ":", ":1.a"] {
            #expect(KWinFocus.script(destination: bad) == nil, "\(bad)")
        }
    }

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var sender: String?
        var owner: String?
        var arguments: [BusValue]
        var report: KWinFocus.Report
        var description: String { name }
    }

    static let denied = KWinFocus.Report.accessDenied(
        "org.edgeswipe.Focus1.Activated is for KWin's connection (the owner of org.kde.KWin) alone; :1.9 is not it")

    static let cases: [Case] = [
        Case(name: "KWin reports a window: its resource class", sender: ":1.3", owner: ":1.3",
             arguments: [.string("org.kde.konsole"), .string("org.kde.konsole")], report: .focused("org.kde.konsole")),
        Case(name: "no resource class: the desktop file name", sender: ":1.3", owner: ":1.3",
             arguments: [.string(""), .string("firefox")], report: .focused("firefox")),
        Case(name: "no window is active", sender: ":1.3", owner: ":1.3", arguments: [.string(""), .string("")], report: .focused(nil)),
        Case(name: "another connection claims a window: refused", sender: ":1.9", owner: ":1.3",
             arguments: [.string("forged"), .string("forged")], report: denied),
        Case(name: "while nobody owns org.kde.KWin, nobody may report", sender: ":1.9", owner: nil,
             arguments: [.string("forged"), .string("forged")], report: denied),
        Case(name: "KWin with the wrong arguments: refused as such", sender: ":1.3", owner: ":1.3",
             arguments: [.string("one")], report: .invalidArguments("org.edgeswipe.Focus1.Activated takes (ss): the resource class and the desktop file name")),
    ]

    @Test("each call is a focus change only from KWin's connection, with the arguments it must have", arguments: cases)
    func reports(_ c: Case) {
        #expect(KWinFocus.report(sender: c.sender, kwinOwner: c.owner, arguments: c.arguments) == c.report)
    }

    @Test("a resource class past 256 bytes is cut at a character boundary")
    func long() {
        let report = KWinFocus.report(sender: ":1.3", kwinOwner: ":1.3", arguments: [.string(String(repeating: "ж", count: 300)), .string("")])
        guard case .focused(let app?) = report else {
            Issue.record("\(report)")
            return
        }
        #expect(app.utf8.count == 256 && app.allSatisfy { $0 == "ж" })
    }
}
