import EdgeSwipeFingerScript
import Testing
@testable import EdgeSwipeCore

/// Touches past the advertised minimum and maximum, as real touchpads and screens report them (and libinput
/// passes them on): for the zone test they lie on the edge, and percent and translation come from clamped
/// positions. Nothing produces NaN or a negative distance.
@Suite("Touches outside the advertised range")
struct OutOfRangeTests {
    /// Devices with offset, negative and ordinary ranges: the hp8470p's Synaptics (1472..5728 x 1408..4916, no
    /// resolution), the bcm5974 (negative minimums), and the Cintiq (a screen of known size).
    static let hp8470p = TouchDevice(
        id: DeviceID(6), name: "SynPS/2 Synaptics TouchPad", kind: .touchpad,
        x: AxisRange(minimum: 1472, maximum: 5728), y: AxisRange(minimum: 1408, maximum: 4916))
    static let devices = [hp8470p, TestDevices.bcm5974, TestDevices.cintiq]

    struct Case: CustomTestStringConvertible, Sendable {
        var device: TouchDevice
        var edge: Edge
        /// Units past the edge the finger lands.
        var past: Double
        var testDescription: String { "\(device.name), \(past) units past the \(edge) edge" }
    }

    static let cases: [Case] = devices.flatMap { d in Edge.allCases.flatMap { e in [150.0, 1].map { Case(device: d, edge: e, past: $0) } } }

    /// Lands `past` units beyond `edge`, mid-way along it, and moves to 40 % of the axis inside, at rest before
    /// lifting.
    static func script(_ c: Case) -> FingerScript {
        let d = c.device
        let midX = Double(d.x.minimum) + d.x.span / 2, midY = Double(d.y.minimum) + d.y.span / 2
        let (from, to): ((Double, Double), (Double, Double)) =
            switch c.edge {
            case .left: ((Double(d.x.minimum) - c.past, midY), (Double(d.x.minimum) + 0.4 * d.x.span, midY))
            case .right: ((Double(d.x.maximum) + c.past, midY), (Double(d.x.maximum) - 0.4 * d.x.span, midY))
            case .top: ((midX, Double(d.y.minimum) - c.past), (midX, Double(d.y.minimum) + 0.4 * d.y.span))
            case .bottom: ((midX, Double(d.y.maximum) + c.past), (midX, Double(d.y.maximum) - 0.4 * d.y.span))
            }
        return FingerScript(stroke: Stroke(
            from: from.0, from.1, moves: [Stroke.Move(to: to.0, to.1, frames: 36, durationUS: 300_000, easing: .smoothstep)],
            restUS: 250_000))
    }

    @Test("a start past every edge lies on it: it begins, and moves by the clamped distance", arguments: cases)
    func startsPastTheEdge(_ c: Case) throws {
        var engine = Engine(configuration: .default)
        let events = engine.play(Self.script(c), on: c.device)
        let gestures = events.gestures
        let began = try #require(gestures.first)
        #expect(began.state == .began)
        #expect(began.edge == c.edge)
        // The translation is measured from the edge (where the touch was clamped), not from outside it.
        let last = try #require(gestures.last)
        let size = c.device.size
        let across = c.edge.isHorizontal ? size.width.value : size.height.value
        let inward = c.edge.inward(dx: last.translation.x / size.width.value, dy: last.translation.y / size.height.value) * across
        #expect(abs(inward - 0.4 * across) < 0.01 * across, "translation \(last.translation) for 40 % of \(across) mm")
        let numbers = gestures.flatMap { [$0.location.x, $0.location.y, $0.translation.x, $0.translation.y, $0.velocity.x, $0.velocity.y] }
            + events.transitions.flatMap { [$0.percent.value, $0.velocity.value] }
        #expect(numbers.allSatisfy { $0.isFinite })
        #expect(events.transitions.allSatisfy { (Percent.zero...Percent.complete).contains($0.percent) })
        #expect(gestures.allSatisfy { (0...1).contains($0.location.x) && (0...1).contains($0.location.y) })
    }

    @Test("the recognizer clamps what it is given: zone distance 0, translation from the edge")
    func recognizerClamps() {
        var r = ScreenEdgePanRecognizer(settings: .touchscreen, device: TestDevices.cintiq)
        #expect(r.zones(containing: NormalizedPoint(x: -0.3, y: 1.4)) == [.left, .bottom])
        #expect(r.zones(containing: NormalizedPoint(x: 2, y: 0.5)) == [.right])
        _ = r.handle(.touchDown(touch: 0, at: NormalizedPoint(x: -0.3, y: 0.5), allowed: .all), at: MonotonicInstant(microseconds: 1_000_000))
        let actions = r.handle(.touchMotion(touch: 0, to: NormalizedPoint(x: 0.1, y: 0.5)), at: MonotonicInstant(microseconds: 1_010_000))
        guard case .output(.begin(let m))? = actions.last else {
            Issue.record("expected a begin, got \(Array(actions))")
            return
        }
        #expect(m.edge == .left)
        #expect(abs(m.translation.x - 0.1) < 1e-12)
    }

    @Test("a device whose size is zero, negative or not a number is given its assumed size", arguments: [
        MillimeterSize(widthMM: 0, heightMM: 0), MillimeterSize(widthMM: -5, heightMM: 60),
        MillimeterSize(widthMM: .nan, heightMM: 60), MillimeterSize(widthMM: .infinity, heightMM: 60),
    ])
    func badSizes(_ size: MillimeterSize) {
        var device = TestDevices.nexus4
        device.reportedSize = size
        #expect(!device.hasPhysicalSize)
        #expect(device.size.isUsable)
        var engine = Engine(configuration: .default)
        let events = engine.play(.edgeSwipe(.left, travel: 0.7, on: device), on: device)
        #expect(events.terminalPhases == [.completed])
        #expect(events.gestures.allSatisfy { $0.translation.x.isFinite && $0.velocity.x.isFinite })
    }

    @Test("a zone never covers more than half its axis, however small the device")
    func tinyDevice() {
        let tiny = TouchDevice(
            id: DeviceID(8), name: "tiny", kind: .touchpad,
            x: AxisRange(minimum: 0, maximum: 40, resolution: 10), y: AxisRange(minimum: 0, maximum: 30, resolution: 10))
        let r = ScreenEdgePanRecognizer(settings: .touchpad, device: tiny)
        #expect(EdgeRecognizerSettings.touchpad.zoneFraction(across: .left, on: tiny) == 0.5)
        #expect(r.zones(containing: NormalizedPoint(x: 0.5, y: 0.5)) == .all)
        #expect(r.zones(containing: NormalizedPoint(x: 0.25, y: 0.75)) == [.left, .bottom])
    }
}
