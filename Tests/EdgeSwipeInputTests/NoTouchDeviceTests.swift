import EdgeSwipeInput
import EdgeSwipeLiveInput
import Glibc
import Testing

/// Why a daemon reads no touch device, judged from what libinput offered (`NoTouchDevice`), as the daemon logs it
/// at start-up and `--list-devices` prints it.
@Suite struct NoTouchDeviceTests {
    static func candidate(_ name: String, _ path: String, _ property: String) -> DeviceCandidate {
        DeviceCandidate(name: name, path: path, properties: [property: "1", "ID_INPUT": "1"])
    }
    static let keyboard = Unopened.notWanted(candidate("AT Keyboard", "/dev/input/event0", "ID_INPUT_KEYBOARD"), reason: "a keyboard")
    static let mouse = Unopened.notWanted(candidate("USB Mouse", "/dev/input/event1", "ID_INPUT_MOUSE"), reason: "a mouse")
    static let screen = candidate("ELAN Touchscreen", "/dev/input/event5", "ID_INPUT_TOUCHSCREEN")
    static let unreadableScreen = Unopened.cannotOpen(screen, .system(call: "open", path: screen.path, errno: EACCES))
    static let deniedScreen = Unopened.notWanted(screen, reason: "denied by name:ELAN*")

    static let rows: [(name: String, unopened: [Unopened], says: [String])] = [
        ("nothing at all", [], ["no input device at all on seat seat0", "waiting for one to be plugged in", "--replay demo/edgeswipe-demo.evemu --loop"]),
        ("a keyboard and a mouse", [keyboard, mouse], ["no touchscreen or touchpad on seat seat0, only 2 other input devices", "waiting for one"]),
        ("a touchscreen this user may not read", [keyboard, unreadableScreen], [
            "no touch device can be read: /dev/input/event5 \"ELAN Touchscreen\" (Permission denied)", "edgeswipe group", "Installing as a service",
        ]),
        ("a touchscreen the configuration keeps out", [deniedScreen, mouse], [
            "the configuration keeps out every one present: /dev/input/event5 \"ELAN Touchscreen\" (denied by name:ELAN*)", "[devices]",
        ]),
        ("unreadable says more than kept out", [deniedScreen, unreadableScreen], ["no touch device can be read"]),
    ]

    @Test(arguments: rows)
    func judged(_ name: String, _ unopened: [Unopened], _ says: [String]) {
        let said = NoTouchDevice(unopened: unopened, seat: "seat0").description
        for part in says { #expect(said.contains(part), "\(name): \(said)") }
    }
}
