import EdgeSwipeCore
import EdgeSwipeProtocol
import Foundation
import Testing

/// The page in a real browser (Web/browser_test.py): Debian's chromium, headless, through Selenium and Debian's
/// chromedriver. It skips, saying what to install, where they are missing, except where
/// `EDGESWIPE_REQUIRE_BROWSER=1` (CI) makes their absence a failure.
@Suite("edgeswipe-web in a browser")
struct BrowserTests {
    static let tools = ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/python3"]
    static var available: Bool {
        tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium")
    }
    static var required: Bool { ProcessInfo.processInfo.environment["EDGESWIPE_REQUIRE_BROWSER"] == "1" }

    /// Specs and instants on which edgeswipe.js must agree with `AnimationInfo.percent(atTimeUS:)`: every curve,
    /// a release velocity that bends the first control point, springs from above and below, and instants before,
    /// inside and after each run-out.
    static func curveCases() -> [[String: Any]] {
        var cases: [[String: Any]] = []
        let start = MonotonicInstant(microseconds: 5_000_000)
        let curves: [CompletionCurve] = [.linear, .easeIn, .easeOut, .easeInOut, .spring(response: .milliseconds(300))]
        for curve in curves {
            for (from, to, velocity) in [(0.3, 1.0, 0.0), (0.7, 1.0, 2.5), (0.4, 0.0, -1.2), (0.05, 1.0, 9.0), (0.9, 0.0, 0.6)] {
                let spec = AnimationSpec.runOut(
                    curve: curve, from: Percent(from), to: Percent(to), velocity: PercentPerSecond(velocity),
                    fullDuration: .milliseconds(350), speed: 1, at: start)
                let info = AnimationInfo(spec)
                let json = try! JSONSerialization.jsonObject(with: JSONEncoder().encode(info))
                for k in 0...24 {
                    let t = info.startTimeUS - 1000 + UInt64(k) * (UInt64(max(info.durationUS, 1)) + 2000) / 24
                    cases.append(["spec": json, "time_us": t, "expected": info.percent(atTimeUS: t)])
                }
            }
        }
        return cases
    }

    @Test("the page draws the stream: curves as Swift's, cards where the geometry says, the lifecycle log, a completed pop",
          .enabled(if: available || required, "needs chromium, chromium-driver and python3-selenium (apt install chromium chromium-driver python3-selenium)"),
          .timeLimit(.minutes(4)))
    func page() throws {
        try #require(Self.available, "EDGESWIPE_REQUIRE_BROWSER=1, but chromium, chromedriver or Debian's python3-selenium is missing")
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let curves = dir.appendingPathComponent("curves.json")
        try JSONSerialization.data(withJSONObject: Self.curveCases()).write(to: curves)
        var arguments = [
            Paths.webHelpers.appendingPathComponent("browser_test.py").path,
            "--edgeswiped", Paths.edgeswiped.path, "--edgeswipe-web", Paths.edgeswipeWeb.path, "--demo", Paths.demo.path,
            "--workdir", dir.path, "--curves", curves.path,
        ]
        // scripts/web-screenshot sets this to refresh the README's picture.
        if let shot = ProcessInfo.processInfo.environment["EDGESWIPE_SCREENSHOT"] { arguments += ["--screenshot", shot] }
        let r = try run(URL(fileURLWithPath: "/usr/bin/python3"), arguments, timeoutSeconds: 200)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)\n\((try? String(contentsOf: dir.appendingPathComponent("web.log"), encoding: .utf8)) ?? "")")
        print(r.stdout)
    }
}
