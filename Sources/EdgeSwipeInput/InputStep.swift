public import EdgeSwipeCore

/// One input for the engine, at its time: what a recording player and the live sources hand the host.
public struct InputStep: Hashable, Sendable {
    /// The engine input: one per engine entry point.
    public enum Input: Hashable, Sendable {
        case deviceAdded(TouchDevice)
        /// The device's geometry changed between touch sequences (a runtime rotation).
        case deviceChanged(TouchDevice)
        case frame(TouchFrame)
        case eventsLost(DeviceID)
        case deviceRemoved(DeviceID)
        /// One of libinput's swipe gesture events for a live touchpad (deltas in mm, in the user's orientation).
        case swipe(DeviceID, SwipeGestureInput)
    }

    public var time: MonotonicInstant
    public var input: Input

    public init(time: MonotonicInstant, input: Input) {
        self.time = time
        self.input = input
    }

    /// Hands the input to the engine.
    public func apply(to engine: inout Engine, into events: inout [EngineEvent]) {
        switch input {
        case .deviceAdded(let device): engine.addDevice(device, at: time, into: &events)
        case .deviceChanged(let device): engine.changeDevice(device, at: time, into: &events)
        case .frame(let frame): engine.handle(frame, into: &events)
        case .eventsLost(let id): engine.eventsLost(on: id, at: time, into: &events)
        case .deviceRemoved(let id): engine.removeDevice(id, at: time, into: &events)
        case .swipe(let id, let input): engine.handleSwipe(input, on: id, at: time, into: &events)
        }
    }
}
