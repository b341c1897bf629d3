public import EdgeSwipeCore

/// Devices modelled on real ones (`recordings/devices/libinput-test-devices.json` and the shared evemu
/// recordings), for scripts and tests.
public enum ModelledDevices {
    /// Wacom Cintiq Pro 16 finger: 0..13824 x 0..7776 at 40 units/mm (345.6 x 194.4 mm), a touchscreen.
    public static let cintiq = TouchDevice(
        id: DeviceID(1), name: "Wacom Cintiq Pro 16 Finger", kind: .touchscreen,
        x: AxisRange(minimum: 0, maximum: 13824, resolution: 40), y: AxisRange(minimum: 0, maximum: 7776, resolution: 40))
    /// Nexus 4 touch screen: 0..1500 x 0..2500, resolution 0 (size unknown).
    public static let nexus4 = TouchDevice(
        id: DeviceID(2), name: "Nexus 4 touch screen", kind: .touchscreen,
        x: AxisRange(minimum: 0, maximum: 1500), y: AxisRange(minimum: 0, maximum: 2500))
    /// Synaptics I2C touchpad (DLL0704): 0..1216 x 0..680 at 12 units/mm (101 x 57 mm).
    public static let synapticsI2C = TouchDevice(
        id: DeviceID(3), name: "DLL0704:01 06CB:76AD Touchpad", kind: .touchpad,
        x: AxisRange(minimum: 0, maximum: 1216, resolution: 12), y: AxisRange(minimum: 0, maximum: 680, resolution: 12))
    /// A small laptop touchpad of the kind FIELD-NOTES.md describes: 53 x 23.6 mm (0..1272 x 0..566 at 24
    /// units/mm), so that its 5 mm top and bottom zones cover 42 % of its height.
    public static let smallTouchpad = TouchDevice(
        id: DeviceID(4), name: "Small laptop touchpad", kind: .touchpad,
        x: AxisRange(minimum: 0, maximum: 1272, resolution: 24), y: AxisRange(minimum: 0, maximum: 566, resolution: 24))
    /// The Apple bcm5974 of `bcm5974.three-finger-click.events`: negative minimums, no resolution.
    public static let bcm5974 = TouchDevice(
        id: DeviceID(5), name: "bcm5974", kind: .touchpad,
        x: AxisRange(minimum: -4620, maximum: 5140), y: AxisRange(minimum: -150, maximum: 6600))

    public static let all = [cintiq, nexus4, synapticsI2C]
}
