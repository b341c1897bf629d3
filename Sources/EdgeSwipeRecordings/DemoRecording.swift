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
public enum DemoRecording {
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

    /// The evemu text of the demo.
    public static func evemu() -> String { Evemu.write(device, events: events()) }

    /// The demo as a recording, without going through text.
    public static func recording(path: String = "edgeswipe-demo.evemu") -> Recording {
        Recording(path: path, format: .evemu, devices: [RecordedDevice(description: device, events: events(), source: path)])
    }

    /// The kernel's events for every swipe, as a real device sends them: only the values that changed, with the
    /// single-touch emulation (`ABS_X`/`ABS_Y`, `BTN_TOUCH`) beside the slot's values.
    public static func events() -> [EvdevEvent] {
        EvdevScriptRenderer.events(script(), on: device)
    }

    /// The six swipes as scripted fingers: each lands `landingMM` from its edge and is eased as its release
    /// says (smoothstep to a stop, or ease-in to a flick), on the 120 Hz schedule, with tracking ids 1 to 6.
    public static func script() -> FingerScript {
        let touchDevice: TouchDevice
        do {
            touchDevice = try device.touchDevice(id: DeviceID(1), path: "demo")
        } catch {
            // The description above is a valid touchscreen; a test checks it.
            return FingerScript()
        }
        var script = FingerScript()
        var start = Microseconds(Int64(firstTouchUS))
        for (i, swipe) in swipes.enumerated() {
            let release: EdgeSwipe.Release =
                switch swipe.release {
                case .atRest(let holdMS): .atRest(hold: .milliseconds(Int64(holdMS)))
                case .whileMoving: .whileMoving
                }
            let stroke = FingerScript.edgeSwipe(
                EdgeSwipe(
                    edge: swipe.edge, travel: swipe.travel, duration: .milliseconds(Int64(swipe.durationMS)),
                    release: release, along: swipe.along, landing: .millimeters(landingMM),
                    interval: Microseconds(Int64(frameIntervalUS))),
                on: touchDevice, trackingID: Int32(i + 1), start: start)
            script = script + stroke
            start = stroke.end + Microseconds(Int64(gapUS))
        }
        return script
    }
}
