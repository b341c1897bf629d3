// The one description of every server message, and the coders that follow it.
//
// Each message type lists its fields once, in wire order, in a `wire(_:)` method: `try c.field("time_us",
// &timeUS)`. That method is the only place a field's key, order and type are written down. Every coder walks it:
// the fast writer (`JSONWriter`, what the server and `edgeswipectl replay --json` send), the reader of received
// lines (`WireReader`, over the protocol's own JSON parser), and the `Codable` conformance the messages offer
// clients (`WireEncodingCoder`, `WireDecodingCoder`). A field added to a message's `wire(_:)` is written, read and
// coded at once; a stored property left out of it is caught by the tests (`WireDescriptionTests`).
//
// Generic coders are specialized by the compiler, so the writer runs as fast as hand-written code: no
// existentials, no allocation per message (docs/PERFORMANCE.md, "The wire format: which encoder").


/// Visits a message's fields in wire order, reading or writing each.
protocol WireCoder {
    /// `Never` for the writer, so writing needs no `try`.
    associatedtype Failure: Error
    /// A field that is always present.
    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V) throws(Failure)
    /// A field that is absent (or `null`, when read) when it has no value.
    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V?) throws(Failure)
    /// The fields of `value` beside the current object's own (a `device` message's device).
    mutating func inline<O: WireObject>(_ value: inout O) throws(Failure)
}

/// A value the wire carries: written as JSON, read from a parsed ``JSONValue``, and `Codable` with the same shape.
protocol WireValue: Codable {
    func write(to w: inout JSONWriter)
    /// ``write(to:)`` for a value the writer may visit in place: an object's fields are walked without copying
    /// it first (its `wire(_:)` is `mutating`, for readers).
    static func write(_ value: inout Self, to w: inout JSONWriter)
    /// Reads the value; a wrong one is a ``WireReadError`` naming what was expected and what came.
    init(wire value: JSONValue) throws(WireReadError)
    /// Refuses a value read for the field `key` that lies outside the range a client may rely on (``WireRanges``);
    /// the reader calls it on every field it reads.
    static func checkRange(_ value: Self, field name: String) throws(WireReadError)
}

extension WireValue {
    @inline(__always)
    static func write(_ value: inout Self, to w: inout JSONWriter) { value.write(to: &w) }

    /// Most values have no range beyond their type's (an object's fields are checked as they are read).
    static func checkRange(_ value: Self, field name: String) throws(WireReadError) {}
}

/// The ranges a client may rely on for the numbers of a server message (PROTOCOL.md, "Numbers"), checked once where
/// a line is read (``ServerMessage/init(line:)``), so that the code that draws, matches and formats them can convert
/// them without trapping. A line outside them is refused as a whole, as a line of the wrong shape is: a number past
/// these comes from no daemon (the engine clamps its percents; the rest are millimetres, seconds and coordinates),
/// but from whatever else listens on the socket.
public enum WireRanges {
    /// Whether `field` is a fraction, in 0...1: a transition's `percent` (and a run-out's `from_percent` and
    /// `to_percent`), a rubber band's `overscroll` and `rubber_band_limit`, a scene's `alpha` and `dimming_alpha`, a
    /// release's `threshold`.
    public static func isFraction(_ field: String) -> Bool {
        // A switch over short strings: compared in place, no hashing, on the path of every number read.
        switch field {
        case "percent", "from_percent", "to_percent", "overscroll", "rubber_band_limit", "alpha", "dimming_alpha", "threshold": true
        default: false
        }
    }
    /// Every other number lies within ± this: far past any millimetre, percent per second, coordinate or rate the
    /// daemon sends, and small enough that a client may scale it by a screen's pixels or by 10^4 (four decimals) and
    /// still convert it to an integer.
    public static let magnitude = 1e9

    /// Why `value`, read for `field`, is out of range; `nil` when it is in.
    public static func problem(_ value: Double, field: String) -> String? {
        if isFraction(field) {
            return (0...1).contains(value) ? nil : "\(value) is outside 0...1"
        }
        return value.magnitude <= magnitude ? nil : "\(value) is past the ±1e9 a client accepts"
    }
}

/// A JSON object whose fields are described by ``wire(_:)``.
///
/// `init()` makes the placeholder a reader fills in: every property has a default, but a field that is missing
/// from a line is an error, never a default.
protocol WireObject: WireValue {
    init()
    /// Visits every field, in wire order. The single definition of the object's wire shape.
    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure)
}

/// A server message: `type`, `seq` and `time_us`, then its own fields.
protocol WireMessage: WireObject {
    static var type: MessageType { get }
    var seq: UInt64 { get set }
    var timeUS: UInt64 { get set }
    /// The fields after `time_us`, in wire order.
    mutating func body<C: WireCoder>(_ c: inout C) throws(C.Failure)
}

extension WireMessage {
    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("seq", &seq)
        try c.field("time_us", &timeUS)
        try body(&c)
    }

    /// The fields every message has: `type`, `seq` and `time_us` (``ServerMessage``'s accessors read them).
    var common: (type: String, seq: UInt64, timeUS: UInt64) { (Self.type.rawValue, seq, timeUS) }
}

// MARK: - Writing

extension JSONWriter: WireCoder {
    typealias Failure = Never

    @inline(__always)
    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V) {
        self.key(key)
        V.write(&value, to: &self)
    }

    @inline(__always)
    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V?) {
        guard value != nil else { return }
        self.key(key)
        V.write(&value!, to: &self)
    }

    mutating func inline<O: WireObject>(_ value: inout O) {
        value.wire(&self)
    }
}

extension WireObject {
    func write(to w: inout JSONWriter) {
        var copy = self
        Self.write(&copy, to: &w)
    }

    @inline(__always)
    static func write(_ value: inout Self, to w: inout JSONWriter) {
        w.byte(UInt8(ascii: "{"))
        w.atObjectStart = true
        value.wire(&w)
        w.atObjectStart = false
        w.byte(UInt8(ascii: "}"))
    }

    init(wire value: JSONValue) throws(WireReadError) {
        guard case .object(let members) = value else { throw WireReadError.expected("an object", got: value) }
        try self.init(members: members)
    }

    /// Reads the fields of a parsed object.
    init(members: [String: JSONValue]) throws(WireReadError) {
        self.init()
        var reader = WireReader(members: members)
        try wire(&reader)
    }
}

// MARK: - Reading

/// Why a value could not be read, and where: `path` runs from the outermost field inwards.
struct WireReadError: Error {
    var path: [String] = []
    var problem: String

    static func expected(_ what: String, got value: JSONValue) -> WireReadError {
        WireReadError(problem: "expected \(what), got \(value.kindName)")
    }

    /// `at devices[0].size_mm: field "width" is missing`.
    var description: String {
        var place = ""
        for part in path {
            if part.hasPrefix("[") || place.isEmpty { place += part } else { place += "." + part }
        }
        return place.isEmpty ? problem : "at \(place): \(problem)"
    }

    func inside(_ part: String) -> WireReadError {
        var e = self
        e.path.insert(part, at: 0)
        return e
    }
}

/// Reads a parsed object's fields into a message; unknown fields are ignored, so that a newer server's
/// additions do not break an older client.
struct WireReader: WireCoder {
    typealias Failure = WireReadError
    let members: [String: JSONValue]

    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V) throws(WireReadError) {
        let name = key.description
        guard let found = members[name] else { throw WireReadError(problem: "field \"\(name)\" is missing") }
        do {
            value = try V(wire: found)
            try V.checkRange(value, field: name)
        } catch { throw error.inside(name) }
    }

    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V?) throws(WireReadError) {
        let name = key.description
        switch members[name] {
        case nil, .null?: value = nil
        case .some(let found):
            do {
                let read = try V(wire: found)
                try V.checkRange(read, field: name)
                value = read
            } catch { throw error.inside(name) }
        }
    }

    mutating func inline<O: WireObject>(_ value: inout O) throws(WireReadError) {
        try value.wire(&self)
    }
}

// MARK: - Codable, through the same description

/// A key of the description, for `Codable`.
struct WireKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(_ key: StaticString) { stringValue = key.description }
}

struct WireEncodingCoder: WireCoder {
    typealias Failure = any Error
    var container: KeyedEncodingContainer<WireKey>

    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V) throws {
        try container.encode(value, forKey: WireKey(key))
    }

    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V?) throws {
        try container.encodeIfPresent(value, forKey: WireKey(key))
    }

    mutating func inline<O: WireObject>(_ value: inout O) throws {
        try value.wire(&self)
    }
}

struct WireDecodingCoder: WireCoder {
    typealias Failure = any Error
    let container: KeyedDecodingContainer<WireKey>

    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V) throws {
        value = try container.decode(V.self, forKey: WireKey(key))
    }

    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V?) throws {
        value = try container.decodeIfPresent(V.self, forKey: WireKey(key))
    }

    mutating func inline<O: WireObject>(_ value: inout O) throws {
        try value.wire(&self)
    }
}

extension WireObject {
    public func encode(to encoder: any Encoder) throws {
        var coder = WireEncodingCoder(container: encoder.container(keyedBy: WireKey.self))
        var copy = self
        try copy.wire(&coder)
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        var coder = WireDecodingCoder(container: try decoder.container(keyedBy: WireKey.self))
        try wire(&coder)
    }
}

// MARK: - Values

extension Bool: WireValue {
    func write(to w: inout JSONWriter) { w.bool(self) }
    init(wire value: JSONValue) throws(WireReadError) {
        guard case .bool(let b) = value else { throw .expected("a boolean", got: value) }
        self = b
    }
}

extension String: WireValue {
    func write(to w: inout JSONWriter) { w.string(self) }
    init(wire value: JSONValue) throws(WireReadError) {
        guard case .string(let s) = value else { throw .expected("a string", got: value) }
        self = s
    }
}

extension Double: WireValue {
    func write(to w: inout JSONWriter) { w.number(self) }
    init(wire value: JSONValue) throws(WireReadError) {
        guard let d = value.doubleValue else { throw .expected("a number", got: value) }
        self = d
    }

    static func checkRange(_ value: Double, field name: String) throws(WireReadError) {
        if let problem = WireRanges.problem(value, field: name) { throw WireReadError(problem: problem) }
    }
}

/// Integers are written exactly; a number with a fraction, or out of the type's range, is an error.
protocol WireInteger: WireValue, FixedWidthInteger {}

extension WireInteger {
    func write(to w: inout JSONWriter) {
        if Self.isSigned { w.integer(Int64(truncatingIfNeeded: self)) } else { w.integer(UInt64(truncatingIfNeeded: self)) }
    }

    init(wire value: JSONValue) throws(WireReadError) {
        switch value {
        case .integer(let i):
            guard let v = Self(exactly: i) else { throw WireReadError(problem: "\(i) is out of range for \(Self.self)") }
            self = v
        // The parser keeps integers past Int64.max as doubles; a UInt64 field may hold one.
        case .number(let d) where d >= 0x1p63 && d < 0x1p64 && d == d.rounded():
            guard let v = Self(exactly: UInt64(d)) else { throw WireReadError(problem: "\(d) is out of range for \(Self.self)") }
            self = v
        default:
            throw .expected("an integer", got: value)
        }
    }
}

extension Int: WireInteger {}
extension Int64: WireInteger {}
extension UInt32: WireInteger {}
extension UInt64: WireInteger {}

extension Array: WireValue where Element: WireValue {
    func write(to w: inout JSONWriter) {
        var copy = self
        Self.write(&copy, to: &w)
    }

    static func write(_ value: inout Self, to w: inout JSONWriter) {
        w.byte(UInt8(ascii: "["))
        for i in value.indices {
            if i > 0 { w.byte(UInt8(ascii: ",")) }
            Element.write(&value[i], to: &w)
        }
        w.byte(UInt8(ascii: "]"))
    }

    init(wire value: JSONValue) throws(WireReadError) {
        guard case .array(let items) = value else { throw .expected("an array", got: value) }
        self = []
        reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            do { append(try Element(wire: item)) } catch { throw error.inside("[\(i)]") }
        }
    }

    /// Each element against the array's field (a device's `calibration`).
    static func checkRange(_ value: Self, field name: String) throws(WireReadError) {
        for (i, element) in value.enumerated() {
            do { try Element.checkRange(element, field: name) } catch { throw error.inside("[\(i)]") }
        }
    }
}

/// A string from a fixed set: an enum's raw value.
protocol WireName: WireValue, RawRepresentable where RawValue == String {}

extension WireName {
    func write(to w: inout JSONWriter) { w.string(rawValue) }
    init(wire value: JSONValue) throws(WireReadError) {
        guard case .string(let s) = value else { throw .expected("a string", got: value) }
        guard let v = Self(rawValue: s) else { throw WireReadError(problem: "unknown value \"\(s)\"") }
        self = v
    }
}

extension Edge: WireName {}
extension SwipeDirection: WireName {}
extension GestureKind: WireName {}
extension GestureState: WireName {}
extension PresentationKind: WireName {}
extension PresentationPhase: WireName {}
extension InteractionPhase: WireName {}
extension DeviceKind: WireName {}
extension DeviceChange: WireName {}
extension TransitionPhase: WireName {}
extension TransitionDirection: WireName {}
extension PresentationStyle: WireName {}
extension LifecycleKind: WireName {}
extension AnimatorStyle: WireName {}
extension Topic: WireName {}
extension ConfigResult: WireName {}
extension ErrorCode: WireName {}

extension RequestID: WireValue {
    func write(to w: inout JSONWriter) {
        switch self {
        case .int(let i): w.integer(i)
        case .string(let s): w.string(s)
        }
    }

    init(wire value: JSONValue) throws(WireReadError) {
        switch value {
        case .integer(let i): self = .int(i)
        case .string(let s): self = .string(s)
        case .null, .bool, .number, .array, .object: throw .expected("an integer or a string", got: value)
        }
    }
}

extension NormalizedRect: WireObject {
    init() { self.init(x: 0, y: 0, width: 0, height: 0) }

    mutating func wire<C: WireCoder>(_ c: inout C) throws(C.Failure) {
        try c.field("x", &x)
        try c.field("y", &y)
        try c.field("width", &width)
        try c.field("height", &height)
    }
}
