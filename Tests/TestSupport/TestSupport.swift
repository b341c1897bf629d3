import Foundation

// What several test targets need alike: a place for sockets and files, and waiting on a condition with a deadline
// (tests never sleep a fixed time: they wait until what they expect has happened, or the deadline passes).

/// A private temporary directory with a short path (Unix socket paths hold at most 107 bytes), removed with what
/// it holds when released.
public final class TempDir: Sendable {
    public let path: String

    public init() throws {
        var template = Array("/tmp/esw-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TempDirError(errno: errno) }
        path = String(cString: made)
    }

    /// The path of `name` in the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

public struct TempDirError: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String { "mkdtemp failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// ``waitUntil(timeout:_:)`` without blocking a thread of the concurrency pool (for async tests whose condition
/// waits on tasks).
public func waitUntilAsync(timeout: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// Waits, looking every 10 ms, until `condition` holds or `timeout` seconds have passed; whether it holds.
public func waitUntil(timeout: Double = 20, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(10_000)
    }
    return true
}

/// The same from async code, without blocking a thread of the cooperative pool.
public func eventually(timeout: Double = 20, _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(10))
    }
    return true
}
