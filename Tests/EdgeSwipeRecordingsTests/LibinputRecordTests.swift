import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings
import Testing

/// A `libinput record` v1 file with a clickpad (modelled on the I2C pad of paperwm-three-finger-swipe.yaml) and a
/// keyboard, each with its events.
let smallLibinputRecord = """
    # libinput record
    version: 1
    ndevices: 2
    libinput:
      version: "1.29.2"
    devices:
    - node: /dev/input/event6
      evdev:
        # Name: Pad
        name: "VEN_0488:00 0488:102C Touchpad"
        id: [24, 1160, 4140, 256]
        codes:
          0: [0, 1, 2, 3]
          1: [272, 325, 330, 333] # EV_KEY
          3: [0, 1, 47, 53, 54, 57]
        absinfo:
          0: [0, 1448, 0, 0, 13]
          1: [0, 894, 0, 0, 13]
          47: [0, 4, 0, 0, 0]
          53: [0, 1448, 0, 0, 13]
          54: [0, 894, 0, 0, 13]
          57: [0, 65535, 0, 0, 0]
        properties: [0, 2]
      udev:
        properties:
        - ID_INPUT=1
        - ID_INPUT_TOUCHPAD=1
      events:
      # Current time is 04:30:33
      - evdev:
        - [  0,      0,   3,  47,       0] # EV_ABS / ABS_MT_SLOT               0
        - [  0,      0,   3,  57,    1985]
        - [  0,      0,   3,  53,     481]
        - [  0,      0,   3,  54,     532]
        - [  0,      0,   0,   0,       0]
      - libinput:
        - {time: 0.0, type: POINTER_MOTION}
      - evdev:
        - [  1, 500000,   3,  57,      -1]
        - [  1, 500000,   0,   0,       0]
    - node: /dev/input/event3
      evdev:
        name: "AT Translated Set 2 keyboard"
        id: [17, 1, 1, 43841]
        codes:
          0: [0, 1, 4, 17, 20]
          1: [1, 2, 16, 30, 44, 57]
        properties: []
      events:
      - evdev:
        - [  0, 200000,   1,  30,       1]
        - [  0, 200000,   0,   0,       0]
    """

@Suite struct LibinputRecordTests {
    @Test func parsesEveryDeviceWithItsEvents() throws {
        let recording = try Recording.parse(smallLibinputRecord, path: "pad.yaml")
        #expect(recording.format == .libinputRecord)
        #expect(recording.devices.count == 2)
        let pad = recording.devices[0]
        #expect(pad.description.name == "VEN_0488:00 0488:102C Touchpad")
        #expect(pad.description.id == InputID(bus: 24, vendor: 1160, product: 4140, version: 256))
        #expect(pad.description.properties == [.pointer, .buttonPad])
        #expect(pad.description.keys == [272, 325, 330, 333])
        #expect(pad.description.absInfo[EvdevAbs.mtPositionY] == AbsInfo(minimum: 0, maximum: 894, resolution: 13))
        #expect(pad.description.udevProperties["ID_INPUT_TOUCHPAD"] == "1")
        #expect(pad.description.classification == .touch(.touchpad, .multitouchB(slots: 5)))
        #expect(pad.source == "pad.yaml#/dev/input/event6")
        #expect(pad.events.count == 7)
        #expect(pad.events[5] == EvdevEvent(time: MonotonicInstant(microseconds: 1_500_000), type: 3, code: 57, value: -1))
        let keyboard = recording.devices[1]
        #expect(keyboard.description.classification == .notTouch(.keyboard))
        #expect(keyboard.events.count == 2)
    }

    static let errors: [ParseErrorCase] = [
        ParseErrorCase(
            name: "a row with four values",
            text: smallLibinputRecord.replacingOccurrences(of: "[  1, 500000,   3,  57,      -1]", with: "[1, 500000, 3, 57]"),
            message: "pad.yaml:39:7: truncated line: expected 5 values in 'evdev row [sec, usec, type, code, value]'"),
        ParseErrorCase(
            name: "a value that is not a number",
            text: smallLibinputRecord.replacingOccurrences(of: "[  0,      0,   3,  54,     532]", with: "[0, 0, 3, 54, abc]"),
            message: "pad.yaml:34:21: bad number 'abc' for evdev row [sec, usec, type, code, value]"),
        ParseErrorCase(
            name: "absinfo too short",
            text: smallLibinputRecord.replacingOccurrences(of: "47: [0, 4, 0, 0, 0]", with: "47: [0, 4]"),
            message: "pad.yaml:19:11: truncated line: expected 5 values in 'absinfo'"),
        ParseErrorCase(
            name: "a device without evdev",
            text: smallLibinputRecord.replacingOccurrences(of: "- node: /dev/input/event3\n  evdev:", with: "- node: /dev/input/event3\n  evdevx:"),
            message: "pad.yaml:41:3: missing 'evdev'"),
        ParseErrorCase(
            name: "another version", text: smallLibinputRecord.replacingOccurrences(of: "version: 1", with: "version: 2"),
            message: "pad.yaml:2:10: unsupported format version 2"),
        ParseErrorCase(
            name: "no devices", text: "version: 1\nndevices: 0\n", message: "pad.yaml:1:1: missing 'devices'"),
        ParseErrorCase(
            name: "broken YAML", text: "version: 1\ndevices: [\n  - {a: 1\n",
            message: "pad.yaml:3:3: invalid YAML: while parsing a flow node did not find expected node content"),
        ParseErrorCase(
            name: "a property bit past 31",
            text: smallLibinputRecord.replacingOccurrences(of: "properties: [0, 2]", with: "properties: [0, 99]"),
            message: "pad.yaml:23:17: bad number '99' for properties"),
    ]
}
