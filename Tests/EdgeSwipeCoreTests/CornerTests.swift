import EdgeSwipeFingerScript
import Foundation
import Testing
@testable import EdgeSwipeCore

/// Corners, every way out of them: a touch that lands in two zones is judged against each edge's inward normal on
/// its own (docs/ARCHITECTURE.md, "Corners").
@Suite("Corners")
struct CornerTests {
    enum Corner: String, CaseIterable, Sendable {
        case topLeft, topRight, bottomLeft, bottomRight
        /// The corner's side edge (left or right) and its top or bottom edge.
        var side: Edge { self == .topLeft || self == .bottomLeft ? .left : .right }
        var end: Edge { self == .topLeft || self == .topRight ? .top : .bottom }
    }

    /// A first motion, as an angle from the side edge's inward normal toward the end edge's (0° is straight
    /// inward from the side edge, 90° straight inward from the end edge, 45° the inward diagonal, 180° along
    /// the end edge toward the corner, 225° into the corner).
    enum Direction: Sendable, CustomStringConvertible {
        case degrees(Double)
        static let inwardFromSide = Direction.degrees(0)
        static let inwardFromEnd = Direction.degrees(90)
        var angle: Double { if case .degrees(let a) = self { a } else { 0 } }
        var description: String { "\(angle)°" }
    }

    enum Outcome: Equatable, Sendable, CustomStringConvertible {
        case begins(onSide: Bool)
        case fails(ScreenEdgePanRecognizer.FailureReason)
        var description: String {
            switch self {
            case .begins(let side): side ? "begins on the side edge" : "begins on the end edge"
            case .fails(let r): "fails (\(r.rawValue))"
            }
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var device: TouchDevice
        var corner: Corner
        var direction: Direction
        var tolerance: Double = 30
        /// How far from each edge it lands, as fractions of the zones (0 is on the edge). Deep enough by default
        /// that a motion outward does not reach the edge before its direction is judged (2 mm).
        var depth: (side: Double, end: Double) = (0.9, 0.9)
        var expect: Outcome
        var testDescription: String {
            "\(device.name), \(corner), \(direction) at depth \(depth.side)/\(depth.end), tolerance \(tolerance)° -> \(expect)"
        }
    }

    /// The same eight directions from every corner of a screen (with and without a physical size): inward along
    /// each normal, along each edge (away from the corner: inward for the other edge; toward it: outward), the
    /// inward diagonal and the crossing diagonals, toward the corner, and 20° off each normal.
    static let screenCases: [Case] = [TestDevices.cintiq, TestDevices.nexus4].flatMap { device in
        Corner.allCases.flatMap { corner -> [Case] in
            [
                Case(device: device, corner: corner, direction: .inwardFromSide, expect: .begins(onSide: true)),
                Case(device: device, corner: corner, direction: .inwardFromEnd, expect: .begins(onSide: false)),
                Case(device: device, corner: corner, direction: .degrees(20), expect: .begins(onSide: true)),
                Case(device: device, corner: corner, direction: .degrees(70), expect: .begins(onSide: false)),
                Case(device: device, corner: corner, direction: .degrees(45), expect: .fails(.notInward)),
                Case(device: device, corner: corner, direction: .degrees(180), expect: .fails(.notInward)),
                Case(device: device, corner: corner, direction: .degrees(270), expect: .fails(.notInward)),
                Case(device: device, corner: corner, direction: .degrees(225), expect: .fails(.notInward)),
                Case(device: device, corner: corner, direction: .degrees(135), expect: .fails(.notInward)),
                Case(device: device, corner: corner, direction: .degrees(-45), expect: .fails(.notInward)),
            ]
        }
    }

    /// On touchpads the right edge is a scroll edge: from the right corners, a motion along it (inward for the top
    /// or bottom edge) is edge scrolling; inward from the right edge begins. The left corners are as on screens.
    /// The small pad's 5 mm top and bottom zones cover 42 % of its height.
    static let touchpadCases: [Case] = [TestDevices.synapticsI2C, TestDevices.smallTouchpad].flatMap { device in
        Corner.allCases.flatMap { corner -> [Case] in
            let right = corner.side == .right
            return [
                Case(device: device, corner: corner, direction: .inwardFromSide, expect: .begins(onSide: true)),
                Case(device: device, corner: corner, direction: .degrees(20), expect: .begins(onSide: true)),
                Case(device: device, corner: corner, direction: .inwardFromEnd, expect: right ? .fails(.edgeScroll) : .begins(onSide: false)),
                Case(device: device, corner: corner, direction: .degrees(75), expect: right ? .fails(.edgeScroll) : .begins(onSide: false)),
                Case(device: device, corner: corner, direction: .degrees(45), expect: .fails(.notInward)),
                Case(device: device, corner: corner, direction: .degrees(225), expect: .fails(.notInward)),
            ]
        }
    }

    /// With a tolerance above 45° both normals can be within it: the closer one wins; an exact diagonal goes to
    /// the zone the touch is deeper in, then to the side edge (left, right before top, bottom).
    static let diagonalCases: [Case] = Corner.allCases.flatMap { corner -> [Case] in
        let d = TestDevices.cintiq
        return [
            Case(device: d, corner: corner, direction: .degrees(30), tolerance: 50, expect: .begins(onSide: true)),
            Case(device: d, corner: corner, direction: .degrees(42), tolerance: 50, expect: .begins(onSide: true)),
            Case(device: d, corner: corner, direction: .degrees(48), tolerance: 50, expect: .begins(onSide: false)),
            Case(device: d, corner: corner, direction: .degrees(45), tolerance: 50, depth: (0.2, 0.6), expect: .begins(onSide: true)),
            Case(device: d, corner: corner, direction: .degrees(45), tolerance: 50, depth: (0.6, 0.2), expect: .begins(onSide: false)),
            Case(device: d, corner: corner, direction: .degrees(45), tolerance: 50, depth: (0.4, 0.4), expect: .begins(onSide: true)),
            Case(device: d, corner: corner, direction: .degrees(45), tolerance: 50, depth: (0, 0), expect: .begins(onSide: true)),
            Case(device: d, corner: corner, direction: .degrees(45), tolerance: 44, expect: .fails(.notInward)),
        ]
    }

    /// The landing point (device units, integers, so that an exact diagonal stays exact) and the first 10 mm of
    /// motion in `direction`, over 100 ms, then at rest and lifted.
    static func script(_ c: Case) -> FingerScript {
        let d = c.device
        let size = d.deviceSize
        let unitsPerMM = (x: d.x.span / size.width.value, y: d.y.span / size.height.value)
        let settings = EdgeRecognizerSettings.defaults(for: d.kind)
        let zone = (x: settings.zoneFraction(across: c.corner.side, on: d), y: settings.zoneFraction(across: c.corner.end, on: d))
        let inX = (c.depth.side * zone.x * d.x.span).rounded()
        let inY = (c.depth.end * zone.y * d.y.span).rounded()
        let x0 = c.corner.side == .left ? Double(d.x.minimum) + inX : Double(d.x.maximum) - inX
        let y0 = c.corner.end == .top ? Double(d.y.minimum) + inY : Double(d.y.maximum) - inY
        // The side edge's inward normal is x; the end edge's is y; each signed for its corner.
        let sx: Double = c.corner.side == .left ? 1 : -1
        let sy: Double = c.corner.end == .top ? 1 : -1
        let radians = c.direction.angle * .pi / 180
        var dxMM = 10 * cos(radians), dyMM = 10 * sin(radians)
        if c.direction.angle == 45 { dxMM = 10 / 2.squareRoot(); dyMM = dxMM }
        let x1 = x0 + sx * dxMM * unitsPerMM.x
        let y1 = y0 + sy * dyMM * unitsPerMM.y
        return FingerScript(stroke: Stroke(
            from: x0, y0, moves: [Stroke.Move(to: x1, y1, frames: 12, durationUS: 100_000, easing: .linear)],
            restUS: 250_000))
    }

    static func run(_ c: Case) -> [GestureEvent] {
        var config = EngineConfiguration.default
        config.touchscreen.recognizer.angleToleranceDegrees = c.tolerance
        config.touchpad.recognizer.angleToleranceDegrees = c.tolerance
        var engine = Engine(configuration: config)
        return engine.play(script(c), on: c.device).gestures
    }

    static func check(_ c: Case) {
        let gestures = run(c)
        switch c.expect {
        case .begins(let onSide):
            let edge = onSide ? c.corner.side : c.corner.end
            #expect(gestures.first?.state == .began)
            #expect(gestures.first?.edge == edge)
            #expect(gestures.first?.transition != nil, "the default bindings of every edge apply")
        case .fails(let reason):
            #expect(gestures.map(\.state) == [.failed])
            #expect(gestures.first?.failure == reason)
        }
    }

    @Test("screens: every corner, every way out", arguments: screenCases)
    func screens(_ c: Case) { Self.check(c) }

    @Test("touchpads: the right edge scrolls", arguments: touchpadCases)
    func touchpads(_ c: Case) { Self.check(c) }

    @Test("diagonals: the closer normal, then the deeper zone, then left and right first", arguments: diagonalCases)
    func diagonals(_ c: Case) { Self.check(c) }

    @Test("zone boundaries: a touch exactly at the zone's width is inside, one unit further is not")
    func zoneBoundary() {
        // 256 x 160 mm at 4 units/mm: the 4 mm zone is exactly 16 units, and 16/1024 is exact in binary.
        let device = TouchDevice(
            id: DeviceID(9), name: "exact", kind: .touchscreen,
            x: AxisRange(minimum: 0, maximum: 1024, resolution: 4), y: AxisRange(minimum: 0, maximum: 640, resolution: 4))
        for (x, expected) in [(16.0, true), (17.0, false)] {
            var engine = Engine(configuration: .default)
            let script = FingerScript(stroke: Stroke(
                from: x, 320, moves: [Stroke.Move(to: x + 200, 320, frames: 12, durationUS: 100_000, easing: .linear)],
                restUS: 250_000))
            let gestures = engine.play(script, on: device).gestures
            #expect((gestures.first?.state == .began) == expected, "landing at \(x)")
        }
    }

    @Test("without scroll edges, a touchpad's right corners are judged like a screen's")
    func scrollEdgesOff() {
        var config = EngineConfiguration.default
        config.touchpad.recognizer.scrollEdges = []
        var engine = Engine(configuration: config)
        let c = Case(device: TestDevices.smallTouchpad, corner: .topRight, direction: .inwardFromEnd, expect: .begins(onSide: false))
        let gestures = engine.play(Self.script(c), on: c.device).gestures
        #expect(gestures.first?.state == .began)
        #expect(gestures.first?.edge == .top)
    }
}
