/// A minimal JSON writer that appends UTF-8 into a reused byte array: the one JSON writer of the package (the
/// protocol's lines, and, through ``value(_:pretty:)``, the daemon's state file and edgeswipe-bench's report).
///
/// The server encodes every engine event once per publish, at up to a million events per second, so this avoids
/// `JSONEncoder` (which builds a dictionary tree and formats numbers through `String`) on the hot path. It writes
/// no whitespace. Callers lay out objects themselves with ``raw(_:)`` keys such as `,"percent":`, which keeps the
/// writer free of per-object bookkeeping.
///
/// Numbers: integers are exact; doubles are written in fixed point with at most six decimals (micro-units of
/// whatever they measure, far below what a touch sensor resolves), trailing zeros trimmed, so `0.5` stays `0.5`
/// and `1.0` is `1`. Magnitudes of 9e9 and beyond use Swift's shortest round-trip form. JSON has no NaN or
/// infinity; the engine never produces them, and should one slip through it is written as `0` so the line stays
/// valid JSON.
public struct JSONWriter: @unchecked Sendable {
    // @unchecked: `storage` is a class, but every mutation goes through `reserve`, which copies it unless this
    // value is its only owner, so JSONWriter has value semantics like an Array.

    /// Growable bytes written through a pointer. An Array's `append(contentsOf:)` re-checks uniqueness and
    /// capacity and goes through a generic copy on every call; a message is dozens of small writes, and those
    /// checks were most of the encoding time.
    ///
    /// Its fields are `let`s: a class's `var`s are checked for exclusive access at run time on every read and
    /// write, which cost as much as the encoding itself. Growing replaces the whole object instead.
    final class Storage {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = max(64, capacity)
            base = .allocate(capacity: self.capacity)
        }

        /// A new storage of at least `capacity` bytes holding the first `count` bytes of this one.
        func copy(count: Int, capacity: Int) -> Storage {
            let new = Storage(capacity: capacity)
            new.base.update(from: base, count: count)
            return new
        }

        deinit { base.deallocate() }
    }

    var storage: Storage
    /// Bytes written so far.
    public private(set) var count = 0
    /// Whether the next field written through ``key(_:)`` is the first of its object (no comma before it).
    var atObjectStart = false

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 1024) {
        storage = Storage(capacity: capacity)
    }

    /// A copy of the bytes written.
    public var bytes: [UInt8] { withBytes { Array($0) } }

    /// The bytes written, without copying them.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.base, count: count))
    }

    /// Forgets what was written, keeping the storage.
    public mutating func removeAll() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(capacity: storage.capacity) }
        count = 0
        atObjectStart = false
    }

    /// Room for `n` more bytes, owned by this value alone; the caller writes them and adds what it wrote to
    /// `count`.
    @inline(__always)
    mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if count + n > storage.capacity {
            storage = storage.copy(count: count, capacity: max(count + n, storage.capacity * 2))
        } else if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy(count: count, capacity: storage.capacity)
        }
        return storage.base + count
    }

    /// Appends `text` as is: keys and punctuation the caller lays out.
    @inline(__always)
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Appends bytes as is.
    @inline(__always)
    public mutating func append(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard let source = chunk.baseAddress, chunk.count > 0 else { return }
        let n = chunk.count
        let p = reserve(n)
        // Keys and short values are a few bytes: a plain loop beats a call to memmove for them.
        if n <= 24 {
            for i in 0..<n { p[i] = source[i] }
        } else {
            p.update(from: source, count: n)
        }
        count += n
    }

    /// `"key":`, after a comma unless it is the first field of its object.
    @inline(__always)
    mutating func key(_ key: StaticString) {
        let n = key.utf8CodeUnitCount
        let comma = atObjectStart ? 0 : 1
        let p = reserve(n + 3 + comma)
        if comma == 1 { p[0] = UInt8(ascii: ",") }
        p[comma] = UInt8(ascii: "\"")
        let source = key.utf8Start
        for i in 0..<n { p[comma + 1 + i] = source[i] }
        p[comma + 1 + n] = UInt8(ascii: "\"")
        p[comma + 2 + n] = UInt8(ascii: ":")
        count += n + 3 + comma
        atObjectStart = false
    }

    /// Appends one byte as is.
    @inline(__always)
    public mutating func byte(_ b: UInt8) {
        reserve(1).pointee = b
        count += 1
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// A JSON string, escaping quotes, backslashes and control characters. Other UTF-8 passes through.
    public mutating func string(_ value: String) {
        byte(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for i in 0..<utf8.count {
                let c = utf8[i]
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                append(UnsafeBufferPointer(rebasing: utf8[start..<i]))
                escape(c)
                start = i + 1
            }
            append(UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        byte(UInt8(ascii: "\""))
    }

    private mutating func escape(_ c: UInt8) {
        byte(UInt8(ascii: "\\"))
        switch c {
        case UInt8(ascii: "\""): byte(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): byte(UInt8(ascii: "\\"))
        case 0x0A: byte(UInt8(ascii: "n"))
        case 0x0D: byte(UInt8(ascii: "r"))
        case 0x09: byte(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            raw("u00")
            hex.withUTF8Buffer { digits in
                byte(digits[Int(c >> 4)])
                byte(digits[Int(c & 0xF)])
            }
        }
    }

    /// An exact decimal integer.
    public mutating func integer(_ value: UInt64) {
        let p = reserve(20)
        count += Self.writeDecimal(value, at: p)
    }

    public mutating func integer(_ value: Int64) {
        if value < 0 {
            let p = reserve(21)
            p.pointee = UInt8(ascii: "-")
            count += 1 + Self.writeDecimal(value.magnitude, at: p + 1)
        } else {
            integer(UInt64(value))
        }
    }

    public mutating func integer(_ value: Int) { integer(Int64(value)) }

    /// A double in fixed point with up to six decimals (see the type's notes).
    public mutating func number(_ value: Double) {
        guard value.isFinite else {
            byte(UInt8(ascii: "0"))
            return
        }
        // Round half away from zero without a libm call: this runs a dozen times per message.
        let scaled = value * 1_000_000
        guard scaled.magnitude < 9e15 else {
            value.description.utf8.withContiguousStorageIfAvailable { append($0) } ?? append(Array(value.description.utf8))
            return
        }
        let micro = Int64(scaled + (scaled < 0 ? -0.5 : 0.5))
        let p = reserve(28)
        var n = 0
        if micro < 0 {
            p.pointee = UInt8(ascii: "-")
            n = 1
        }
        let magnitude = micro.magnitude
        n += Self.writeDecimal(magnitude / 1_000_000, at: p + n)
        var fraction = magnitude % 1_000_000
        if fraction != 0 {
            var digits = 6
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            p[n] = UInt8(ascii: ".")
            var i = n + digits
            while i > n {
                p[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)
                fraction /= 10
                i -= 1
            }
            n += 1 + digits
        }
        count += n
    }

    private mutating func append(_ array: [UInt8]) {
        array.withUnsafeBufferPointer { append($0) }
    }

    /// Writes `value` in decimal at `p` (room for 20 digits), returning the number of digits.
    static func writeDecimal(_ value: UInt64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        var digits = 1
        var v = value
        while v >= 10 {
            v /= 10
            digits += 1
        }
        v = value
        var i = digits
        repeat {
            i -= 1
            p[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        } while i > 0
        return digits
    }

    /// Appends `value` in decimal; shared with the server, which writes the per-connection `seq` straight into
    /// its outbound buffer.
    public static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        withDecimalDigits(of: value) { bytes.append(contentsOf: $0) }
    }

    /// Calls `body` with the decimal digits of `value`, without allocating.
    public static func withDecimalDigits<R>(of value: UInt64, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var v = value
            var i = 20
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") &+ UInt8(v % 10)
                v /= 10
            } while v > 0
            return try body(UnsafeBufferPointer(rebasing: buffer[i..<20]))
        }
    }
}

// MARK: - Documents

extension JSONWriter {
    /// Writes a parsed or built ``JSONValue``: for documents people read (the daemon's state file, edgeswipe-bench's
    /// report), not for the protocol's messages, which are written field by field.
    ///
    /// Object keys come out sorted, so the same value always gives the same bytes. Numbers are exact: a double is
    /// written in the shortest form that reads back as the same double (``exactNumber(_:)``), not in the six
    /// decimals of ``number(_:)``. `pretty` puts each member of an object, and each item of an array that holds
    /// objects or arrays, on a line of its own, indented by two spaces a level; an array of scalars stays on one
    /// line.
    public mutating func value(_ value: JSONValue, pretty: Bool = false) {
        write(value, level: pretty ? 0 : nil)
    }

    /// A double in the shortest form that reads back as the same value (Swift's `description`); an integral value
    /// below 10^15 in magnitude without a fraction (`1`, not `1.0`). JSON has no NaN or infinity: they are `null`.
    public mutating func exactNumber(_ value: Double) {
        guard value.isFinite else {
            raw("null")
            return
        }
        if value == value.rounded(), value.magnitude < 1e15 {
            integer(Int64(value))
            return
        }
        var text = value.description
        text.withUTF8 { append($0) }
    }

    /// `level`: the depth of `value` when pretty, `nil` for compact output.
    private mutating func write(_ value: JSONValue, level: Int?) {
        switch value {
        case .null: raw("null")
        case .bool(let b): bool(b)
        case .integer(let i): integer(i)
        case .number(let d): exactNumber(d)
        case .string(let s): string(s)
        case .array(let items):
            guard !items.isEmpty else {
                raw("[]")
                return
            }
            // An array of scalars stays on one line even when pretty.
            let inner = level.flatMap { l in items.contains(where: \.isContainer) ? l + 1 : nil }
            byte(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 {
                    byte(UInt8(ascii: ","))
                    if level != nil && inner == nil { byte(UInt8(ascii: " ")) }
                }
                if let inner { newline(indent: inner) }
                write(item, level: inner ?? level)
            }
            if let level, inner != nil { newline(indent: level) }
            byte(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                raw("{}")
                return
            }
            let inner = level.map { $0 + 1 }
            byte(UInt8(ascii: "{"))
            for (i, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { byte(UInt8(ascii: ",")) }
                if let inner { newline(indent: inner) }
                string(member.key)
                byte(UInt8(ascii: ":"))
                if inner != nil { byte(UInt8(ascii: " ")) }
                write(member.value, level: inner)
            }
            if let level { newline(indent: level) }
            byte(UInt8(ascii: "}"))
        }
    }

    private mutating func newline(indent level: Int) {
        byte(UInt8(ascii: "\n"))
        for _ in 0..<level { raw("  ") }
    }
}
