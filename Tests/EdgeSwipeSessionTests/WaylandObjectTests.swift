import EdgeSwipeSystem
import Glibc
import Testing

@testable import EdgeSwipeSession

/// Only the thread a Wayland display was made on touches it and what was made on it (``OwningThread``): the session's
/// Wayland thread is the one owner, and a mistake traps at once, naming the object, rather than racing. A display over
/// one end of a socket pair needs no compositor.
@Suite("Wayland objects: one owning thread")
struct WaylandObjectTests {
    /// A display over one end of a socket pair whose other end is left open (nothing reads it).
    static func display() throws -> WaylandDisplay {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { throw WaylandError("socketpair: \(errno)") }
        return try WaylandDisplay(adopting: ends[0])
    }

    @Test("on its own thread a display and its registry are used and let go of")
    func ownThread() throws {
        let display = try Self.display()
        let connection = try WaylandConnection(display: display)
        #expect(connection.flush() == .ok)
        #expect(!connection.isReady, "nothing answered the sync")
    }

    @Test("a display touched from another thread traps")
    func otherThreadTraps() async {
        await #expect(processExitsWith: .failure) {
            // A set-up that fails exits 0, so that only the trap passes the test.
            guard let display = try? WaylandObjectTests.display() else { exit(0) }
            let box = UnsafeSendable(display)
            guard let thread = try? SystemThread.start(name: "intruder", { _ = box.value.pointer }) else { exit(0) }
            thread.join()
            exit(0)
        }
    }
}

/// Hands a non-Sendable value to another thread on purpose: what the trap is there to catch.
private struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
