import Foundation
import Glibc
import Testing

/// The GNOME Shell extension without a shell: it is linted (Debian's eslint), its two formats are built from one
/// source, `make install` puts it where GNOME finds system extensions, and its shared code runs under `gjs -m` with
/// stand-ins for the shell, as does the GNOME 45 entry (with stand-ins for GNOME 45's own modules): GNOME 45 and later
/// cannot run on Debian 12, so that is how the 45+ format is checked here (`GnomeShell/core-test.js`).
@Suite("the GNOME Shell extension, built, linted and run under gjs", .serialized)
struct GnomeExtensionCheckTests {
    static let source = HeadlessGnomeShell.extensionSource
    static let uuid = HeadlessGnomeShell.extensionUUID

    /// Where Debian's eslint is, or `nil`.
    static var eslint: String? { ["/usr/bin/eslint"].first { FileManager.default.isExecutableFile(atPath: $0) } }

    static var gjsMissing: String? {
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/gjs") { return "no gjs (apt install gjs)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/glib-compile-resources") {
            return "no glib-compile-resources (apt install libglib2.0-dev-bin): the GNOME 45 entry's stand-ins are a GResource"
        }
        return nil
    }

    /// The typelibs of mutter and gnome-shell (Clutter, Meta, Shell, St), which the GNOME 45 entry imports.
    static var shellTypelibs: [String] {
        ["/usr/lib/x86_64-linux-gnu/mutter-11", "/usr/lib/aarch64-linux-gnu/mutter-11", "/usr/lib/gnome-shell"]
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    @Test("eslint finds nothing in the extension (both entries and the shared code)",
          .enabled(if: eslint != nil || HeadlessGnomeShell.required, "no eslint (apt install eslint)"))
    func lint() throws {
        let eslint = try #require(Self.eslint, "EDGESWIPE_REQUIRE_GNOME=1, but eslint is not installed (apt install eslint)")
        // Debian's eslint is a Node program whose modules are in /usr/share/nodejs, where a Node from elsewhere does
        // not look; `unix` is the one formatter that needs no extra module.
        let files = ["core.js", "legacy/extension.js", "esm/extension.js"].map { Self.source.appendingPathComponent($0).path }
        let r = try run(
            URL(fileURLWithPath: eslint), ["-f", "unix"] + files,
            environment: ["PATH": "/usr/bin:/bin", "NODE_PATH": "/usr/share/nodejs", "HOME": NSTemporaryDirectory()])
        #expect(r.status == 0, "eslint:\n\(r.stdout)\(r.stderr)")
    }

    @Test("one source, two formats: legacy for GNOME 43-44, esm for 45 and later; core.js differs only by its export")
    func formats() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var cores: [String: String] = [:]
        for (format, versions) in [("legacy", ["43", "44"]), ("esm", ["45", "46", "47", "48", "49", "50"])] {
            let out = dir.appendingPathComponent(format)
            let r = try run(Self.source.appendingPathComponent("build"), [format, out.path])
            #expect(r.status == 0, "\(format): \(r.stderr)")
            let folder = out.appendingPathComponent(Self.uuid)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(files == ["core.js", "extension.js", "metadata.json", "org.edgeswipe.Shell1.xml"], "\(format): \(files)")
            let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("metadata.json"))) as? [String: Any]
            #expect(metadata?["uuid"] as? String == Self.uuid)
            #expect(metadata?["shell-version"] as? [String] == versions, "\(format): \(metadata ?? [:])")
            let entry = try String(contentsOf: folder.appendingPathComponent("extension.js"), encoding: .utf8)
            let expected = try String(contentsOf: Self.source.appendingPathComponent("\(format)/extension.js"), encoding: .utf8)
            #expect(entry == expected, "\(format): the entry is copied as it is")
            cores[format] = try String(contentsOf: folder.appendingPathComponent("core.js"), encoding: .utf8)
        }
        let shared = try String(contentsOf: Self.source.appendingPathComponent("core.js"), encoding: .utf8)
        #expect(cores["legacy"] == shared)
        #expect(cores["esm"] == shared + "\nexport {edgeSwipeCore};\n")
        let refused = try run(Self.source.appendingPathComponent("build"), ["gnome-42", dir.path])
        #expect(refused.status == 64 && refused.stderr.contains("'gnome-42' is no format"), "\(refused.stderr)")
    }

    @Test("make install puts it where GNOME finds system extensions, in the format of the GNOME installed; uninstall removes it")
    func install() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let make = URL(fileURLWithPath: "/usr/bin/make")
        try #require(FileManager.default.isExecutableFile(atPath: make.path), "no make")
        let r = try run(make, ["-C", Paths.packageRoot.path, "install-gnome-extension", "DESTDIR=\(dir.path)", "PREFIX=/usr"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let folder = dir.appendingPathComponent("usr/share/gnome-shell/extensions/\(Self.uuid)")
        let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("metadata.json"))) as? [String: Any]
        let installedMajor = try? run(URL(fileURLWithPath: "/usr/bin/gnome-shell"), ["--version"]).stdout
            .split(separator: " ").last.flatMap { Int($0.split(separator: ".").first ?? "") }
        let expected = (installedMajor ?? 43) >= 45 ? "45" : "43"
        #expect((metadata?["shell-version"] as? [String])?.first == expected, "auto: \(metadata ?? [:]) for GNOME \(installedMajor.map { "\($0)" } ?? "none")")
        let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("core.js").path)[.posixPermissions] as? Int
        #expect(mode == 0o644)
        let u = try run(make, ["-C", Paths.packageRoot.path, "-s", "uninstall", "DESTDIR=\(dir.path)", "PREFIX=/usr"])
        #expect(u.status == 0, "\(u.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path), "uninstall removes the extension's folder")
    }

    @Test("the shared code under gjs -m with stand-ins for the shell, and the GNOME 45 entry loaded as an ES module",
          .enabled(if: gjsMissing == nil || HeadlessGnomeShell.required, "\(gjsMissing ?? "")"))
    func underGjs() throws {
        try #require(Self.gjsMissing == nil, "EDGESWIPE_REQUIRE_GNOME=1, but \(Self.gjsMissing ?? "")")
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let built = try run(Self.source.appendingPathComponent("build"), ["esm", dir.path])
        #expect(built.status == 0, "\(built.stderr)")
        let fixtures = HeadlessGnomeShell.fixtures
        let resource = dir.appendingPathComponent("stubs.gresource")
        let compiled = try run(
            URL(fileURLWithPath: "/usr/bin/glib-compile-resources"),
            ["--sourcedir=\(fixtures.appendingPathComponent("stubs").path)", "--target=\(resource.path)",
             fixtures.appendingPathComponent("stubs/stubs.gresource.xml").path])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        // Without gnome-shell's typelibs the entry cannot import gi://Shell: only the shared code is checked then.
        let entry = Self.shellTypelibs.count >= 2 ? [resource.path] : []
        let libraries = Self.shellTypelibs.joined(separator: ":")
        let r = try run(
            URL(fileURLWithPath: "/usr/bin/gjs"), ["-m", fixtures.appendingPathComponent("core-test.js").path, dir.appendingPathComponent(Self.uuid).path] + entry,
            environment: ["PATH": "/usr/bin:/bin", "HOME": dir.path, "GI_TYPELIB_PATH": libraries, "LD_LIBRARY_PATH": libraries])
        let failed = r.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
        #expect(r.status == 0 && failed.isEmpty, "\(failed.joined(separator: "\n"))\n\(r.stderr.suffix(3000))")
        #expect(r.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS") }.count >= 50, "\(r.stdout)")
        if !entry.isEmpty {
            #expect(r.stdout.contains("PASS the GNOME 45 entry loads"), "\(r.stdout)")
        } else if HeadlessGnomeShell.required {
            Issue.record("EDGESWIPE_REQUIRE_GNOME=1, but mutter's and gnome-shell's typelibs are missing: the GNOME 45 entry was not loaded")
        }
    }
}
