import EdgeSwipeCore
import EdgeSwipeFingerScript
import EdgeSwipeInput
import EdgeSwipeInputTestSupport
import EdgeSwipeRecordings
import EdgeSwipeTestSupport
import Foundation
import Testing

/// `scripts/e2e/scenarios.json` is the one description of the e2e recordings. `scripts/e2e/make-scenarios.py`
/// (Python, run in the qemu harness) and the Swift library (`EdgeSwipeFingerScript` and `EvdevScriptRenderer`)
/// must make the same swipes from it: the same device descriptions and the same events.
@Suite("One description, two renderers: make-scenarios and the finger-script library agree")
struct ScenarioDescriptionTests {
    struct Description: Decodable {
        struct Device: Decodable {
            var name: String
            var id: [UInt16]
            var properties: [String]
            var keys: [String]?
            var key_range: [UInt16]?
            var axes: [String: [Int32]]
        }
        struct Recording: Decodable {
            var file: String
            var device: String
            var strokes: [Stroke]
        }
        var devices: [String: Device]
        var recordings: [Recording]
    }

    static let descriptionPath = Fixtures.packageRoot.appendingPathComponent("scripts/e2e/scenarios.json").path
    static let maker = Fixtures.packageRoot.appendingPathComponent("scripts/e2e/make-scenarios.py").path

    static let codes: [String: UInt16] = [
        "ABS_X": EvdevAbs.x, "ABS_Y": EvdevAbs.y, "ABS_MT_SLOT": EvdevAbs.mtSlot, "ABS_MT_POSITION_X": EvdevAbs.mtPositionX,
        "ABS_MT_POSITION_Y": EvdevAbs.mtPositionY, "ABS_MT_TRACKING_ID": EvdevAbs.mtTrackingID,
        "BTN_LEFT": EvdevKey.btnLeft, "BTN_TOOL_FINGER": EvdevKey.btnToolFinger, "BTN_TOUCH": EvdevKey.btnTouch,
        "BTN_TOOL_DOUBLETAP": EvdevKey.btnToolDoubleTap, "BTN_TOOL_TRIPLETAP": EvdevKey.btnToolTripleTap,
        "BTN_TOOL_QUADTAP": EvdevKey.btnToolQuadTap,
    ]
    static let properties: [String: InputProperties] = ["pointer": .pointer, "direct": .direct, "buttonpad": .buttonPad]

    static func load() throws -> Description {
        try JSONDecoder().decode(Description.self, from: Data(contentsOf: URL(fileURLWithPath: descriptionPath)))
    }

    static func evdev(_ d: Description.Device) throws -> EvdevDeviceDescription {
        var keys = Set(try (d.keys ?? []).map { try #require(codes[$0], "unknown key \($0)") })
        if let range = d.key_range, range.count == 2 { keys.formUnion(range[0]...range[1]) }
        var absInfo: [UInt16: AbsInfo] = [:]
        for (name, v) in d.axes {
            absInfo[try #require(codes[name], "unknown axis \(name)")] = AbsInfo(minimum: v[0], maximum: v[1], resolution: v[2])
        }
        var eventTypes: Set<UInt16> = [EvdevType.syn]
        if !keys.isEmpty { eventTypes.insert(EvdevType.key) }
        if !absInfo.isEmpty { eventTypes.insert(EvdevType.abs) }
        return EvdevDeviceDescription(
            name: d.name, id: InputID(bus: d.id[0], vendor: d.id[1], product: d.id[2], version: d.id[3]),
            properties: InputProperties(try d.properties.map { try #require(properties[$0], "unknown property \($0)") }),
            eventTypes: eventTypes, keys: keys, absInfo: absInfo)
    }

    @Test("every recording of the description: the same device and the same events from both")
    func bothRenderersAgree() throws {
        let description = try Self.load()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("edgeswipe-scenarios-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.maker, out.path, Self.descriptionPath]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "make-scenarios failed")
        #expect(description.recordings.count >= 7)
        for rec in description.recordings {
            let device = try Self.evdev(try #require(description.devices[rec.device]))
            let written = try EdgeSwipeRecordings.Recording.load(path: out.appendingPathComponent(rec.file).path)
            #expect(written.devices.count == 1, "\(rec.file)")
            #expect(written.devices.first?.description == device, "\(rec.file): the header")
            let swift = EvdevScriptRenderer.events(FingerScript(strokes: rec.strokes), on: device)
            #expect(written.devices.first?.events == swift, "\(rec.file): the events")
            #expect(swift.isEmpty == rec.strokes.isEmpty)
        }
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("side-by-side/plan.json").path))
    }

    /// The two views of a script agree: the frames the core is given are the frames the evdev decoder makes of
    /// the rendered events.
    @Test("decoding a rendered script gives the script's own frames")
    func renderedEventsDecodeToTheScriptFrames() throws {
        let description = try Self.load()
        for rec in description.recordings where !rec.strokes.isEmpty {
            let evdev = try Self.evdev(try #require(description.devices[rec.device]))
            let device = try evdev.touchDevice(id: DeviceID(1), path: rec.file)
            var decoder = try EvdevFrameDecoder(description: evdev, device: device)
            let script = FingerScript(strokes: rec.strokes)
            var decoded: [TouchFrame] = []
            for e in EvdevScriptRenderer.events(script, on: evdev) {
                if case .frame(let f)? = decoder.feed(e) { decoded.append(f) }
            }
            let expected = script.frames(on: device, origin: .zero)
            #expect(decoded.count == expected.count, "\(rec.file)")
            if let i = decoded.indices.first(where: { $0 < expected.count && (decoded[$0].time != expected[$0].time || decoded[$0].touches != expected[$0].touches) }) {
                Issue.record("\(rec.file): frame \(i) decodes to \(decoded[i]), the script has \(expected[i])")
            }
        }
    }
}
