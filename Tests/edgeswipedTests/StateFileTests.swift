import EdgeSwipeCore
import EdgeSwipeInput
import Foundation
import Glibc
import Testing

/// The state file across versions: the daemon writes it with the protocol's JSON writer and reads it with the
/// protocol's parser, where the previous version wrote and read it with Foundation's `JSONEncoder` and
/// `JSONDecoder`. A file the previous version wrote must restore, and the previous version must be able to read
/// what this one writes (a downgrade keeps the state).
@Suite("State file across versions", .serialized)
struct StateFileTests {
    /// `state.json` as the previous version wrote it (`JSONEncoder`, sorted keys, pretty, `\/` in strings), for
    /// `HardeningTests.panesConfig`: every kind of container, a presented scene whose frame needs every digit of a
    /// double, a scene name with a slash and quotes, and a rotation set for the demo's touchscreen.
    static let previousVersionFile = Paths.packageRoot.appendingPathComponent("Tests/edgeswipedTests/Fixtures/state-v1-jsonencoder.json")

    /// The previous version's `Codable` form of the file (its `SavedState`), read with Foundation's `JSONDecoder` as
    /// it did.
    struct PreviousVersionState: Decodable {
        struct SavedContainer: Decodable {
            var name: String
            var kind: String
            var stack: [String]?
            var tabs: [String]?
            var selected: Int?
            var base: String?
            var presented: [Presentation]?
            var children: [String]?
            var active: Int?
        }
        var version: Int
        var savedAt: Int?
        var generation: UInt64?
        var containers: [SavedContainer]
        var rotations: [RememberedRotation]?

        enum CodingKeys: String, CodingKey {
            case version, savedAt = "saved_at", generation, containers, rotations
        }
    }

    @Test("a state file the previous version wrote restores, and the previous version reads the file this one writes")
    func previousVersion() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: stateDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = stateDir.appendingPathComponent("state.json")
        try FileManager.default.copyItem(at: Self.previousVersionFile, to: file)
        chmod(file.path, 0o600)
        let config = try DaemonProcess.writeConfig(HardeningTests.panesConfig, in: dir)
        // One client opens the gate, so that the demo's touchscreen is added (its remembered rotation applies); the
        // replay runs at a twentieth of its speed, so that no swipe of it changes the state while the test looks.
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--config", config.path, "--state-dir", stateDir.path,
             "--replay", Paths.demo.path, "--wait-for-clients", "1", "--speed", "0.05"], directory: dir)
        try daemon.waitUntilListening()
        let client = try LineClient(path: daemon.socketPath)
        let upToDevice = client.messages(until: { $0.type == "device" })
        let hello = try #require(upToDevice.first { $0.type == "hello" })
        #expect(hello.visibleScenes == ["shell": "settings", "app": "more/than \"one\"", "overlay": "card", "panes": "b"], "\(daemon.log)")
        let containers = ((hello["state"] as? [String: Any])?["containers"] as? [[String: Any]]) ?? []
        #expect(containers.first { $0["name"] as? String == "app" }?["stack"] as? [String] == ["home", "detail", "more/than \"one\""])
        let presented = (containers.first { $0["name"] as? String == "overlay" }?["presented"] as? [[String: Any]])?.first
        #expect(presented?["style"] as? String == "custom")
        #expect((presented?["frame"] as? [String: Any])?["y"] as? Double == 0.333333, "the wire's six decimals")
        #expect(upToDevice.last?["rotation"] as? Int == 90, "the remembered rotation: \(upToDevice.last ?? [:])")
        #expect(daemon.log.contains("state restored from"), "\(daemon.log)")

        // A change is saved, in this version's writing.
        client.send(#"{"op":"pop","id":1,"container":"app","animated":false}"#)
        #expect(client.messages(until: { $0.type == "reply" || $0.type == "error" }).last?.type == "reply")
        let written = try Data(contentsOf: file)
        #expect(String(decoding: written, as: UTF8.self).contains(#""stack": ["home", "detail"]"#))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)

        let previous = try JSONDecoder().decode(PreviousVersionState.self, from: written)
        #expect(previous.version == 1)
        #expect(previous.generation == 7, "one past the restored file's 6")
        #expect(previous.savedAt != nil)
        let byName = Dictionary(uniqueKeysWithValues: previous.containers.map { ($0.name, $0) })
        #expect(byName["shell"]?.tabs == ["launcher", "home", "settings"] && byName["shell"]?.selected == 2)
        #expect(byName["app"]?.kind == "navigation" && byName["app"]?.stack == ["home", "detail"])
        #expect(byName["overlay"]?.base == "shell")
        #expect(byName["overlay"]?.presented == [Presentation(scene: "card", style: .custom, frame: NormalizedRect(x: 0.125, y: 1.0 / 3, width: 0.75, height: 0.5))],
                "every digit of the frame survives")
        #expect(byName["panes"]?.children == ["a", "b"] && byName["panes"]?.active == 1)
        #expect(previous.rotations?.map(\.rotation) == [.degrees90])
        #expect(previous.rotations?.first?.device == DeviceIdentity(name: "EdgeSwipe Demo Touchscreen", bus: 0x18, vendor: 0x1d6b, product: 0x5e00))
    }
}
