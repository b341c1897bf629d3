public import EdgeSwipeCore
public import EdgeSwipeFingerScript
public import EdgeSwipeInput
public import EdgeSwipeRecordings
import Foundation
import Glibc

/// One touch device's evdev stream, ready to decode: a device of a real recording, or the synthetic stream.
public struct DeviceStream: Sendable {
    /// The file (and device, when the file has several), for reports.
    public var name: String
    public var description: EvdevDeviceDescription
    public var device: TouchDevice
    public var touchProtocol: TouchProtocol
    /// In file order, with the recording's own timestamps.
    public var events: [EvdevEvent]

    public init(name: String, description: EvdevDeviceDescription, device: TouchDevice, touchProtocol: TouchProtocol, events: [EvdevEvent]) {
        self.name = name
        self.description = description
        self.device = device
        self.touchProtocol = touchProtocol
        self.events = events
    }

    /// The streams of every touch device of `recording` that the daemon would play (not semi-MT, not a pen).
    public static func streams(of recording: Recording, name: String, firstID: inout UInt32) -> (streams: [DeviceStream], skipped: [String]) {
        var streams: [DeviceStream] = []
        var skipped: [String] = []
        for recorded in recording.devices {
            do throws(TouchDeviceError) {
                let (_, touchProtocol) = try recorded.description.touchCapabilities()
                let device = try recorded.description.touchDevice(id: DeviceID(firstID), path: recorded.source)
                _ = try EvdevFrameDecoder(description: recorded.description, device: device)
                firstID += 1
                let label = recording.devices.count > 1 ? "\(name) [\(recorded.description.name)]" : name
                streams.append(DeviceStream(
                    name: label, description: recorded.description, device: device, touchProtocol: touchProtocol,
                    events: recorded.events))
            } catch {
                skipped.append("\(name): \(error)")
            }
        }
        return (streams, skipped)
    }
}

/// The inputs the benchmarks run on.
public enum BenchCorpus {
    /// Every recording under `directory` (evemu `*.events`/`*.evemu`, `libinput record` `*.yaml`), in name order;
    /// devices the daemon would not play are listed in `skipped` with the reason.
    public static func recordings(in directory: String) -> (streams: [DeviceStream], skipped: [String]) {
        var files: [String] = []
        if let walker = FileManager.default.enumerator(atPath: directory) {
            while let relative = walker.nextObject() as? String {
                if relative.hasSuffix(".events") || relative.hasSuffix(".evemu") || relative.hasSuffix(".yaml") {
                    files.append(relative)
                }
            }
        }
        files.sort()
        var streams: [DeviceStream] = []
        var skipped: [String] = []
        var nextID: UInt32 = 1
        for relative in files {
            let path = directory + "/" + relative
            do {
                let recording = try Recording.load(path: path)
                let result = DeviceStream.streams(of: recording, name: relative, firstID: &nextID)
                streams += result.streams
                skipped += result.skipped
            } catch {
                skipped.append("\(relative): \(error)")
            }
        }
        return (streams, skipped)
    }

    /// The bundled demo (`demo/edgeswipe-demo.evemu`), generated in memory: the same events as the file.
    public static func demo() -> DeviceStream {
        var id: UInt32 = 1
        return DeviceStream.streams(of: DemoRecording.recording(), name: "demo/edgeswipe-demo.evemu", firstID: &id).streams[0]
    }

    /// The synthetic 10-finger stream (see ``SyntheticStream``) as a device stream.
    public static func synthetic(seconds: Double, hz: Int = SyntheticStream.defaultHz, id: UInt32 = 1) -> DeviceStream {
        let description = SyntheticStream.device
        // The description is the demo touchscreen's, which is a valid MT protocol B touchscreen.
        let (_, touchProtocol) = try! description.touchCapabilities()
        let device = try! description.touchDevice(id: DeviceID(id), path: "synthetic")
        return DeviceStream(
            name: "synthetic 10-finger \(hz) Hz, \(seconds) s", description: description, device: device,
            touchProtocol: touchProtocol, events: SyntheticStream.events(seconds: seconds, hz: hz))
    }

    /// The first folder of `candidates` that exists and holds recordings: `../shared/recordings` beside the
    /// package in the development tree.
    public static func findRecordings(from start: String, explicit: String?) -> String? {
        if let explicit { return FileManager.default.fileExists(atPath: explicit) ? explicit : nil }
        var url = URL(fileURLWithPath: start).standardizedFileURL
        for _ in 0..<8 {
            let candidate = url.appendingPathComponent("../shared/recordings").standardizedFileURL.path
            if FileManager.default.fileExists(atPath: candidate + "/INDEX.md") { return candidate }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { break }
            url = parent
        }
        return nil
    }
}

/// A synthetic touchscreen stream: ten fingers at 240 Hz, with an edge swipe running for most of it.
///
/// The device is the demo touchscreen (155 x 87 mm at 30 units/mm, MT protocol B, 10 slots). Each cycle of
/// 1.88 s, alternately from the left and the right edge (so the default configuration's tabs go home -> launcher
/// -> home, and every swipe completes):
/// - 0-0.4 s: slot 0 lands 1.5 mm from the edge and swipes inward to 60 % of the width (smoothstep);
/// - from the 12th frame, slots 1-9 land one per frame in the middle of the screen, then each circles 3 mm;
/// - 0.4-1.58 s: slot 0 keeps moving, 10 % of the width back and forth (a triangle wave of 0.27 s periods that
///   ends while it moves inward, so the release completes);
/// - 1.58 s: all ten lift in one frame; 0.3 s without touches, so the run-out ends before the next swipe.
///
/// Every frame moves every finger, so a frame is 33 events (`ABS_MT_SLOT`, X and Y per finger, the pointer
/// emulation's `ABS_X`/`ABS_Y`, and `SYN_REPORT`): about 7,900 events/s, near the most a touch controller sends.
public enum SyntheticStream {
    public static let defaultHz = 240
    public static let device = DemoRecording.device
    static let swipeFrames = 96  // 0.4 s at 240 Hz
    /// The back-and-forth of the edge finger: 64 frames (0.27 s) per period; the hold ends 0.42 into a fifth
    /// period, while the finger moves inward.
    static let holdPeriod = 64
    static let holdFrames = 4 * holdPeriod + 28  // 1.18 s
    static let gapFrames = 72  // 0.3 s
    static var cycleFrames: Int { swipeFrames + holdFrames + 1 + gapFrames }

    /// The events of `seconds` of the stream, starting at 1 s: an even number of whole cycles (at least two), so
    /// that the stream ends in the state it started from and can be played again and again.
    public static func events(seconds: Double, hz: Int = defaultHz) -> [EvdevEvent] {
        EvdevScriptRenderer.events(script(seconds: seconds, hz: hz), on: device, origin: MonotonicInstant(microseconds: 1_000_000))
    }

    /// The fingers of the stream, scripted (`EdgeSwipeFingerScript`), in the demo screen's units from time 0.
    public static func script(seconds: Double, hz: Int = defaultHz) -> FingerScript {
        var cycles = max(2, Int((seconds / (Double(cycleFrames) / Double(hz))).rounded(.up)))
        cycles += cycles % 2
        var samples: [FingerScript.Sample] = []
        var frame = 0
        func time(_ frame: Int) -> Microseconds { Microseconds(Int64(frame) * 1_000_000 / Int64(hz)) }
        let xMax = 4650.0, yMax = 2610.0, unitsPerMM = 30.0
        for c in 0..<cycles {
            let fromLeft = c % 2 == 0
            let landing = 1.5 * unitsPerMM
            func edgeX(_ travel: Double) -> Double { fromLeft ? landing + travel * xMax : xMax - landing - travel * xMax }
            let edgeY = (0.45 + 0.1 * Double(c % 3) / 2) * yMax
            for f in 0..<(swipeFrames + holdFrames) {
                let travel: Double
                if f < swipeFrames {
                    let p = Double(f) / Double(swipeFrames)
                    travel = 0.6 * p * p * (3 - 2 * p)
                } else {
                    // A triangle wave of 0.1 above 0.6, starting upward.
                    let period = Double(holdPeriod)
                    let phase = Double(f - swipeFrames).truncatingRemainder(dividingBy: period) / period
                    let tri = phase < 0.5 ? phase * 2 : 2 - phase * 2  // 0 -> 1 -> 0
                    travel = 0.6 + 0.1 * tri
                }
                let t = time(frame)
                samples.append(FingerScript.Sample(time: t, finger: 0, phase: f == 0 ? .down : .motion, x: edgeX(travel), y: edgeY))
                for finger in 1..<10 where f >= 11 + finger {
                    // A 3 x 3 grid in the middle of the screen, each finger circling 3 mm with its own phase.
                    let cx = (0.35 + 0.15 * Double((finger - 1) % 3)) * xMax
                    let cy = (0.3 + 0.2 * Double((finger - 1) / 3)) * yMax
                    let angle = Double(f) * 0.25 + Double(finger)
                    let r = 3 * unitsPerMM
                    samples.append(FingerScript.Sample(
                        time: t, finger: Int32(finger), phase: f == 11 + finger ? .down : .motion,
                        x: cx + r * cos(angle), y: cy + r * sin(angle)))
                }
                frame += 1
            }
            let lift = time(frame)
            for finger in 0..<10 {
                samples.append(FingerScript.Sample(time: lift, finger: Int32(finger), phase: .up, x: 0, y: 0))
            }
            frame += 1 + gapFrames
        }
        return FingerScript(samples: samples)
    }
}

/// A synthetic multi-finger stream: 3-finger swipes on the demo touchscreen at 240 Hz, alternately left and right
/// (the built-in configuration's 3-finger bindings: the next tab, then back, so every swipe completes). Each
/// cycle of 1 s: three fingers land 8 ms apart, rest 40 ms, move 60 mm in 0.4 s, rest 0.1 s (a release at rest)
/// and lift 8 ms apart; then nothing until the run-out has ended.
public enum SwipeStream {
    public static let device = DemoRecording.device
    static let cycle = Microseconds.milliseconds(1000)

    /// The fingers of `seconds` of the stream (an even number of swipes, at least two), from time 0.
    public static func script(seconds: Double, hz: Int = SyntheticStream.defaultHz) -> FingerScript {
        let described = try! device.touchDevice(id: DeviceID(1), path: "synthetic-swipes")
        var swipes = max(2, Int((seconds / cycle.seconds).rounded(.up)))
        swipes += swipes % 2
        var script = FingerScript()
        for i in 0..<swipes {
            let left = i % 2 == 0
            let swipe = MultiFingerSwipe(
                fingers: 3, direction: left ? .left : .right, travelMM: 60, duration: .milliseconds(400),
                release: .atRest(hold: .milliseconds(100)), center: (left ? 0.7 : 0.3, 0.5), spacingMM: 15,
                landingStagger: .milliseconds(8), settle: .milliseconds(40), liftStagger: .milliseconds(8),
                interval: Microseconds(Int64(1_000_000 / hz)))
            script = script + FingerScript.multiFingerSwipe(
                swipe, on: described, start: Microseconds(cycle.value * Int64(i)))
        }
        return script
    }
}

extension BenchCorpus {
    /// The synthetic 3-finger swipe stream (see ``SwipeStream``) as a device stream.
    public static func swipes(seconds: Double, hz: Int = SyntheticStream.defaultHz, id: UInt32 = 1) -> DeviceStream {
        let description = SwipeStream.device
        let (_, touchProtocol) = try! description.touchCapabilities()
        let device = try! description.touchDevice(id: DeviceID(id), path: "synthetic-swipes")
        let events = EvdevScriptRenderer.events(
            SwipeStream.script(seconds: seconds, hz: hz), on: description, origin: MonotonicInstant(microseconds: 1_000_000))
        return DeviceStream(
            name: "synthetic 3-finger swipes \(hz) Hz, \(seconds) s", description: description, device: device,
            touchProtocol: touchProtocol, events: events)
    }
}
