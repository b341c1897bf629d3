import Testing
@testable import EdgeSwipeCore

/// Devices modelled on real ones (`recordings/devices/libinput-test-devices.json`).
enum TestDevices {
    /// Wacom Cintiq Pro 16 finger: 0..13824 x 0..7776 at 40 units/mm (345.6 x 194.4 mm), a touchscreen.
    static let cintiq = TouchDevice(
        id: DeviceID(1), name: "Wacom Cintiq Pro 16 Finger", kind: .touchscreen,
        x: AxisRange(minimum: 0, maximum: 13824, resolution: 40), y: AxisRange(minimum: 0, maximum: 7776, resolution: 40))
    /// Nexus 4 touch screen: 0..1500 x 0..2500, resolution 0 (size unknown).
    static let nexus4 = TouchDevice(
        id: DeviceID(2), name: "Nexus 4 touch screen", kind: .touchscreen,
        x: AxisRange(minimum: 0, maximum: 1500), y: AxisRange(minimum: 0, maximum: 2500))
    /// Synaptics I2C touchpad (DLL0704): 0..1216 x 0..680 at 12 units/mm (101 x 57 mm).
    static let synapticsI2C = TouchDevice(
        id: DeviceID(3), name: "DLL0704:01 06CB:76AD Touchpad", kind: .touchpad,
        x: AxisRange(minimum: 0, maximum: 1216, resolution: 12), y: AxisRange(minimum: 0, maximum: 680, resolution: 12))

    static let all = [cintiq, nexus4, synapticsI2C]
}

/// Scripted fingers: data, not code. Positions are normalized; time comes from the script.
struct FingerScript: CustomTestStringConvertible {
    var testDescription: String {
        guard let first = steps.first?.touches.first, let last = steps.last?.touches.first else { return "empty script" }
        return "\(steps.count) frames from (\(first.position.x), \(first.position.y)) to (\(last.position.x), \(last.position.y)) over \(steps.last?.atMS ?? 0) ms"
    }

    struct Step { var atMS: Double; var touches: [Touch] }
    var steps: [Step] = []

    /// One finger along straight segments, sampled at `hz`, lifting at the end (or not).
    static func path(
        id: Int32 = 0, startMS: Double = 0, points: [(ms: Double, x: Double, y: Double)], hz: Double = 120, lift: Bool = true
    ) -> FingerScript {
        var script = FingerScript()
        guard let first = points.first else { return script }
        script.steps.append(Step(atMS: startMS + first.ms, touches: [Touch(id: id, phase: .down, position: NormalizedPoint(x: first.x, y: first.y))]))
        let period = 1000 / hz
        var last = first
        for p in points.dropFirst() {
            var t = last.ms + period
            while t < p.ms - 1e-9 {
                let f = (t - last.ms) / (p.ms - last.ms)
                script.steps.append(Step(atMS: startMS + t, touches: [Touch(id: id, phase: .motion, position: NormalizedPoint(x: last.x + (p.x - last.x) * f, y: last.y + (p.y - last.y) * f))]))
                t += period
            }
            script.steps.append(Step(atMS: startMS + p.ms, touches: [Touch(id: id, phase: .motion, position: NormalizedPoint(x: p.x, y: p.y))]))
            last = p
        }
        if lift {
            script.steps.append(Step(atMS: startMS + last.ms + period / 2, touches: [Touch(id: id, phase: .up, position: NormalizedPoint(x: last.x, y: last.y))]))
        }
        return script
    }

    /// How the finger leaves the surface.
    enum Release: Equatable { case atRest, whileMoving }

    /// A swipe inward from `edge`, reaching `travel` of the axis in `durationMS`; `.atRest` holds still for
    /// 250 ms (longer than the velocity window) before lifting.
    static func edgeSwipe(
        _ edge: Edge, travel: Double, durationMS: Double = 400, release: Release = .atRest, startMS: Double = 0,
        along: Double = 0.5, inset: Double = 0.002
    ) -> FingerScript {
        func point(_ depth: Double) -> (x: Double, y: Double) {
            switch edge {
            case .left: (depth, along)
            case .right: (1 - depth, along)
            case .top: (along, depth)
            case .bottom: (along, 1 - depth)
            }
        }
        let a = point(inset), b = point(inset + travel)
        var points: [(ms: Double, x: Double, y: Double)] = [(0, a.x, a.y), (durationMS, b.x, b.y)]
        if release == .atRest { points.append((durationMS + 250, b.x, b.y)) }
        return path(startMS: startMS, points: points)
    }

    static func + (a: FingerScript, b: FingerScript) -> FingerScript {
        var s = FingerScript()
        s.steps = (a.steps + b.steps).sorted { $0.atMS < $1.atMS }
        return s
    }
}

extension Engine {
    /// Plays `script` on `device` (added at time 0), ticking virtual time between frames and until settled.
    mutating func play(_ script: FingerScript, on device: TouchDevice, addDevice: Bool = true, settle: Bool = true) -> [EngineEvent] {
        var events: [EngineEvent] = []
        if addDevice { self.addDevice(device, at: .zero, into: &events) }
        for step in script.steps {
            let time = MonotonicInstant(microseconds: UInt64(1_000_000 + step.atMS * 1000))
            tick(through: time, into: &events)
            handle(TouchFrame(device: device.id, time: time, touches: step.touches), into: &events)
        }
        if settle { tickUntilSettled(into: &events) }
        return events
    }
}

extension Array where Element == EngineEvent {
    var transitions: [TransitionEvent] { compactMap { if case .transition(let t) = $0 { t } else { nil } } }
    var gestures: [GestureEvent] { compactMap { if case .gesture(let g) = $0 { g } else { nil } } }
    var lifecycle: [LifecycleEvent] { compactMap { if case .lifecycle(let l) = $0 { l } else { nil } } }
    var states: [StateSnapshot] { compactMap { if case .state(let s) = $0 { s } else { nil } } }
    var terminalPhases: [PercentDrivenInteractiveTransition.Phase] { transitions.map(\.phase).filter(\.isTerminal) }
    var gestureStates: [ScreenEdgePanRecognizer.State] { gestures.map(\.state).reduce(into: []) { if $0.last != $1 { $0.append($1) } } }
    var phases: [PercentDrivenInteractiveTransition.Phase] { transitions.map(\.phase).reduce(into: []) { if $0.last != $1 { $0.append($1) } } }
    var lifecycleLines: [String] { lifecycle.map { "\($0.scene) \($0.kind.rawValue)" } }
}
