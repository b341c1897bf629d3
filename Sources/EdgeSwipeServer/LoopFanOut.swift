import NIOConcurrencyHelpers
import NIOCore

/// The connections of one event loop that have something new to write, drained by one task on that loop.
///
/// Publishing to N connections used to schedule N tasks (N closures, and the loop woken for each); now the
/// publisher adds each idle connection here and schedules one task per loop and publish, which drains them one
/// after the other and flushes each once.
final class LoopFanOut: Sendable {
    private struct Pending {
        var connections: [Connection] = []
        /// Connections were added since the last task was scheduled.
        var wakeOwed = false
    }

    let eventLoop: any EventLoop
    private let pending = NIOLockedValueBox(Pending())
    /// The list the loop drains, swapped with the pending one so that both keep their capacity.
    private let draining: NIOLoopBoundBox<[Connection]>

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.draining = .makeBoxSendingValue([], eventLoop: eventLoop)
    }

    /// Adds a connection to drain at the next ``wakeIfPending()``.
    func add(_ connection: Connection) {
        pending.withLockedValue { p in
            p.connections.append(connection)
            p.wakeOwed = true
        }
    }

    /// Schedules one drain on the loop if connections were added since the last one.
    func wakeIfPending() {
        let owed = pending.withLockedValue { p in
            defer { p.wakeOwed = false }
            return p.wakeOwed
        }
        guard owed else { return }
        eventLoop.execute { self.drain() }
    }

    private func drain() {
        var list = draining.value
        draining.value = []
        pending.withLockedValue { swap(&$0.connections, &list) }
        for connection in list { connection.handler.value.drain() }
        list.removeAll(keepingCapacity: list.capacity <= 4096)
        draining.value = list
    }
}
