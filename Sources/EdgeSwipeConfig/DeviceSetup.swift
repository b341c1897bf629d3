public import EdgeSwipeCore
public import EdgeSwipeInput

extension DeviceSelection {
    /// The per-device mounting the configuration asks for (by name or udev property), and the configured
    /// assumed size of each kind, as the input layer takes them.
    public func setup(for settings: EngineConfiguration) -> @Sendable (EvdevDeviceDescription, DeviceKind) -> DeviceSetup {
        let overrides = self.overrides
        let screen = settings.touchscreen.assumedSize, pad = settings.touchpad.assumedSize
        return { description, kind in
            var setup = DeviceSetup(assumedSize: kind == .touchscreen ? screen : pad)
            for o in overrides where DeviceSelection.matches(o.match, name: description.name, path: "", properties: description.udevProperties) {
                if let r = o.rotation { setup.rotation = r }
                if let c = o.calibration { setup.calibration = c }
            }
            return setup
        }
    }

    /// The allow and deny lists as an input-layer filter.
    public func filter() throws(DeviceFilterError) -> DeviceFilter {
        var allowRules: [DeviceFilter.Rule] = []
        var denyRules: [DeviceFilter.Rule] = []
        for a in allow { allowRules.append(try DeviceFilter.Rule(parsing: a)) }
        for d in deny { denyRules.append(try DeviceFilter.Rule(parsing: d)) }
        return DeviceFilter(allow: allowRules, deny: denyRules)
    }
}
