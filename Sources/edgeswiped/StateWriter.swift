import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeSystem
import Logging
import Synchronization
import SystemPackage

// The input thread never waits for storage. On eMMC or an SD card one fsync can take tens of milliseconds (a save
// takes two: the temporary file and the directory), and the next touch would wait for them; so the input thread
// only puts the containers in a slot and the state writer's thread saves them.
//
// - One slot, latest wins: a state offered while an older one waits replaces it (the older one is never written,
//   the newer one says everything it did), so nothing queues however slow the disk is.
// - The file only ever moves forward: states are offered in the order the input thread published them, the writer
//   writes the newest it holds, and each save is numbered one past the file it replaces (SavedState.generation).
//   AtomicFileWriter makes every save whole: a restart reads the old state or the new one, never a mix.
// - A reply to a request that changed the state still waits until that state is on disk (PersistenceBarrier):
//   the writer marks each generation durable once it is written, and the held replies go out then.
// - SIGTERM flushes: ``stop()`` writes what the slot holds before the daemon exits.
//
// What remains: a state that clients were shown may be lost if the daemon is killed (SIGKILL, a crash, a power
// cut) in the window from its publication to the end of its save, one save's time (docs/PERFORMANCE.md has it
// measured); a restart then restores the state before it, never a torn or older file.

/// Saves the container state on a thread of its own, latest wins.
final class StateWriter: Sendable {
    private struct Slot {
        /// The newest state not yet taken (the containers and the rotations clients set, each the latest offered;
        /// `nil`: as last offered), with the generation (the input thread's count of published states) it
        /// belongs to.
        var pending: (containers: [Container]?, rotations: [RememberedRotation]?, generation: UInt64)?
        /// When the oldest state that is not yet on disk was offered: the start of the loss window.
        var oldestUnsaved: MonotonicInstant?
        /// A byte is in the wake-up pipe, or the writer is about to look at the slot: no need for another.
        var wakeOwed = false
        var stopping = false
        var offered = 0
        var superseded = 0
    }

    /// What the writer has done, for the shutdown log and tests.
    struct Statistics {
        var saves = 0
        var superseded = 0
        /// From a state's publication to the end of the save that put it (or a newer one) on disk.
        var longestWindowUS: UInt64 = 0
        var totalWindowUS: UInt64 = 0
    }

    private let store: StateStore
    private let barrier: PersistenceBarrier
    private let logger: Logger
    private let slot = Mutex(Slot())
    private let wake: WakePipe
    private let thread = Mutex<SystemThread?>(nil)
    private let statistics = Mutex(Statistics())

    /// Starts the writer's thread (`edgeswipe-state`, asleep in ppoll while nothing is to be saved).
    init(store: StateStore, barrier: PersistenceBarrier, logger: Logger) throws(Errno) {
        self.store = store
        self.barrier = barrier
        self.logger = logger
        wake = try WakePipe()
        let started = try SystemThread.start(name: "edgeswipe-state") { [self] in run() }
        thread.withLock { $0 = started }
    }

    /// Hands the writer the containers of the state published as `generation`. Called on the input thread: takes
    /// a lock and, when the writer is asleep, writes one byte to a pipe; never waits for the disk.
    func offer(_ containers: [Container]?, rotations: [RememberedRotation]?, generation: UInt64, at now: MonotonicInstant) {
        let wakeNow = slot.withLock { s -> Bool in
            if let old = s.pending {
                s.superseded += 1
                s.pending = (containers ?? old.containers, rotations ?? old.rotations, max(generation, old.generation))
            } else {
                s.pending = (containers, rotations, generation)
            }
            s.offered += 1
            if s.oldestUnsaved == nil { s.oldestUnsaved = now }
            defer { s.wakeOwed = true }
            return !s.wakeOwed
        }
        if wakeNow { wake.wake() }
    }

    /// Writes what the slot holds, then stops the thread and waits for it (at shutdown, once the input thread has
    /// published its last state). Logs what the writer did.
    func stop() {
        let first = slot.withLock { s in defer { s.stopping = true }; return !s.stopping }
        guard first else { return }
        wake.wake()
        thread.withLock { t in defer { t = nil }; return t }?.join()
        let stats = statistics.withLock { $0 }
        let mean = stats.saves > 0 ? stats.totalWindowUS / UInt64(stats.saves) : 0
        logger.info(
            "state: saved \(stats.saves) times; \(stats.superseded) states were replaced by a newer one before they were written; from publication to disk: mean \(Double(mean) / 1000) ms, longest \(Double(stats.longestWindowUS) / 1000) ms",
            metadata: ["file": "\(store.path)"])
    }

    var current: Statistics { statistics.withLock { $0 } }

    private func run() {
        let waiter = DescriptorWaiter()
        waiter.add(wake.readEnd)
        var lastGeneration: UInt64 = 0
        while true {
            do { try waiter.wait(timeoutMicroseconds: nil) } catch {
                logger.critical("state writer: poll failed (\(error)); the container state is no longer saved")
                return
            }
            wake.drain()
            let (taken, since, stopping, superseded) = slot.withLock { s in
                s.wakeOwed = false
                defer {
                    s.pending = nil
                    s.oldestUnsaved = nil
                    s.superseded = 0
                }
                return (s.pending, s.oldestUnsaved, s.stopping, s.superseded)
            }
            if let taken {
                if taken.generation < lastGeneration {
                    // Offers come from one thread in the order it published them; an older one here is a bug, and
                    // writing it would put the file back.
                    logger.error("bug: state generation \(taken.generation) offered after \(lastGeneration); not saving it")
                } else {
                    // The same generation again: the rotations changed with no new container state.
                    store.save(taken.containers, rotations: taken.rotations)
                    lastGeneration = taken.generation
                }
                // Saved, or failed and logged: either way the replies waiting for it go out (PROTOCOL.md).
                barrier.markPersisted(through: taken.generation)
                let window = since.map { UInt64(max(0, (MonotonicClock.now() - $0).value)) } ?? 0
                statistics.withLock { st in
                    st.saves += 1
                    st.superseded += superseded
                    st.longestWindowUS = max(st.longestWindowUS, window)
                    st.totalWindowUS += window
                }
            }
            if stopping { return }
        }
    }
}
