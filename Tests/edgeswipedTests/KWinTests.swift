import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// KWin's interfaces the session will use on Plasma (issue 38), proven on a real headless KWin 5.27 before the session
/// uses them: the desktop entry that makes KWin grant `org_kde_kwin_fake_input` (packaging/edgeswipe-session.desktop,
/// with our own protocol XML).
@Suite(
    "KWin: the desktop entry's grant of fake input", .serialized,
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
