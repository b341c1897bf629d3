import Glibc
public import SystemPackage

// How the wrappers of this module turn a C call's result into Swift: a value, or the `errno` it failed with.

extension FileDescriptor {
    /// A call's result, or its `errno`.
    static func check<T: BinaryInteger>(_ result: T) throws(Errno) -> T {
        guard result >= 0 else { throw Errno(rawValue: errno) }
        return result
    }

    /// Evaluates `call` again while it fails with `EINTR`.
    static func check<T: BinaryInteger>(retryingInterrupts call: @autoclosure () -> T) throws(Errno) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw Errno(rawValue: errno) }
        }
    }
}

/// swift-system's calls are declared `throws`, and only ever throw an `Errno`: this says so in the type.
func typedErrno<R>(_ body: () throws -> R) throws(Errno) -> R {
    do { return try body() } catch let error as Errno { throw error } catch { throw Errno.ioError }
}


/// A system call that failed: which, and why. Reads `fsync state.json.tmp-42 failed: No space left on device
/// (errno 28)`.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call and, where it helps, what it was called on.
    public var call: String
    public var errno: Errno

    public init(_ call: String, _ errno: Errno) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call) failed: \(errno) (errno \(errno.rawValue))" }
}
