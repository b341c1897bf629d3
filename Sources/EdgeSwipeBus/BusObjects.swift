import CSystemd

#if canImport(Glibc)
import Glibc
#endif

// What a connection needs beyond calling and matching: writing any value a signature describes, serving method calls
// on an object of our own, and owning a well-known name. Still no variadic call: replies are built as messages.

/// A D-Bus type signature, split into its complete types (`"tsi"` → `t`, `s`, `i`; `"a{sv}(ss)"` → `a{sv}`, `(ss)`).
enum BusSignature {
    /// The complete types of `signature` in order, or `nil` if it is not a valid signature.
    static func split(_ signature: String) -> [String]? {
        let bytes = Array(signature.utf8)
        var out: [String] = []
        var i = 0
        while i < bytes.count {
            guard let end = completeType(bytes, from: i, depth: 0) else { return nil }
            out.append(String(decoding: bytes[i..<end], as: UTF8.self))
            i = end
        }
        return out
    }

    /// Where the complete type starting at `i` ends (one past it), or `nil`.
    private static func completeType(_ b: [UInt8], from i: Int, depth: Int) -> Int? {
        guard i < b.count, depth < 64 else { return nil }
        switch b[i] {
        case UInt8(ascii: "a"):
            return completeType(b, from: i + 1, depth: depth + 1)
        case UInt8(ascii: "("):
            var j = i + 1
            while j < b.count, b[j] != UInt8(ascii: ")") {
                guard let next = completeType(b, from: j, depth: depth + 1) else { return nil }
                j = next
            }
            return j < b.count && j > i + 1 ? j + 1 : nil
        case UInt8(ascii: "{"):
            guard let key = completeType(b, from: i + 1, depth: depth + 1), let value = completeType(b, from: key, depth: depth + 1),
                value < b.count, b[value] == UInt8(ascii: "}")
            else { return nil }
            return value + 1
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"), UInt8(ascii: "b"), UInt8(ascii: "y"), UInt8(ascii: "n"),
            UInt8(ascii: "q"), UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"),
            UInt8(ascii: "h"), UInt8(ascii: "v"):
            return i + 1
        default:
            return nil
        }
    }
}

/// Writes ``BusValue``s into a message, each as the type a signature gives (or its own).
enum BusMessageWriter {
    /// Appends `value` as the complete type `type` (its own signature when `nil`); a negative errno when the value
    /// does not have that type (`-EINVAL`) or sd-bus refuses it. File descriptors are not written.
    static func append(_ value: BusValue, as type: String?, to message: OpaquePointer) -> Int32 {
        let type = type ?? value.signature
        guard let first = type.utf8.first else { return -EINVAL }
        func container(_ kind: Character, _ contents: String, _ body: () -> Int32) -> Int32 {
            let opened = contents.withCString { sd_bus_message_open_container(message, CChar(kind.asciiValue ?? 0), $0) }
            guard opened >= 0 else { return opened }
            let written = body()
            guard written >= 0 else { return written }
            return sd_bus_message_close_container(message)
        }
        func basic<T: BitwiseCopyable>(_ v: T) -> Int32 {
            var v = v
            return sd_bus_message_append_basic(message, CChar(bitPattern: first), &v)
        }
        func text(_ s: String) -> Int32 { s.withCString { sd_bus_message_append_basic(message, CChar(bitPattern: first), $0) } }
        /// A structure (`r`) or a dictionary entry (`e`): the fields, each as its part of the signature.
        func fieldsContainer(_ kind: Character, _ fields: [BusValue]) -> Int32 {
            let inner = String(type.dropFirst().dropLast())
            guard let types = BusSignature.split(inner), types.count == fields.count else { return -EINVAL }
            return container(kind, inner) {
                for (field, fieldType) in zip(fields, types) {
                    let r = append(field, as: fieldType, to: message)
                    if r < 0 { return r }
                }
                return 0
            }
        }
        switch (Character(UnicodeScalar(first)), value) {
        case ("a", .array(let items)):
            let element = String(type.dropFirst())
            return container("a", element) {
                for item in items {
                    let r = append(item, as: element, to: message)
                    if r < 0 { return r }
                }
                return 0
            }
        case ("(", .structure(let fields)):
            return fieldsContainer("r", fields)
        case ("{", .dictEntry(let key, let entry)):
            return fieldsContainer("e", [key, entry])
        case ("v", .variant(let inner)):
            return container("v", inner.signature) { append(inner, as: nil, to: message) }
        case ("s", .string(let s)), ("o", .objectPath(let s)), ("g", .signature(let s)): return text(s)
        // D-Bus booleans travel as 32-bit integers.
        case ("b", .bool(let b)): return basic(Int32(b ? 1 : 0))
        case ("y", .byte(let v)): return basic(v)
        case ("n", .int16(let v)): return basic(v)
        case ("q", .uint16(let v)): return basic(v)
        case ("i", .int32(let v)): return basic(v)
        case ("u", .uint32(let v)): return basic(v)
        case ("x", .int64(let v)): return basic(v)
        case ("t", .uint64(let v)): return basic(v)
        case ("d", .double(let v)): return basic(v)
        default:
            return -EINVAL
        }
    }
}

/// A method call to an object we serve (``SDBus/export(_:handler:)``), read.
public struct BusCall: Sendable {
    /// The caller's unique name (`:1.42`): what a caller check starts from.
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [BusValue]
    /// False when the caller sent it with `NO_REPLY_EXPECTED`: no answer goes back.
    public var expectsReply: Bool

    public init(sender: String, path: String, interface: String, member: String, arguments: [BusValue], expectsReply: Bool = true) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.expectsReply = expectsReply
    }

    /// `org.example.Iface.Member`, for log lines and errors.
    public var name: String { "\(interface).\(member)" }
}

/// How a served method call is answered.
public enum BusAnswer: Hashable, Sendable {
    /// A method return with `values` (of `signature`, or each value's own type).
    case values([BusValue], signature: String? = nil)
    /// A D-Bus error: its name (`org.freedesktop.DBus.Error.AccessDenied`) and a message saying why.
    case error(name: String, message: String)

    /// An empty method return.
    public static let done = BusAnswer.values([])
    /// The standard refusal of a caller that may not call (the caller check's answer).
    public static func accessDenied(_ why: String) -> BusAnswer { .error(name: "org.freedesktop.DBus.Error.AccessDenied", message: why) }
    /// The standard answer to arguments of the wrong type or out of range.
    public static func invalidArgs(_ why: String) -> BusAnswer { .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: why) }
}

/// What an exported object's C callback reaches: the handler, and the connection to answer on.
private final class ObjectBox {
    let path: String
    let handler: (BusCall) -> BusAnswer?
    init(path: String, handler: @escaping (BusCall) -> BusAnswer?) {
        self.path = path
        self.handler = handler
    }
}

/// The C callback of an exported object: reads the call, asks the handler, sends its answer. 0 (not handled) when
/// the handler declines, so that sd-bus answers `UnknownMethod` itself.
private func dispatchToObject(
    _ message: OpaquePointer?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let message, let userData else { return 0 }
    let box = Unmanaged<ObjectBox>.fromOpaque(userData).takeUnretainedValue()
    guard case .success(let read) = BusMessageReader.read(message, call: "a call to \(box.path)"),
        let sender = read.sender, let member = read.member
    else {
        return sd_bus_reply_method_errno(message, EINVAL, nil)
    }
    let call = BusCall(
        sender: sender, path: read.path ?? box.path, interface: read.interface ?? "", member: member, arguments: read.body,
        expectsReply: sd_bus_message_get_expect_reply(message) > 0)
    guard let answer = box.handler(call) else { return 0 }
    guard call.expectsReply else { return 1 }
    switch answer {
    case .error(let name, let text):
        var e = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&e) }
        _ = sd_bus_error_set(&e, name, text)
        let rc = sd_bus_reply_method_error(message, &e)
        return rc < 0 ? rc : 1
    case .values(let values, let signature):
        var reply: OpaquePointer? = nil
        var rc = sd_bus_message_new_method_return(message, &reply)
        guard rc >= 0, let reply else { return rc }
        defer { sd_bus_message_unref(reply) }
        let types: [String?] = signature.flatMap(BusSignature.split) ?? values.map { _ in nil }
        guard types.count == values.count else { return sd_bus_reply_method_errno(message, EINVAL, nil) }
        for (value, type) in zip(values, types) {
            rc = BusMessageWriter.append(value, as: type, to: reply)
            if rc < 0 { return sd_bus_reply_method_errno(message, -rc, nil) }
        }
        rc = sd_bus_send(sd_bus_message_get_bus(message), reply, nil)
        return rc < 0 ? rc : 1
    }
}

extension SDBus {
    /// Serves method calls to the object at `path`: `handler` gets each one (every interface; it checks the caller
    /// first) and answers it, or returns `nil` to leave it unanswered here (sd-bus then says `UnknownMethod`). It runs
    /// inside ``processOne()``, on the connection's thread; while the slot lives.
    public func export(_ path: String, handler: @escaping (BusCall) -> BusAnswer?) throws(BusError) -> BusSlot {
        let slot = BusSlot(box: ObjectBox(path: path, handler: handler))
        var raw: OpaquePointer? = nil
        let rc = sd_bus_add_object(handle, &raw, path, { m, u, e in dispatchToObject(m, u, e) }, slot.userData)
        guard rc >= 0, let raw else { throw .system(call: "sd_bus_add_object \(path)", errno: -rc) }
        slot.handle = raw
        return slot
    }

    /// Takes the well-known name `name` (fails if someone else owns it: no queueing, no replacing), so that callers
    /// can find an object we serve.
    public func requestName(_ name: String) throws(BusError) {
        let rc = sd_bus_request_name(handle, name, 0)
        guard rc >= 0 else { throw .system(call: "sd_bus_request_name \(name)", errno: -rc) }
    }

    /// This connection's unique name on the bus (`:1.42`), once it has one.
    public var uniqueName: String? {
        var name: UnsafePointer<CChar>? = nil
        guard sd_bus_get_unique_name(handle, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }
}
