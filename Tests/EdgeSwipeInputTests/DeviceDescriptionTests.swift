import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeInputTestSupport
import EdgeSwipeTestSupport
import Foundation
import Testing

struct ClassificationCase: CustomTestStringConvertible, Sendable {
    var description: EvdevDeviceDescription
    var expected: TouchClassification
    var testDescription: String { description.name }
}

private let mtXY: [UInt16: AbsInfo] = [
    EvdevAbs.x: AbsInfo(minimum: 0, maximum: 1000), EvdevAbs.y: AbsInfo(minimum: 0, maximum: 1000),
    EvdevAbs.mtPositionX: AbsInfo(minimum: 0, maximum: 1000), EvdevAbs.mtPositionY: AbsInfo(minimum: 0, maximum: 1000),
]
private let mtSlots: [UInt16: AbsInfo] = mtXY.merging([EvdevAbs.mtSlot: AbsInfo(minimum: 0, maximum: 1)]) { a, _ in a }
private let absXY: [UInt16: AbsInfo] = [EvdevAbs.x: AbsInfo(minimum: 0, maximum: 1000), EvdevAbs.y: AbsInfo(minimum: 0, maximum: 1000)]

@Suite struct DeviceDescriptionTests {
    static let cases: [ClassificationCase] = [
        ClassificationCase(description: TestDevices.elanTouchscreen, expected: .touch(.touchscreen, .multitouchB(slots: 10))),
        ClassificationCase(description: TestDevices.bcm5974, expected: .touch(.touchpad, .multitouchA)),
        ClassificationCase(description: TestDevices.cypress, expected: .touch(.touchpad, .semiMultitouch)),
        ClassificationCase(
            description: EvdevDeviceDescription(
                name: "N-Trig (no properties, MT without BTN_TOOL_FINGER)",
                keys: [EvdevKey.btnTouch, EvdevKey.btnToolDoubleTap], absInfo: mtXY),
            expected: .touch(.touchscreen, .multitouchA)),
        ClassificationCase(
            description: EvdevDeviceDescription(
                name: "hp8470p (no properties, BTN_TOOL_FINGER)",
                keys: [EvdevKey.btnLeft, EvdevKey.btnToolFinger, EvdevKey.btnTouch], absInfo: mtSlots),
            expected: .touch(.touchpad, .multitouchB(slots: 2))),
        ClassificationCase(
            description: EvdevDeviceDescription(
                name: "Intuos5 finger (POINTER)", properties: .pointer, keys: [EvdevKey.btnTouch], absInfo: mtSlots),
            expected: .touch(.touchpad, .multitouchB(slots: 2))),
        ClassificationCase(
            description: EvdevDeviceDescription(name: "old resistive screen", keys: [EvdevKey.btnTouch], absInfo: absXY),
            expected: .touch(.touchscreen, .singleTouch)),
        ClassificationCase(
            description: EvdevDeviceDescription(
                name: "old single-finger touchpad", keys: [EvdevKey.btnLeft, EvdevKey.btnToolFinger, EvdevKey.btnTouch], absInfo: absXY),
            expected: .touch(.touchpad, .singleTouch)),
        ClassificationCase(
            description: EvdevDeviceDescription(
                name: "keyboard", eventTypes: [EvdevType.key, EvdevType.led],
                keys: [EvdevKey.keyEscape, EvdevKey.keyQ, EvdevKey.keyA, EvdevKey.keyZ, EvdevKey.keySpace]),
            expected: .notTouch(.keyboard)),
        ClassificationCase(
            description: EvdevDeviceDescription(
                name: "mouse", eventTypes: [EvdevType.rel], keys: [EvdevKey.btnLeft, EvdevKey.btnRight, EvdevKey.btnMiddle]),
            expected: .notTouch(.mouse)),
        ClassificationCase(
            description: EvdevDeviceDescription(
                name: "pen display stylus", properties: .direct,
                keys: [EvdevKey.btnToolPen, EvdevKey.btnToolRubber, EvdevKey.btnTouch, EvdevKey.btnStylus], absInfo: absXY),
            expected: .notTouch(.pen)),
        ClassificationCase(
            description: EvdevDeviceDescription(name: "QEMU USB Tablet", keys: [EvdevKey.btnLeft, EvdevKey.btnRight], absInfo: absXY),
            expected: .notTouch(.absolutePointer)),
        ClassificationCase(
            description: EvdevDeviceDescription(name: "gamepad", keys: [EvdevKey.btnGamepad], absInfo: absXY),
            expected: .notTouch(.joystick)),
        ClassificationCase(
            description: EvdevDeviceDescription(name: "accelerometer", properties: .accelerometer, absInfo: absXY),
            expected: .notTouch(.accelerometer)),
        ClassificationCase(
            description: EvdevDeviceDescription(name: "power button", keys: [116]),
            expected: .notTouch(.noPositionAxes)),
    ]

    @Test(arguments: cases)
    func classifies(_ c: ClassificationCase) {
        #expect(c.description.classification == c.expected)
    }

    @Test func notTouchAndSemiMultitouchThrowNamingTheDevice() {
        let keyboard = Self.cases.first { $0.description.name == "keyboard" }?.description ?? EvdevDeviceDescription(name: "")
        #expect(throws: TouchDeviceError.notATouchDevice(name: "keyboard", reason: .keyboard)) {
            _ = try keyboard.touchCapabilities()
        }
        #expect(TouchDeviceError.notATouchDevice(name: "keyboard", reason: .keyboard).description == "\"keyboard\": not a touch device (keyboard)")
        #expect(throws: TouchDeviceError.semiMultitouch(name: "CyPS/2 Cypress Trackpad")) {
            _ = try TestDevices.cypress.touchDevice(id: DeviceID(1), path: "x")
        }
    }

    @Test func touchDeviceTakesTheMultitouchAxes() throws {
        let device = try TestDevices.bcm5974.touchDevice(id: DeviceID(4), path: "/dev/input/event4")
        #expect(device.kind == .touchpad)
        #expect(device.x == AxisRange(minimum: -4620, maximum: 5140))
        #expect(device.y == AxisRange(minimum: -150, maximum: 6600))
        #expect(!device.hasPhysicalSize)
        #expect(device.path == "/dev/input/event4")
        #expect(device.id == DeviceID(4))
    }

    @Test func singleTouchDevicesUseTheLegacyAxes() throws {
        var description = EvdevDeviceDescription(name: "resistive", keys: [EvdevKey.btnTouch], absInfo: absXY)
        description.absInfo[EvdevAbs.x] = AbsInfo(minimum: 100, maximum: 3900, resolution: 20)
        let device = try description.touchDevice(id: DeviceID(1), path: "")
        #expect(device.x == AxisRange(minimum: 100, maximum: 3900, resolution: 20))
    }

    @Test func aMultitouchAxisWithoutResolutionBorrowsTheLegacyOne() throws {
        var description = TestDevices.elanTouchscreen
        description.absInfo[EvdevAbs.mtPositionX]?.resolution = 0
        let device = try description.touchDevice(id: DeviceID(1), path: "")
        #expect(device.x.resolution == 10)
        #expect(device.size == MillimeterSize(widthMM: 331.2, heightMM: 187.2))
    }

    @Test func theHostsSetupIsApplied() throws {
        let setup = DeviceSetup(
            rotation: .degrees90, calibration: CalibrationMatrix(1, 0, 0.1, 0, 1, 0),
            assumedSize: MillimeterSize(widthMM: 50, heightMM: 30), reportedSize: MillimeterSize(widthMM: 330, heightMM: 190))
        let device = try TestDevices.elanTouchscreen.touchDevice(id: DeviceID(2), path: "p", setup: setup)
        #expect(device.rotation == .degrees90)
        #expect(device.calibration == CalibrationMatrix(1, 0, 0.1, 0, 1, 0))
        #expect(device.assumedSize == MillimeterSize(widthMM: 50, heightMM: 30))
        #expect(device.reportedSize == MillimeterSize(widthMM: 330, heightMM: 190))
    }

    @Test func anEmptyAxisIsRejectedWithItsRange() {
        var description = TestDevices.elanTouchscreen
        description.absInfo[EvdevAbs.mtPositionY] = AbsInfo(minimum: 5, maximum: 5)
        #expect(throws: TouchDeviceError.invalidAxis(name: "ELAN Touchscreen", axis: "ABS_MT_POSITION_Y", minimum: 5, maximum: 5)) {
            _ = try description.touchDevice(id: DeviceID(1), path: "")
        }
        #expect(
            TouchDeviceError.invalidAxis(name: "ELAN Touchscreen", axis: "ABS_MT_POSITION_Y", minimum: 5, maximum: 5).description
                == "\"ELAN Touchscreen\": rejected: ABS_MT_POSITION_Y range 5..5 is empty")
    }

    @Test func inputPropertiesPrintTheirKernelNames() {
        #expect(InputProperties([.pointer, .buttonPad]).description == "INPUT_PROP_POINTER|INPUT_PROP_BUTTONPAD")
        #expect(InputProperties().description == "none")
        #expect(InputProperties(bit: 3) == .semiMultitouch)
        #expect(InputProperties(bit: 40) == nil)
    }

    /// The nine libinput test-suite devices: each DIRECT one is a touchscreen, every other one a touchpad, all MT-B.
    @Test(.enabled(if: Fixtures.recordingsAvailable, "needs ../shared/recordings (devices/libinput-test-devices.json)"))
    func libinputTestDevicesClassify() throws {
        struct Device: Decodable {
            struct Axis: Decodable { var min: Int32; var max: Int32; var fuzz: Int32; var flat: Int32; var resolution: Int32 }
            var name: String
            var absinfo: [String: Axis]
            var props: [String]
        }
        let codes: [String: UInt16] = [
            "ABS_X": 0x00, "ABS_Y": 0x01, "ABS_PRESSURE": 0x18, "ABS_TOOL_WIDTH": 0x1c, "ABS_MISC": 0x28,
            "ABS_MT_SLOT": 0x2f, "ABS_MT_TOUCH_MAJOR": 0x30, "ABS_MT_TOUCH_MINOR": 0x31, "ABS_MT_WIDTH_MAJOR": 0x32,
            "ABS_MT_WIDTH_MINOR": 0x33, "ABS_MT_ORIENTATION": 0x34, "ABS_MT_POSITION_X": 0x35, "ABS_MT_POSITION_Y": 0x36,
            "ABS_MT_TRACKING_ID": 0x39, "ABS_MT_PRESSURE": 0x3a,
        ]
        let props: [String: InputProperties] = [
            "INPUT_PROP_POINTER": .pointer, "INPUT_PROP_DIRECT": .direct, "INPUT_PROP_BUTTONPAD": .buttonPad,
        ]
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.recording("devices/libinput-test-devices.json")))
        let devices = try JSONDecoder().decode([Device].self, from: data)
        #expect(devices.count == 9)
        for d in devices {
            var abs: [UInt16: AbsInfo] = [:]
            for (name, a) in d.absinfo {
                let code = try #require(codes[name], "unknown axis \(name)")
                abs[code] = AbsInfo(minimum: a.min, maximum: a.max, fuzz: a.fuzz, flat: a.flat, resolution: a.resolution)
            }
            var p: InputProperties = []
            for name in d.props { p.insert(try #require(props[name], "unknown property \(name)")) }
            let description = EvdevDeviceDescription(name: d.name, properties: p, keys: [EvdevKey.btnTouch], absInfo: abs)
            let slots = Int((abs[EvdevAbs.mtSlot]?.maximum ?? -1) + 1)
            let kind: DeviceKind = p.contains(.direct) ? .touchscreen : .touchpad
            #expect(description.classification == .touch(kind, .multitouchB(slots: slots)), "\(d.name)")
            let device = try description.touchDevice(id: DeviceID(1), path: "")
            #expect(device.x.minimum == abs[EvdevAbs.mtPositionX]?.minimum, "\(d.name)")
        }
    }
}
