import Foundation
import Testing
@testable import EdgeSwipeCore

@Suite("Curves, velocity and device geometry")
struct MathTests {
    @Test("run-outs last remaining x duration / completionSpeed", arguments: [
        (0.6, 1.0, 1.0, 140_000), (0.6, 0.0, 1.0, 210_000), (0.2, 1.0, 2.0, 140_000), (0.5, 1.0, 0.5, 350_000),
    ])
    func runOutDuration(_ from: Double, _ to: Double, _ speed: Double, _ expectedUS: Int64) {
        for curve in [CompletionCurve.linear, .easeIn, .easeOut, .easeInOut] {
            let spec = AnimationSpec.runOut(
                curve: curve, from: Percent(from), to: Percent(to), velocity: .zero, fullDuration: .milliseconds(350),
                speed: speed, at: .zero)
            #expect(abs(spec.duration.value - expectedUS) <= 1)
            #expect(spec.percent(at: .zero) == Percent(from))
            #expect(spec.percent(at: spec.end) == Percent(to))
        }
    }

    @Test("eased run-outs leave at the release velocity", arguments: [
        (CompletionCurve.easeInOut, 0.4, 1.0, 2.0), (.easeOut, 0.7, 0.0, -1.5), (.linear, 0.3, 1.0, 0.5),
        (.easeIn, 0.6, 1.0, 9.0), (.easeInOut, 0.6, 0.0, 0.4),
    ])
    func velocityMatching(_ curve: CompletionCurve, _ from: Double, _ to: Double, _ velocity: Double) {
        let spec = AnimationSpec.runOut(
            curve: curve, from: Percent(from), to: Percent(to), velocity: PercentPerSecond(velocity),
            fullDuration: .milliseconds(350), speed: 1, at: .zero)
        #expect(abs(spec.velocity(at: .zero).value - velocity) < 1e-6 * max(1, abs(velocity)))
        // Percent stays in 0...1 and ends exactly at the target.
        var t = MonotonicInstant.zero
        while t < spec.end {
            #expect((Percent.zero...Percent.complete).contains(spec.percent(at: t)))
            t = t.advanced(by: Microseconds(1000))
        }
        #expect(spec.percent(at: spec.end) == Percent(to))
    }

    @Test("a critically damped spring starts at the release velocity and settles on its target", arguments: [
        (0.4, 1.0, 0.0), (0.4, 1.0, 3.0), (0.8, 0.0, 1.0), (0.8, 0.0, -4.0),
    ])
    func spring(_ from: Double, _ to: Double, _ velocity: Double) {
        let spec = AnimationSpec.runOut(
            curve: .spring(response: .milliseconds(300)), from: Percent(from), to: Percent(to),
            velocity: PercentPerSecond(velocity), fullDuration: .milliseconds(350), speed: 1, at: .zero)
        #expect(abs(spec.velocity(at: .zero).value - velocity) < 1e-9)
        #expect(spec.percent(at: .zero) == Percent(from))
        #expect(abs(spec.percent(at: spec.end.advanced(by: Microseconds(-1))).value - to) < 0.01)
        #expect(spec.percent(at: spec.end) == Percent(to))
        #expect(spec.duration.value > 0 && spec.duration < .seconds(3))
    }

    @Test("velocity is fitted over the window, robust to uneven spacing")
    func velocityTracker() {
        var tracker = VelocityTracker()
        // 100 units/s, sampled at uneven gaps (3, 11, 7, 16, 2 ms ...).
        let gapsMS: [UInt64] = [3, 11, 7, 16, 2, 9, 13, 5, 8]
        var t: UInt64 = 1_000_000
        for gap in gapsMS {
            t += gap * 1000
            tracker.add(x: Double(t) / 1_000_000 * 100, y: 5, at: MonotonicInstant(microseconds: t))
        }
        let v = tracker.velocity(at: MonotonicInstant(microseconds: t))
        #expect(abs(v.x - 100) < 1e-6)
        #expect(abs(v.y) < 1e-9)
        // Samples older than the window do not count: after 200 ms at rest, the finger is still.
        for step in 1...20 {
            tracker.add(x: Double(t) / 1_000_000 * 100, y: 5, at: MonotonicInstant(microseconds: t + UInt64(step) * 10_000))
        }
        #expect(abs(tracker.velocity(at: MonotonicInstant(microseconds: t + 200_000)).x) < 1e-9)
    }

    /// The fit as it was first written: every sample of the ring, those before the window skipped. The tracker
    /// now walks only the window; its results must be the same to the bit (replays are compared byte for byte).
    static func referenceVelocity(_ samples: [VelocityTracker.Sample], window: Microseconds, at now: MonotonicInstant) -> (x: Double, y: Double) {
        let horizon = now.advanced(by: Microseconds(-window.value))
        let inside = samples.filter { !($0.time < horizon) }
        guard inside.count >= 2, let origin = inside.first?.time else { return (0, 0) }
        var n = 0.0, sumT = 0.0, sumX = 0.0, sumY = 0.0
        for s in inside { n += 1; sumT += (s.time - origin).seconds; sumX += s.x; sumY += s.y }
        let meanT = sumT / n, meanX = sumX / n, meanY = sumY / n
        var stt = 0.0, stx = 0.0, sty = 0.0
        for s in inside {
            let dt = (s.time - origin).seconds - meanT
            stt += dt * dt; stx += dt * (s.x - meanX); sty += dt * (s.y - meanY)
        }
        guard stt > 1e-12 else { return (0, 0) }
        return (stx / stt, sty / stt)
    }

    @Test("the window-only fit equals the whole-ring fit to the bit: ring wrapped or not, window partly filled or empty", arguments: [
        (capacity: 64, samples: 10, gapUS: 4_167), (capacity: 64, samples: 64, gapUS: 4_167), (capacity: 64, samples: 200, gapUS: 4_167),
        (capacity: 8, samples: 13, gapUS: 30_000), (capacity: 64, samples: 150, gapUS: 1_000), (capacity: 2, samples: 5, gapUS: 0),
    ])
    func velocityWindowIsExact(capacity: Int, samples: Int, gapUS: UInt64) {
        var tracker = VelocityTracker(capacity: capacity)
        var kept: [VelocityTracker.Sample] = []
        var t: UInt64 = 5_000_000
        for i in 0..<samples {
            // Uneven gaps, now and then a repeated instant.
            t += i % 7 == 3 ? 0 : gapUS + UInt64(i * 7_919 % 2_001)
            let x = sin(Double(i) * 0.7) * 400 + Double(i % 5) * 13.3, y = Double(i) * 3.25
            tracker.add(x: x, y: y, at: MonotonicInstant(microseconds: t))
            kept.append(VelocityTracker.Sample(time: MonotonicInstant(microseconds: t), x: x, y: y))
            if kept.count > max(2, capacity) { kept.removeFirst() }
            for late: UInt64 in [0, 1_000, 100_000, 149_999, 150_000, 400_000] {
                let now = MonotonicInstant(microseconds: t + late)
                let ours = tracker.velocity(at: now)
                let reference = Self.referenceVelocity(kept, window: tracker.window, at: now)
                #expect(ours.x.bitPattern == reference.x.bitPattern && ours.y.bitPattern == reference.y.bitPattern,
                        "sample \(i), \(late) us later: \(ours) against \(reference)")
            }
        }
    }

    @Test("rotation maps device corners to the user's view", arguments: [
        (Rotation.degrees0, 0.0, 0.0, 0.0, 0.0), (.degrees90, 0.0, 0.0, 1.0, 0.0),
        (.degrees180, 0.0, 0.0, 1.0, 1.0), (.degrees270, 0.0, 0.0, 0.0, 1.0),
        (.degrees90, 1.0, 0.0, 1.0, 1.0), (.degrees270, 0.25, 0.5, 0.5, 0.75),
    ])
    func rotation(_ r: Rotation, _ x: Double, _ y: Double, _ ex: Double, _ ey: Double) {
        let p = r.apply(NormalizedPoint(x: x, y: y))
        #expect(abs(p.x - ex) < 1e-12 && abs(p.y - ey) < 1e-12)
    }

    @Test("calibration followed by rotation is one matrix", arguments: Rotation.allCases)
    func calibrationThenRotation(_ r: Rotation) {
        let m = CalibrationMatrix(0.9, 0.05, 0.02, -0.03, 1.1, -0.04)
        for p in [NormalizedPoint(x: 0.1, y: 0.2), NormalizedPoint(x: 0.8, y: 0.6)] {
            let separately = r.apply(m.apply(p))
            let combined = m.followed(by: r).apply(p)
            #expect(abs(separately.x - combined.x) < 1e-12 && abs(separately.y - combined.y) < 1e-12)
        }
    }

    @Test("raw values are clamped, negative minimums handled, a missing resolution falls back", arguments: [
        (Int32(-4824), Int32(4824), Int32(0), Int32(-4824), 0.0),
        (-4824, 4824, 0, 0, 0.5),
        (-4824, 4824, 0, 5200, 1.0),
        (1472, 5728, 0, 1000, 0.0),
    ])
    func axes(_ min: Int32, _ max: Int32, _ res: Int32, _ raw: Int32, _ expected: Double) {
        let axis = AxisRange(minimum: min, maximum: max, resolution: res)
        #expect(abs(axis.fraction(of: raw) - expected) < 1e-12)
        #expect(axis.length == nil)
        let device = TouchDevice(id: DeviceID(9), name: "t", kind: .touchpad, x: axis, y: axis)
        #expect(!device.hasPhysicalSize)
        #expect(device.size == TouchDevice.defaultAssumedSize(for: .touchpad))
    }

    @Test("a rotated device swaps its size and its edges")
    func rotatedDevice() {
        var device = TestDevices.cintiq
        device.rotation = .degrees90
        #expect(device.size.width.value == 194.4)
        // The device's top-left corner is the user's top-right.
        let p = device.normalize(rawX: 0, rawY: 0)
        #expect(p == NormalizedPoint(x: 1, y: 0))
    }

    @Test("percents clamp to 0...1, NaN to 0, and encode as bare numbers")
    func percentUnits() throws {
        #expect(Percent(1.7).clamped == .complete)
        #expect(Percent(-0.2).clamped == .zero)
        #expect(Percent(.nan).clamped == .zero)
        #expect(Percent(0.25) + Percent(0.5) == Percent(0.75))
        #expect(PercentPerSecond(-2).magnitude == PercentPerSecond(2))
        #expect(PercentPerSecond(2).distance(in: 0.25) == Percent(0.5))
        let encoded = try JSONEncoder().encode([Percent(0.5)])
        #expect(String(decoding: encoded, as: UTF8.self) == "[0.5]")
        #expect(try JSONDecoder().decode([PercentPerSecond].self, from: Data("[1.5]".utf8)) == [PercentPerSecond(1.5)])
    }

    @Test("the release decision projects velocity like iOS", arguments: [
        (0.2, 0.0, false), (0.55, 0.0, true), (0.2, 0.7, true), (0.7, -0.5, false), (0.45, 0.2, false), (0.45, 0.31, true),
    ])
    func decision(_ percent: Double, _ velocity: Double, _ finish: Bool) {
        let release = Progress(percent: Percent(percent), velocity: PercentPerSecond(velocity))
        #expect(ReleaseDecision.touchscreen.shouldFinish(release) == finish)
    }
}
