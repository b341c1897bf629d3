import Foundation
import Testing

/// `docs/man/` holds the manual pages a clone reads (`man -l docs/man/edgeswiped.8`, issue 37): what `scripts/man.sh`
/// writes from the built tools' help, as `make install` installs them. After changing a command's options or help,
/// rewrite them with `EDGESWIPE_WRITE_MAN=1 swift test --filter ManualPageTests`.
@Suite("manual pages")
struct ManualPageTests {
    static let committed = Paths.packageRoot.appendingPathComponent("docs/man")
    static let generator = Paths.packageRoot.appendingPathComponent(".build/checkouts/swift-argument-parser")

    /// `.Dd November 29, 2026` as generate-manual's `--date` takes it: `2026-11-29`.
    static func date(of page: String) -> String? {
        guard let line = page.split(separator: "\n").first(where: { $0.hasPrefix(".Dd ") }) else { return nil }
        let parse = DateFormatter()
        parse.locale = Locale(identifier: "en_US_POSIX")
        parse.timeZone = TimeZone(identifier: "UTC")
        parse.dateFormat = "MMMM d, yyyy"
        guard let date = parse.date(from: String(line.dropFirst(4))) else { return nil }
        let format = DateFormatter()
        format.locale = parse.locale
        format.timeZone = parse.timeZone
        format.dateFormat = "yyyy-MM-dd"
        return format.string(from: date)
    }

    @Test("docs/man/ is what scripts/man.sh writes from these tools: one page per tool, the daemon's in section 8",
          .enabled(if: FileManager.default.fileExists(atPath: generator.path), "needs swift-argument-parser's checkout in .build (scripts/man.sh builds its generate-manual)"),
          .timeLimit(.minutes(5)))
    func pagesAreCurrent() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let write = ProcessInfo.processInfo.environment["EDGESWIPE_WRITE_MAN"] == "1"
        // Dated as the committed pages are, so that only what they say is compared.
        let daemonPage = (try? String(contentsOf: Self.committed.appendingPathComponent("edgeswiped.8"), encoding: .utf8)) ?? ""
        let date = write ? nil : Self.date(of: daemonPage)
        let r = try run(Paths.packageRoot.appendingPathComponent("scripts/man.sh"), [Paths.products.path, dir.path] + (date.map { [$0] } ?? []), timeoutSeconds: 240)
        try #require(r.status == 0, "\(r.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(written == ["edgeswipe-session.1", "edgeswipe-web.1", "edgeswipectl.1", "edgeswiped.8"])
        if write {
            try? FileManager.default.removeItem(at: Self.committed)
            try FileManager.default.copyItem(at: dir, to: Self.committed)
        }
        for page in written {
            let fresh = try Data(contentsOf: dir.appendingPathComponent(page))
            let kept = FileManager.default.contents(atPath: Self.committed.appendingPathComponent(page).path)
            #expect(kept == fresh, "docs/man/\(page) is not what scripts/man.sh writes: EDGESWIPE_WRITE_MAN=1 swift test --filter ManualPageTests")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: Self.committed.path).sorted() == written)
    }
}
