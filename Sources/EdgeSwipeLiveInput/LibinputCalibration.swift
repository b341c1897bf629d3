public import EdgeSwipeCore

/// The calibration matrix libinput is given for a touchscreen.
public enum LibinputCalibration {
    /// The configured calibration, then the rotation, as libinput's six floats
    /// (`libinput_device_config_calibration_set_matrix`). libinput applies it to normalized coordinates, so
    /// `get_x_transformed` is already in the user's orientation.
    public static func matrix(rotation: Rotation, calibration: CalibrationMatrix?) -> [Float] {
        (calibration ?? .identity).followed(by: rotation).values.map { Float($0) }
    }
}
