/// Splits a byte stream into newline-terminated lines, with a cap on the length of a line.
///
/// A line longer than the cap is reported once, as soon as the cap is passed (so a peer streaming garbage is
/// answered at once rather than when it finally sends a newline), and the rest of it is discarded up to the next
/// newline, after which framing carries on in sync. A `\r` before the newline is dropped and blank lines are
/// skipped, so `nc` and telnet users can type requests.
public struct LineFramer: Sendable {
    /// One unit of input: a complete line (without its terminator) or the report of an oversized one.
    public enum Frame: Hashable, Sendable {
        case line([UInt8], number: Int)
        /// Line `number` passed `limit` bytes; what follows up to its newline is discarded.
        case oversized(number: Int, limit: Int)
    }

    public let maxLineBytes: Int
    private var pending: [UInt8] = []
    private var discarding = false
    /// The 1-based number of the line being read, counting blank and oversized lines, so that an error can say
    /// which line it answers.
    private var lineNumber = 1

    /// A framer that reports lines longer than `maxLineBytes` (terminator excluded) as oversized.
    public init(maxLineBytes: Int = WireProtocol.maxLineBytes) {
        precondition(maxLineBytes > 0, "a line cap must be positive")
        self.maxLineBytes = maxLineBytes
    }

    /// Bytes that have arrived but do not yet end a line.
    public var bufferedByteCount: Int { pending.count }

    /// Feeds bytes and reports each complete frame, in order.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ emit: (Frame) throws -> Void) rethrows {
        _ = try feed(bytes, while: { true }, emit)
    }

    /// Feeds bytes line by line while `proceed` holds (it is asked before each line), and returns how many bytes
    /// were taken: the rest is for a later call. A reader applying backpressure stops between two requests.
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer, while proceed: () -> Bool, _ emit: (Frame) throws -> Void
    ) rethrows -> Int {
        var start = 0
        let newline = UInt8(ascii: "\n")
        while start < bytes.count {
            guard proceed() else { return start }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
            guard let offset = rest.firstIndex(of: newline) else {
                try absorb(rest, emit)
                return bytes.count
            }
            try absorb(UnsafeRawBufferPointer(rebasing: rest[..<offset]), emit)
            try endLine(emit)
            start += offset + 1
        }
        return bytes.count
    }

    /// The peer has finished sending: a last line without its newline is still a line (`printf '{"op":"ping"}' |
    /// socat …` sends one), reported like any other.
    public mutating func finish(_ emit: (Frame) throws -> Void) rethrows {
        guard discarding || !pending.isEmpty else { return }
        try endLine(emit)
    }

    /// Convenience for tests and the client: feeds an array.
    public mutating func feed(_ bytes: [UInt8], _ emit: (Frame) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { try feed($0, emit) }
    }

    private mutating func absorb(_ chunk: UnsafeRawBufferPointer, _ emit: (Frame) throws -> Void) rethrows {
        guard !discarding, !chunk.isEmpty else { return }
        // Allow one extra byte for a `\r` that the newline may still strip.
        if pending.count + chunk.count > maxLineBytes + 1 {
            pending.removeAll(keepingCapacity: pending.capacity <= maxLineBytes)
            discarding = true
            try emit(.oversized(number: lineNumber, limit: maxLineBytes))
            return
        }
        pending.append(contentsOf: chunk)
    }

    private mutating func endLine(_ emit: (Frame) throws -> Void) rethrows {
        defer { lineNumber += 1 }
        if discarding {
            discarding = false
            return
        }
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        if pending.count > maxLineBytes {
            pending.removeAll(keepingCapacity: true)
            try emit(.oversized(number: lineNumber, limit: maxLineBytes))
            return
        }
        guard !pending.isEmpty else { return }
        let line = pending
        pending.removeAll(keepingCapacity: true)
        try emit(.line(line, number: lineNumber))
    }
}
