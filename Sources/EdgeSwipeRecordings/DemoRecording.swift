public import EdgeSwipeCore
public import EdgeSwipeInput
public import EdgeSwipeFingerScript

/// The recording EdgeSwipe makes of itself: a plausible 7" touchscreen performing one swipe of each kind, so the
/// demo, the CLI and the tests have a file whose every motion is known. It is generated, not recorded, and the
/// generator is deterministic: integer arithmetic on a fixed schedule and a polynomial easing (no `sin`, whose
/// last bit may differ between C libraries), so regenerating gives the same bytes (`demo/edgeswipe-demo.evemu`).
///
/// With `EngineConfiguration.default`, it plays as: a left swipe (previous tab, completed), a right swipe (next
/// tab, completed), a top swipe (present notifications, completed), a bottom swipe (dismiss them, completed), a
/// left swipe released early at rest (cancelled), and a quick right flick released at 35 % that completes because
/// of its velocity.
public enum DemoRecording: GeneratedRecording {
    /// 155 x 87 mm at 30 units/mm, MT protocol B with 10 slots, `INPUT_PROP_DIRECT`.
    public static let device = EvdevDeviceDescription(
        name: "EdgeSwipe Demo Touchscreen", id: InputID(bus: 0x18, vendor: 0x1d6b, product: 0x5e00, version: 1),
        properties: .direct, eventTypes: [EvdevType.syn, EvdevType.key, EvdevType.abs], keys: [EvdevKey.btnTouch],
        absInfo: [
            EvdevAbs.x: AbsInfo(minimum: 0, maximum: 4650, resolution: 30),
            EvdevAbs.y: AbsInfo(minimum: 0, maximum: 2610, resolution: 30),
            EvdevAbs.mtSlot: AbsInfo(minimum: 0, maximum: 9),
            EvdevAbs.mtPositionX: AbsInfo(minimum: 0, maximum: 4650, resolution: 30),
            EvdevAbs.mtPositionY: AbsInfo(minimum: 0, maximum: 2610, resolution: 30),
            EvdevAbs.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
        ])

    /// One scripted swipe.
    public struct Swipe: Hashable, Sendable {
        /// How the finger leaves the glass, which decides the release velocity.
        public enum Release: Hashable, Sendable {
            /// The finger slows to a stop (ease in-out), rests, then lifts.
            case atRest(holdMS: Int)
            /// The finger accelerates (ease in) and lifts while still moving.
            case whileMoving
        }
        /// The edge the finger starts from.
        public var edge: Edge
        /// How far inward, as a fraction of the axis across the edge.
        public var travel: Double
        /// How long the finger moves before it rests or lifts.
        public var durationMS: Int
        /// How the finger lifts.
        public var release: Release
        /// Where along the edge the finger lands, as a fraction of that axis.
        public var along: Double

        public init(edge: Edge, travel: Double, durationMS: Int, release: Release, along: Double = 0.5) {
            self.edge = edge
            self.travel = travel
            self.durationMS = durationMS
            self.release = release
            self.along = along
        }
    }

    /// The six swipes, in order, about a second apart.
    public static let swipes: [Swipe] = [
        Swipe(edge: .left, travel: 0.7, durationMS: 400, release: .atRest(holdMS: 200), along: 0.45),
        Swipe(edge: .right, travel: 0.7, durationMS: 400, release: .atRest(holdMS: 200), along: 0.55),
        Swipe(edge: .top, travel: 0.7, durationMS: 350, release: .atRest(holdMS: 200), along: 0.5),
        Swipe(edge: .bottom, travel: 0.7, durationMS: 350, release: .atRest(holdMS: 200), along: 0.5),
        Swipe(edge: .left, travel: 0.3, durationMS: 300, release: .atRest(holdMS: 250), along: 0.6),
        Swipe(edge: .right, travel: 0.35, durationMS: 120, release: .whileMoving, along: 0.4),
    ]

    /// Where a finger lands: 1.5 mm from the edge, inside the default 4 mm zone.
    public static let landingMM = 1.5
    /// 120 Hz, the report rate of most current touch controllers.
    public static let frameIntervalUS: UInt64 = 8333
    static let firstTouchUS: UInt64 = 500_000
    static let gapUS: UInt64 = 1_000_000

    /// Its file in the repository, `demo/edgeswipe-demo.evemu`.
    public static let fileName = "edgeswipe-demo.evemu"

    /// The six swipes as scripted fingers: each lands `landingMM` from its edge and is eased as its release
    /// says (smoothstep to a stop, or ease-in to a flick), on the 120 Hz schedule, with tracking ids 1 to 6.
    public static func script() -> FingerScript {
        oneAfterAnother(swipes.count) { i, touchDevice, start in
            let swipe = swipes[i]
            let release: EdgeSwipe.Release =
                switch swipe.release {
                case .atRest(let holdMS): .atRest(hold: .milliseconds(Int64(holdMS)))
                case .whileMoving: .whileMoving
                }
            return FingerScript.edgeSwipe(
                EdgeSwipe(
                    edge: swipe.edge, travel: swipe.travel, duration: .milliseconds(Int64(swipe.durationMS)),
                    release: release, along: swipe.along, landing: .millimeters(landingMM),
                    interval: Microseconds(Int64(frameIntervalUS))),
                on: touchDevice, trackingID: Int32(i + 1), start: start)
        }
    }
}

/// A recording EdgeSwipe generates rather than records (``DemoRecording``, ``TouchpadDemoRecording``): a device
/// description and scripted fingers, rendered by ``EvdevScriptRenderer`` as a real device sends them. The
/// generators are deterministic, so that the committed files in `demo/` are exactly their output (a test checks).
public protocol GeneratedRecording: Sendable {
    /// The device the fingers touch.
    static var device: EvdevDeviceDescription { get }
    /// The fingers, in the device's units, from the recording's start.
    static func script() -> FingerScript
    /// The file's name in `demo/`.
    static var fileName: String { get }
}

extension GeneratedRecording {
    /// The evemu text of the recording.
    public static func evemu() -> String { Evemu.write(device, events: events()) }

    /// The recording, without going through text.
    public static func recording(path: String = fileName) -> Recording {
        Recording(path: path, format: .evemu, devices: [RecordedDevice(description: device, events: events(), source: path)])
    }

    /// The kernel's events for every swipe, as a real device sends them: only the values that changed, with the
    /// single-touch emulation (`ABS_X`/`ABS_Y`, `BTN_TOUCH`) and, on a touchpad, the `BTN_TOOL_*` of the finger
    /// count beside the slots' values.
    public static func events() -> [EvdevEvent] {
        EvdevScriptRenderer.events(script(), on: device)
    }

    /// `count` strokes, each made by `stroke(i, device, start)`, one after another: the first at 0.5 s, each next
    /// one a second after the last one's last sample. Empty if ``device`` is no touch device (a test checks that
    /// each generator's is).
    static func oneAfterAnother(_ count: Int, _ stroke: (Int, TouchDevice, Microseconds) -> FingerScript) -> FingerScript {
        let touchDevice: TouchDevice
        do { touchDevice = try device.touchDevice(id: DeviceID(1), path: "demo") } catch { return FingerScript() }
        var script = FingerScript()
        var start = Microseconds(Int64(DemoRecording.firstTouchUS))
        for i in 0..<count {
            let next = stroke(i, touchDevice, start)
            script = script + next
            start = next.end + Microseconds(Int64(DemoRecording.gapUS))
        }
        return script
    }
}

/// The demo's multi-finger half, for trying 3-finger swipes without a touchpad: a plausible clickpad (100 x 60 mm
/// at 40 units/mm, 5 slots, `INPUT_PROP_POINTER` and `INPUT_PROP_BUTTONPAD`, like the e2e scenarios' pad) on which
/// three fingers swipe, about a second apart (`demo/edgeswipe-touchpad-demo.evemu`).
///
/// With `EngineConfiguration.default` (a 3-finger swipe right is the previous tab, left the next one; 100 % is
/// 28.5 mm on a touchpad) it plays as: a swipe right of 22 mm (previous tab, completed), a swipe left of 22 mm
/// (next tab, completed), and a swipe right of 8 mm released at rest (cancelled). Each has somewhere to go both
/// from the initial state (`home`) and after ``DemoRecording``'s swipes (`settings`), so the looped demo plays
/// the two in turn (`edgeswiped --replay A --replay B --in-turn --loop`).
public enum TouchpadDemoRecording: GeneratedRecording {
    /// 100 x 60 mm at 40 units/mm, MT protocol B with 5 slots, a clickpad.
    public static let device = EvdevDeviceDescription(
        name: "EdgeSwipe Demo Touchpad", id: InputID(bus: 0x18, vendor: 0x1d6b, product: 0x5e01, version: 1),
        properties: [.pointer, .buttonPad], eventTypes: [EvdevType.syn, EvdevType.key, EvdevType.abs],
        keys: [
            EvdevKey.btnLeft, EvdevKey.btnToolFinger, EvdevKey.btnTouch, EvdevKey.btnToolDoubleTap, EvdevKey.btnToolTripleTap,
            EvdevKey.btnToolQuadTap,
        ],
        absInfo: [
            EvdevAbs.x: AbsInfo(minimum: 0, maximum: 4000, resolution: 40),
            EvdevAbs.y: AbsInfo(minimum: 0, maximum: 2400, resolution: 40),
            EvdevAbs.mtSlot: AbsInfo(minimum: 0, maximum: 4),
            EvdevAbs.mtPositionX: AbsInfo(minimum: 0, maximum: 4000, resolution: 40),
            EvdevAbs.mtPositionY: AbsInfo(minimum: 0, maximum: 2400, resolution: 40),
            EvdevAbs.mtTrackingID: AbsInfo(minimum: 0, maximum: 65535),
        ])

    /// Its file in the repository, `demo/edgeswipe-touchpad-demo.evemu`.
    public static let fileName = "edgeswipe-touchpad-demo.evemu"

    /// The three swipes, in order: the direction the fingers move, how far, and whether the move commits.
    public static let swipes: [MultiFingerSwipe] = [
        MultiFingerSwipe(fingers: 3, direction: .right, travelMM: 22, release: .atRest(hold: .milliseconds(200))),
        MultiFingerSwipe(fingers: 3, direction: .left, travelMM: 22, release: .atRest(hold: .milliseconds(200))),
        MultiFingerSwipe(fingers: 3, direction: .right, travelMM: 8, release: .atRest(hold: .milliseconds(250))),
    ]

    /// The three swipes as scripted fingers (slots 0 to 2, landing and lifting a little apart, as hands do), on
    /// ``DemoRecording``'s 120 Hz schedule and gaps.
    public static func script() -> FingerScript {
        oneAfterAnother(swipes.count) { i, touchDevice, start in
            FingerScript.multiFingerSwipe(swipes[i], on: touchDevice, start: start)
        }
    }
}
