import Foundation
import Testing

/// `edgeswipectl replay`, run as a real subprocess.
@Suite("edgeswipectl replay")
struct ReplayCommandTests {
    /// Parses JSON lines, failing the test on any line that is not a JSON object with a "type".
    static func messages(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["type"] is String, "not a protocol message: \(line.prefix(200))")
            return object
        }
    }

    /// The outcome of every transition: exactly one terminal each, and nothing after it.
    static func outcomes(_ messages: [[String: Any]]) -> [String] {
        var terminal: [Int: String] = [:]
        var order: [Int] = []
        for m in messages where m["type"] as? String == "transition" {
            guard let id = m["id"] as? Int, let phase = m["phase"] as? String else { continue }
            #expect(terminal[id] == nil, "transition \(id) has an event after its terminal event")
            if phase == "began" { order.append(id) }
            if phase == "completed" || phase == "cancelled" { terminal[id] = phase }
        }
        #expect(order.allSatisfy { terminal[$0] != nil }, "every transition ends")
        return order.compactMap { terminal[$0] }
    }

    @Test("the bundled demo replays to its six outcomes, as JSON lines, deterministically")
    func demoJSON() throws {
        let a = try run(Paths.edgeswipectl, ["replay", Paths.demo.path, "--json"])
        #expect(a.status == 0, "\(a.stderr)")
        let messages = Self.messages(a.stdout)
        #expect(messages.first?["type"] as? String == "hello")
        let seqs = messages.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...messages.count), "seq is gap-free from 1")
        #expect(Self.outcomes(messages) == ["completed", "completed", "completed", "completed", "cancelled", "completed"])
        let edges = messages.filter { $0["type"] as? String == "gesture" && $0["state"] as? String == "began" }.compactMap { $0["edge"] as? String }
        #expect(edges == ["left", "right", "top", "bottom", "left", "right"])
        let b = try run(Paths.edgeswipectl, ["replay", Paths.demo.path, "--json"])
        #expect(a.stdout == b.stdout, "the same file gives the same bytes")
    }

    @Test("--in-turn plays the demo's two halves one after the other: the touchscreen's six swipes, then the touchpad's three")
    func demoInTurn() throws {
        let r = try run(Paths.edgeswipectl, ["replay", Paths.demo.path, Paths.touchpadDemo.path, "--in-turn", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let messages = Self.messages(r.stdout)
        #expect(Self.outcomes(messages) == ["completed", "completed", "completed", "completed", "cancelled", "completed", "completed", "completed", "cancelled"])
        let began = messages.filter { $0["type"] as? String == "gesture" && $0["state"] as? String == "began" }
            .map { g in (g["edge"] as? String) ?? "\(g["fingers"] ?? "?") fingers \(g["direction"] ?? "?")" }
        #expect(began == ["left", "right", "top", "bottom", "left", "right", "3 fingers right", "3 fingers left", "3 fingers right"])
    }

    @Test("the readable log tells the story")
    func demoReadable() throws {
        let r = try run(Paths.edgeswipectl, ["replay", Paths.demo.path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("gesture left began"))
        #expect(r.stdout.contains("launcher did-appear"))
        #expect(r.stdout.hasSuffix("6 gestures began; 5 transitions completed, 1 cancelled\n"))
    }

    @Test("a configuration changes the outcome: with a 25 % threshold the 30 % swipe commits too")
    func configuration() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("c.toml")
        try "[transition]\nthreshold = 0.25\n".write(to: config, atomically: true, encoding: .utf8)
        let r = try run(Paths.edgeswipectl, ["replay", Paths.demo.path, "--json", "--config", config.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.outcomes(Self.messages(r.stdout)).allSatisfy { $0 == "completed" })
    }

    @Test("bad input gets the place, the reason and a non-zero exit", arguments: [
        ("# EVEMU 1.3\nN: x\nE: 1.0 0003 0035\n", 65, ":3: "),
        ("E: 0.000100 0003 0035 10\n", 65, ":1: "),
        ("devices:\n  - evdev: [\n", 65, "bad.yaml"),
    ])
    func badFiles(_ text: String, _ status: Int32, _ place: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(text.hasPrefix("devices") ? "bad.yaml" : "bad.evemu")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let r = try run(Paths.edgeswipectl, ["replay", file.path])
        #expect(r.status == status)
        #expect(r.stderr.contains(place), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("a missing file exits 66")
    func missing() throws {
        let r = try run(Paths.edgeswipectl, ["replay", "/nonexistent/swipe.evemu"])
        #expect(r.status == 66)
        #expect(r.stderr.contains("/nonexistent/swipe.evemu"))
    }

    @Test("every recording in ../shared/recordings replays through the CLI with one terminal per transition",
          .enabled(if: Paths.haveShared, "../shared/recordings is absent (a user's clone): nothing to replay"))
    func sharedRecordings() throws {
        let root = Paths.sharedRecordings
        let files = try FileManager.default.subpathsOfDirectory(atPath: root.path)
            .filter { $0.hasSuffix(".events") || $0.hasSuffix(".evemu") || $0.hasSuffix(".yaml") }
            .sorted()
        #expect(files.count >= 18)
        for file in files {
            let r = try run(Paths.edgeswipectl, ["replay", root.appendingPathComponent(file).path, "--json"])
            #expect(r.status == 0, "\(file): \(r.stderr)")
            _ = Self.outcomes(Self.messages(r.stdout))
        }
    }
}
