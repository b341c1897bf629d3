import Synchronization

/// When the state a reply reports is durable.
///
/// The input thread numbers the batches it publishes that hold a `state` event (generations); whoever writes the
/// state file says how far it has got (``markPersisted(through:)``), and a reply held for generation N goes out
/// once N is persisted. The state writer (StateWriter.swift) saves in the background and marks generations as it
/// finishes them; the replies follow then, on its thread, and the input thread never waits for them.
final class PersistenceBarrier: Sendable {
    private struct State {
        var persisted: UInt64 = 0
        var waiting: [(generation: UInt64, action: @Sendable () -> Void)] = []
    }
    private let state = Mutex(State())

    /// Everything up to `generation` is on disk, or failed to be written and was logged as an error (a failed
    /// write must not hold replies back forever; PROTOCOL.md says so).
    func markPersisted(through generation: UInt64) {
        let due = state.withLock { s -> [@Sendable () -> Void] in
            guard generation > s.persisted else { return [] }
            s.persisted = generation
            let (due, rest) = s.waiting.reduce(into: ([@Sendable () -> Void](), [(generation: UInt64, action: @Sendable () -> Void)]())) { r, w in
                if w.generation <= generation { r.0.append(w.action) } else { r.1.append(w) }
            }
            s.waiting = rest
            return due
        }
        for action in due { action() }
    }

    /// Runs `action` once `generation` is persisted: at once, on this thread, if it already is.
    func whenPersisted(_ generation: UInt64, _ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if generation <= s.persisted { return true }
            s.waiting.append((generation, action))
            return false
        }
        if now { action() }
    }
}
