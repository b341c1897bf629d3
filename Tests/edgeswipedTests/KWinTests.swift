import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// KWin's interfaces the session will use on Plasma (issue 38), proven on a real headless KWin 5.27 before the session
/// uses them: the desktop entry that makes KWin grant `org_kde_kwin_fake_input` (packaging/edgeswipe-session.desktop,
/// with our own protocol XML), and the KWin script that reports the active window over D-Bus
/// (packaging/kwin/edgeswipe-focus.js). docs/COMPOSITORS.md explains both.
@Suite(
    "KWin: the desktop entry's grant of fake input, and the focus script", .serialized,
    .enabled(if: HeadlessKWin.unavailable == nil || HeadlessKWin.required, "\(HeadlessKWin.unavailable ?? "")"))
struct KWinTests {
    @Test("KWin offers org_kde_kwin_fake_input (version 4) to the binary at the desktop entry's Exec path, and not to the same binary anywhere else")
    func grantFollowsTheDesktopEntry() throws {
        try #require(HeadlessKWin.unavailable == nil, "EDGESWIPE_REQUIRE_KWIN=1, but \(HeadlessKWin.unavailable ?? "")")
        let kwin = try HeadlessKWin(installing: [KWinGrant.desktopEntry])
        let named = try KWinGrant.install(.fakeKeys, as: "edgeswipe-session", in: kwin)
        let elsewhere = try KWinGrant.install(.fakeKeys, as: "fake-keys", in: kwin)
        let granted = try kwin.runClient([named.path, "\(KWinGrant.leftShift)"])
        #expect(granted.status == 0 && granted.output.contains("bound 4 of 4"), "\(granted.output)\n\(kwin.session.describeLogs())")
        let refused = try kwin.runClient([elsewhere.path, "\(KWinGrant.leftShift)"])
        #expect(refused.status == 3 && refused.output.contains("no org_kde_kwin_fake_input"), "\(refused.output)")
        // KWin says why, in its own words (kwin_core's debug category).
        #expect(kwin.log.contains("not in X-KDE-Wayland-Interfaces of \"\(elsewhere.path)\""), "\(kwin.session.describeLogs())")
        #expect(kwin.log.contains("authorized \"\(named.path)\" \"org_kde_kwin_fake_input\""), "\(kwin.session.describeLogs())")
    }

    @Test("the focus script, loaded over D-Bus, reports the active window and each change to the session's method from KWin's connection alone; unloaded, it reports nothing",
          .timeLimit(.minutes(2)))
    func focusScript() throws {
        try #require(HeadlessKWin.unavailable == nil, "EDGESWIPE_REQUIRE_KWIN=1, but \(HeadlessKWin.unavailable ?? "")")
        let kwin = try HeadlessKWin()
        let receiver = try kwin.startClient("focus-receiver", ["/usr/bin/python3", KWinFocusScript.receiver.path])
        #expect(receiver.waitForLine { $0.hasPrefix("name ") }, "\(kwin.session.describeLogs())")
        let name = try #require(receiver.lines.first { $0.hasPrefix("name ") }?.dropFirst(5)).description
        func reports() -> [String] { receiver.lines.filter { $0.hasPrefix("activated ") }.map { String($0.dropFirst(10)) } }
        func windows() -> [String] { reports().filter { $0 != "|" } }

        _ = try CompositorMatrixTests.showKeyLogger(on: kwin, appID: "org.edgeswipe.First")

        // Load and start it as the session will.
        let script = try kwin.session.write(try KWinFocusScript.text(destination: name), to: "edgeswipe-focus.js")
        let loaded = try kwin.busctl(["call", "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "loadScript", "ss", script.path, KWinFocusScript.pluginName])
        #expect(loaded.status == 0 && loaded.output.hasPrefix("i "), "loadScript: \(loaded.output)")
        #expect(try kwin.busctl(["call", "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "start"]).status == 0)
        #expect(waitUntil { windows() == ["org.edgeswipe.First|org.edgeswipe.First"] }, "the active window at start: \(reports())\n\(kwin.session.describeLogs())")

        // A second window is activated, and when it closes the first is again.
        let second = try CompositorMatrixTests.showKeyLogger(on: kwin, appID: "org.edgeswipe.Second")
        #expect(waitUntil { windows().last == "org.edgeswipe.Second|org.edgeswipe.Second" }, "\(reports())")
        kill(-second.process.processIdentifier, SIGKILL)
        second.process.waitUntilExit()
        #expect(waitUntil { windows().count == 3 }, "\(reports())")
        #expect(windows() == ["org.edgeswipe.First|org.edgeswipe.First", "org.edgeswipe.Second|org.edgeswipe.Second", "org.edgeswipe.First|org.edgeswipe.First"])

        // Anyone else on the bus is refused: the method admits the owner of org.kde.KWin alone.
        let forged = try kwin.busctl(["call", name, KWinFocusScript.path, KWinFocusScript.interface, KWinFocusScript.method, "ss", "forged", "forged"])
        // busctl names sd-bus's errno for org.freedesktop.DBus.Error.AccessDenied.
        #expect(forged.status != 0 && forged.output.contains("Access denied"), "\(forged.output)")
        #expect(receiver.waitForLine { $0.hasPrefix("refused ") })
        #expect(!reports().contains("forged|forged"))

        // Unloaded (as the session does at exit), it reports nothing more.
        let unloaded = try kwin.busctl(["call", "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "unloadScript", "s", KWinFocusScript.pluginName])
        #expect(unloaded.output.trimmingCharacters(in: .whitespacesAndNewlines) == "b true", "unloadScript: \(unloaded.output)")
        // Shown once KWin activated it (its keyboard focus came).
        _ = try CompositorMatrixTests.showKeyLogger(on: kwin, appID: "org.edgeswipe.Third")
        // KWin handled the activation before this request; its connection sends in order, and the receiver reads in
        // order: once it has answered the ping, any report the script sent is in its log.
        let stillLoaded = try kwin.busctl(["call", "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "isScriptLoaded", "s", KWinFocusScript.pluginName])
        #expect(stillLoaded.output.trimmingCharacters(in: .whitespacesAndNewlines) == "b false", "isScriptLoaded: \(stillLoaded.output)")
        #expect(try kwin.busctl(["call", name, "/", "org.freedesktop.DBus.Peer", "Ping"]).status == 0)
        #expect(!windows().contains { $0.contains("Third") }, "reported after unloadScript: \(reports())")
    }

    @Test("the desktop entry passes desktop-file-validate, is hidden from menus, and its Exec is the session's binary alone",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/desktop-file-validate") || HeadlessKWin.required,
                   "desktop-file-validate is not installed (apt install desktop-file-utils)"))
    func desktopEntry() throws {
        let validate = try run(URL(fileURLWithPath: "/usr/bin/desktop-file-validate"), [KWinGrant.desktopEntry.path])
        #expect(validate.status == 0 && validate.stdout.isEmpty, "\(validate.stdout)\(validate.stderr)")
        let keys = try String(contentsOf: KWinGrant.desktopEntry, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && $0.contains("=") }
            .reduce(into: [String: String]()) { keys, line in
                let parts = line.split(separator: "=", maxSplits: 1)
                keys[String(parts[0])] = String(parts[1])
            }
        #expect(keys["Exec"] == "/usr/local/bin/edgeswipe-session", "`make install` rewrites this path; KWin compares it with the executable")
        #expect(keys["NoDisplay"] == "true" && keys["Hidden"] == nil && keys["OnlyShowIn"] == nil && keys["NotShowIn"] == nil)
        #expect(keys["X-KDE-Wayland-Interfaces"] == "org_kde_kwin_fake_input")
    }
}

/// What the KWin tests install: the shipped desktop entry, and a test binary at the path it names.
enum KWinGrant {
    static let desktopEntry = Paths.packageRoot.appendingPathComponent("packaging/edgeswipe-session.desktop")
    /// Evdev key codes (linux/input-event-codes.h): what org_kde_kwin_fake_input.keyboard_key takes.
    static let leftShift = 42, leftAlt = 56, left = 105

    /// Copies `probe` into `kwin`'s ``HeadlessKWin/binDirectory`` as `name`, as `make install` puts a binary there.
    static func install(_ probe: WaylandProbe, as name: String, in kwin: HeadlessKWin) throws -> URL {
        try FileManager.default.createDirectory(at: kwin.binDirectory, withIntermediateDirectories: true)
        chmod(kwin.binDirectory.path, 0o755)
        let target = kwin.binDirectory.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: try probe.binary(), to: target)
        chmod(target.path, 0o755)
        return target
    }
}

/// The focus script and the D-Bus method it calls (docs/COMPOSITORS.md, "The focused window on KWin").
enum KWinFocusScript {
    static let template = Paths.packageRoot.appendingPathComponent("packaging/kwin/edgeswipe-focus.js")
    /// The test's stand-in for the session's side of the method.
    static let receiver = WaylandProbe.source.appendingPathComponent("focus-receiver.py")
    static let placeholder = "@EDGESWIPE_BUS_NAME@"
    static let pluginName = "edgeswipe-focus"
    static let path = "/org/edgeswipe/Session"
    static let interface = "org.edgeswipe.Focus1"
    static let method = "Activated"

    /// The script with `destination` (a unique bus name) in place of the placeholder, as the session writes it.
    static func text(destination: String) throws -> String {
        let template = try String(contentsOf: template, encoding: .utf8)
        guard template.contains(placeholder) else { throw DaemonTestError("\(Self.template.path) has no \(placeholder)") }
        return template.replacingOccurrences(of: placeholder, with: destination)
    }
}
