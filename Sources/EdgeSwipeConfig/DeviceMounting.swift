public import EdgeSwipeCore

extension DeviceSelection {
    /// The per-device mounting the configuration asks for (`[[devices.override]]`, matched by name or udev
    /// property, in file order) and the configured assumed size of each kind, as the input layer takes them.
    public func setup(for settings: EngineConfiguration) -> DeviceSetupProvider {
        let overrides = self.overrides
        let screen = settings.touchscreen.assumedSize, pad = settings.touchpad.assumedSize
        return { name, properties, kind in
            var setup = DeviceSetup(assumedSize: kind == .touchscreen ? screen : pad)
            for o in overrides where DeviceSelection.matches(o.match, name: name, path: "", properties: properties) {
                if let r = o.rotation {
                    setup.rotation = r
                    setup.followsAccelerometer = false
                }
                if o.followsAccelerometer { setup.followsAccelerometer = true }
                if let c = o.calibration { setup.calibration = c }
                if let output = o.output { setup.output = output }
            }
            return setup
        }
    }
}
