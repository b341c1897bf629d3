import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol

extension ServerSnapshot {
    /// Follows one engine event, as the server publishes it: devices come and go, running transitions are
    /// tracked from their first event to their terminal one, and a `state` event replaces containers and running
    /// transitions wholesale (the engine's word is final). The time only moves forward.
    mutating func apply(_ event: EngineEvent) {
        switch event {
        case .device(let e):
            advance(to: e.time)
            switch e.change {
            case .added:
                devices.removeAll { $0.id == e.device.id }
                devices.append(e.device)
            case .changed:
                // In place: a rotated device keeps its position in the list.
                if let i = devices.firstIndex(where: { $0.id == e.device.id }) { devices[i] = e.device } else { devices.append(e.device) }
            case .removed:
                devices.removeAll { $0.id == e.device.id }
            }
        case .transition(let e):
            advance(to: e.time)
            let index = running.firstIndex { $0.id == e.id }
            if e.phase.isTerminal {
                if let index { running.remove(at: index) }
            } else {
                let summary = RunningTransitionSummary(
                    id: e.id, container: e.container, operation: e.operation.name, phase: e.phase, percent: e.percent)
                if let index { running[index] = summary } else { running.append(summary) }
            }
        case .state(let s):
            containers = s.containers
            running = s.running.map(RunningTransitionSummary.init)
            advance(to: s.time)
        case .gesture(let e):
            advance(to: e.time)
        case .lifecycle(let e):
            advance(to: e.time)
        case .presentation(let e):
            advance(to: e.time)
        case .interaction(let e):
            advance(to: e.time)
        case .trace:
            break
        }
    }

    private mutating func advance(to t: MonotonicInstant) {
        if t > time { time = t }
    }
}
