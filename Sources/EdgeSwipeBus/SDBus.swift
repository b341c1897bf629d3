import CSystemd
public import EdgeSwipeVocabulary

#if canImport(Glibc)
import Glibc
#endif

// sd-bus (libsystemd) as Swift values: a connection owned by one final class, match and call slots owned
// likewise, and every message read into a checked ``BusValue`` tree, so that a reply of the wrong type is an
// error naming the call, never a crash. Only non-variadic calls are used (Swift cannot call C variadics).

/// Why a bus operation failed: the call, and the errno or the D-Bus error it got.
public enum BusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A libsystemd call returned a negative errno.
    case system(call: String, errno: Int32)
    /// The peer answered with a D-Bus error (`org.freedesktop.DBus.Error.ServiceUnknown`, ...).
    case remote(call: String, name: String, message: String)
    /// The reply was not what the call expects (a wrong type, a missing property).
    case reply(call: String, problem: String)

    public var description: String {
        switch self {
        case .system(let call, let code): "\(call): \(String(cString: strerror(code))) (errno \(code))"
        case .remote(let call, let name, let message): "\(call): \(name)" + (message.isEmpty ? "" : ": \(message)")
        case .reply(let call, let problem): "\(call): unexpected reply: \(problem)"
        }
    }

    /// How much of a peer's error name or message an error keeps: the rest is a peer's to fill, and it ends up in
    /// log lines.
    static let peerTextLimit = 256

    /// A `.remote` error from the C strings of an `sd_bus_error`, each cut to ``peerTextLimit``.
    static func remote(call: String, name: UnsafePointer<CChar>?, message: UnsafePointer<CChar>?) -> BusError {
        func text(_ p: UnsafePointer<CChar>?) -> String {
            guard let p else { return "" }
            let s = String(cString: p)
            return s.utf8.count <= peerTextLimit ? s : BusValue.string(s).description(limit: peerTextLimit)
        }
        let n = text(name)
        return .remote(call: call, name: n.isEmpty ? "?" : n, message: text(message))
    }

    /// The D-Bus error name, when the peer sent one.
    public var remoteName: String? { if case .remote(_, let name, _) = self { name } else { nil } }
}

/// One D-Bus value, as read from a message: the tree a reply's signature describes.
public indirect enum BusValue: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case objectPath(String)
    case signature(String)
    case bool(Bool)
    case byte(UInt8)
    case int16(Int16), uint16(UInt16), int32(Int32), uint32(UInt32), int64(Int64), uint64(UInt64)
    case double(Double)
    /// A Unix file descriptor's index; the descriptor itself is not kept.
    case fileDescriptor
    case structure([BusValue])
    case array([BusValue])
    /// A `{key value}` entry of a dictionary (an array of them).
    case dictEntry(BusValue, BusValue)
    case variant(BusValue)

    /// The D-Bus signature of the value.
    public var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bool: "b"
        case .byte: "y"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .fileDescriptor: "h"
        case .structure(let items): "(" + items.map(\.signature).joined() + ")"
        case .array(let items): "a" + (items.first?.signature ?? "?")
        case .dictEntry(let k, let v): "{" + k.signature + v.signature + "}"
        case .variant: "v"
        }
    }

    public var description: String {
        switch self {
        case .string(let s): "\"\(s)\""
        case .objectPath(let s): s
        case .signature(let s): "g\"\(s)\""
        case .bool(let b): "\(b)"
        case .byte(let v): "\(v)"
        case .int16(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .uint32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .double(let v): "\(v)"
        case .fileDescriptor: "fd"
        case .structure(let items): "(" + items.map(\.description).joined(separator: ", ") + ")"
        case .array(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictEntry(let k, let v): "\(k): \(v)"
        case .variant(let v): "<\(v)>"
        }
    }

    /// The value as ``description`` writes it, cut after about `limit` characters, with control and format
    /// characters escaped (`\u{202E}`): what a log line quotes of a value a peer sent, so that a 1 MB string makes a
    /// short line, and a newline or a direction override in it cannot forge or garble the lines around it. The
    /// value is walked only as far as the limit.
    public func description(limit: Int) -> String {
        var text = BoundedText(room: max(0, limit))
        text.write(self)
        return text.cut ? text.text + "… (cut at \(limit) characters)" : text.text
    }

    /// The value inside a variant (itself otherwise).
    public var unwrapped: BusValue { if case .variant(let v) = self { v.unwrapped } else { self } }

    /// The entries of an `a{sv}` (a property dictionary), keyed by name; `nil` if this is not one.
    public var propertyDictionary: [String: BusValue]? {
        guard case .array(let entries) = self else { return nil }
        var out: [String: BusValue] = [:]
        for entry in entries {
            guard case .dictEntry(.string(let key), let value) = entry else { return nil }
            out[key] = value.unwrapped
        }
        return out
    }

    /// The strings of an `as`; `nil` if this is not one.
    public var stringArray: [String]? {
        guard case .array(let items) = self else { return nil }
        var out: [String] = []
        for item in items {
            guard case .string(let s) = item else { return nil }
            out.append(s)
        }
        return out
    }
}

/// Text written with a budget: ``BusValue/description(limit:)``.
private struct BoundedText {
    var text = ""
    var room: Int
    var cut = false

    mutating func append(_ piece: String) {
        guard !cut else { return }
        if piece.utf8.count <= room {
            text += piece
            room -= piece.utf8.count
        } else {
            appendEscaped(piece, quoted: false)
        }
    }

    /// `s` scalar by scalar, escaping what a log line must not carry raw, until the room is used up.
    mutating func appendEscaped(_ s: String, quoted: Bool) {
        guard !cut else { return }
        if quoted { append("\"") }
        for scalar in s.unicodeScalars {
            guard room > 0 else {
                cut = true
                return
            }
            let piece: String
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                piece = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                piece = String(scalar)
            }
            text += piece
            room -= piece.utf8.count
        }
        if quoted { append("\"") }
    }

    mutating func write(_ value: BusValue) {
        guard !cut else { return }
        switch value {
        case .string(let s): appendEscaped(s, quoted: true)
        case .objectPath(let s): appendEscaped(s, quoted: false)
        case .signature(let s):
            append("g")
            appendEscaped(s, quoted: true)
        case .structure(let items): list("(", items, ")")
        case .array(let items): list("[", items, "]")
        case .dictEntry(let k, let v):
            write(k)
            append(": ")
            write(v)
        case .variant(let v):
            append("<")
            write(v)
            append(">")
        case .bool, .byte, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .fileDescriptor:
            append(value.description)
        }
    }

    private mutating func list(_ open: String, _ items: [BusValue], _ close: String) {
        append(open)
        for (i, item) in items.enumerated() {
            if cut { return }
            if i > 0 { append(", ") }
            write(item)
        }
        append(close)
    }
}

/// A message (a signal, a method call or a reply), its body read once into values.
public struct BusMessage: Sendable {
    /// The sender's unique name (`:1.42`), when the message has one.
    public var sender: String?
    public var member: String?
    public var body: [BusValue]
    /// The object and interface a signal or a method call names.
    public var path: String?
    public var interface: String?

    public init(sender: String? = nil, member: String? = nil, body: [BusValue] = [], path: String? = nil, interface: String? = nil) {
        self.sender = sender
        self.member = member
        self.body = body
        self.path = path
        self.interface = interface
    }
}

/// A match, a pending call or an exported object: while it lives, its handler may run; freed (unregistered) in
/// `deinit`, before the handler it holds, so that no callback reaches a freed handler.
public final class BusSlot {
    var handle: OpaquePointer?
    /// What the C callback's `userdata` points at (unretained): held here, as long as the slot.
    private let box: AnyObject

    init(box: AnyObject) { self.box = box }

    /// The `userdata` to register with the slot's C callback.
    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(box).toOpaque() }

    deinit {
        if let handle { sd_bus_slot_unref(handle) }
    }
}

/// What a slot's C callback reaches, as its `userdata`.
private final class HandlerBox {
    let call: String
    let handler: (Result<BusMessage, BusError>) -> Void
    init(call: String, handler: @escaping (Result<BusMessage, BusError>) -> Void) {
        self.call = call
        self.handler = handler
    }
}

/// The C callback of every slot: reads the message (or its error) and hands it to the slot's Swift handler.
private func dispatchToHandler(
    _ message: OpaquePointer?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let userData else { return 0 }
    let box = Unmanaged<HandlerBox>.fromOpaque(userData).takeUnretainedValue()
    guard let message else {
        box.handler(.failure(.reply(call: box.call, problem: "no message")))
        return 0
    }
    if let e = sd_bus_message_get_error(message), sd_bus_error_is_set(e) != 0 {
        box.handler(.failure(.remote(call: box.call, name: e.pointee.name, message: e.pointee.message)))
        return 0
    }
    box.handler(BusMessageReader.read(message, call: box.call))
    return 0
}

/// A connection to a message bus (`sd_bus`), used from one thread: the one that polls it.
///
/// Poll ``fd`` for ``events`` with ``deadline`` as the timeout, then call ``processOne()``; handlers run inside it.
public final class SDBus {
    let handle: OpaquePointer

    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`).
    public static func system() throws(BusError) -> SDBus {
        var bus: OpaquePointer? = nil
        let rc = sd_bus_open_system(&bus)
        guard rc >= 0, let bus else { throw .system(call: "sd_bus_open_system", errno: -rc) }
        return SDBus(handle: bus)
    }

    /// The user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`): edgeswipe-session's D-Bus
    /// effects.
    public static func user() throws(BusError) -> SDBus {
        var bus: OpaquePointer? = nil
        let rc = sd_bus_open_user(&bus)
        guard rc >= 0, let bus else { throw .system(call: "sd_bus_open_user", errno: -rc) }
        return SDBus(handle: bus)
    }

    /// A bus at an explicit address (`unix:path=…`), as a client of its daemon: for tests and private buses.
    public static func connect(address: String) throws(BusError) -> SDBus {
        var raw: OpaquePointer? = nil
        var rc = sd_bus_new(&raw)
        guard rc >= 0, let raw else { throw .system(call: "sd_bus_new", errno: -rc) }
        let bus = SDBus(handle: raw)
        rc = sd_bus_set_address(raw, address)
        guard rc >= 0 else { throw .system(call: "sd_bus_set_address \(address)", errno: -rc) }
        rc = sd_bus_set_bus_client(raw, 1)
        guard rc >= 0 else { throw .system(call: "sd_bus_set_bus_client", errno: -rc) }
        rc = sd_bus_start(raw)
        guard rc >= 0 else { throw .system(call: "sd_bus_start \(address)", errno: -rc) }
        return bus
    }

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { sd_bus_flush_close_unref(handle) }

    public var fd: Int32 { sd_bus_get_fd(handle) }

    /// `POLLIN` and/or `POLLOUT`, as the connection needs now.
    public var events: Int16 {
        let e = sd_bus_get_events(handle)
        return e > 0 ? Int16(truncatingIfNeeded: e) : Int16(POLLIN)
    }

    /// When the connection must be processed even if nothing is readable (a call timing out); `nil`: never.
    public var deadline: MonotonicInstant? {
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(handle, &usec) >= 0, usec != UInt64.max else { return nil }
        return MonotonicInstant(microseconds: usec)
    }

    public var isOpen: Bool { sd_bus_is_open(handle) > 0 }

    /// One step of processing (a message read and dispatched, a write, a timeout), running its handler; false
    /// when nothing was pending. Throws once the connection is broken.
    public func processOne() throws(BusError) -> Bool {
        let rc = sd_bus_process(handle, nil)
        if rc < 0 { throw .system(call: "sd_bus_process", errno: -rc) }
        return rc > 0
    }

    /// Calls `handler` with every message matching `rule` (a D-Bus match rule), while the slot lives.
    public func addMatch(_ rule: String, handler: @escaping (Result<BusMessage, BusError>) -> Void) throws(BusError) -> BusSlot {
        let slot = BusSlot(box: HandlerBox(call: "match \(rule)", handler: handler))
        var raw: OpaquePointer? = nil
        let rc = sd_bus_add_match(handle, &raw, rule, { m, u, e in dispatchToHandler(m, u, e) }, slot.userData)
        guard rc >= 0, let raw else { throw .system(call: "sd_bus_add_match \(rule)", errno: -rc) }
        slot.handle = raw
        return slot
    }

    /// A method call with string arguments, waiting at most `timeout` for its reply.
    public func call(_ method: BusMethod, _ arguments: [String] = [], timeout: Microseconds) throws(BusError) -> BusMessage {
        try call(method, values: arguments.map(BusValue.string), timeout: timeout)
    }

    /// A method call with arguments of any type, waiting at most `timeout` for its reply. `signature` gives the
    /// arguments' D-Bus types where their values cannot (an empty array's element type); without it each value's own
    /// type is sent.
    public func call(
        _ method: BusMethod, values arguments: [BusValue], signature: String? = nil, timeout: Microseconds
    ) throws(BusError) -> BusMessage {
        let message = try newCall(method, arguments, signature: signature)
        defer { sd_bus_message_unref(message) }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer? = nil
        let rc = sd_bus_call(handle, message, UInt64(max(1, timeout.value)), &error, &reply)
        if rc < 0 {
            if sd_bus_error_is_set(&error) != 0 {
                throw .remote(call: method.description, name: error.name, message: error.message)
            }
            throw .system(call: method.description, errno: -rc)
        }
        guard let reply else { throw .reply(call: method.description, problem: "no reply message") }
        defer { sd_bus_message_unref(reply) }
        return try BusMessageReader.read(reply, call: method.description).get()
    }

    /// The same, without waiting: `handler` gets the reply (or the error) from a later ``processOne()``, while the
    /// slot lives.
    public func callAsync(
        _ method: BusMethod, _ arguments: [String] = [], timeout: Microseconds,
        handler: @escaping (Result<BusMessage, BusError>) -> Void
    ) throws(BusError) -> BusSlot {
        try callAsync(method, values: arguments.map(BusValue.string), timeout: timeout, handler: handler)
    }

    /// A method call with arguments of any type (`signature` as for ``call(_:values:signature:timeout:)``), without
    /// waiting: `handler` gets the reply, the D-Bus error, or a timeout's error after `timeout`, from a later
    /// ``processOne()``, while the slot lives.
    public func callAsync(
        _ method: BusMethod, values arguments: [BusValue], signature: String? = nil, timeout: Microseconds,
        handler: @escaping (Result<BusMessage, BusError>) -> Void
    ) throws(BusError) -> BusSlot {
        let message = try newCall(method, arguments, signature: signature)
        defer { sd_bus_message_unref(message) }
        let slot = BusSlot(box: HandlerBox(call: method.description, handler: handler))
        var raw: OpaquePointer? = nil
        let rc = sd_bus_call_async(
            handle, &raw, message, { m, u, e in dispatchToHandler(m, u, e) }, slot.userData, UInt64(max(1, timeout.value)))
        guard rc >= 0, let raw else { throw .system(call: "sd_bus_call_async \(method)", errno: -rc) }
        slot.handle = raw
        return slot
    }

    /// A method call sent with `NO_REPLY_EXPECTED`: queued on the connection at once (written by the next
    /// ``processOne()``, or now if the socket takes it), never answered, nothing kept. For calls that come at a
    /// stream's rate and whose answer nobody would read.
    public func send(_ method: BusMethod, values arguments: [BusValue], signature: String? = nil) throws(BusError) {
        let message = try newCall(method, arguments, signature: signature)
        defer { sd_bus_message_unref(message) }
        var rc = sd_bus_message_set_expect_reply(message, 0)
        guard rc >= 0 else { throw .system(call: "sd_bus_message_set_expect_reply \(method)", errno: -rc) }
        rc = sd_bus_send(handle, message, nil)
        guard rc >= 0 else { throw .system(call: "sd_bus_send \(method)", errno: -rc) }
    }

    /// Writes what is queued, waiting until it is written or the connection breaks: before a connection is let go.
    public func flush() {
        _ = sd_bus_flush(handle)
    }

    private func newCall(_ method: BusMethod, _ arguments: [BusValue], signature: String?) throws(BusError) -> OpaquePointer {
        let types: [String?]
        if let signature {
            guard let split = BusSignature.split(signature), split.count == arguments.count else {
                throw .reply(call: method.description, problem: "the arguments \(arguments) do not fit the signature '\(signature)'")
            }
            types = split
        } else {
            types = arguments.map { _ in nil }
        }
        var message: OpaquePointer? = nil
        let rc = sd_bus_message_new_method_call(handle, &message, method.destination, method.path, method.interface, method.member)
        guard rc >= 0, let message else { throw .system(call: "sd_bus_message_new_method_call \(method)", errno: -rc) }
        for (argument, type) in zip(arguments, types) {
            let appended = BusMessageWriter.append(argument, as: type, to: message)
            if appended < 0 {
                sd_bus_message_unref(message)
                throw .system(call: "sd_bus_message_append \(type ?? argument.signature) \(method)", errno: -appended)
            }
        }
        return message
    }

    /// logind's and sd-bus's encoding of an identifier into an object path (`seat0` stays `seat0`, `c1` too; other
    /// bytes become `_xx`).
    public static func objectPath(prefix: String, id: String) -> String? {
        var out: UnsafeMutablePointer<CChar>? = nil
        guard sd_bus_path_encode(prefix, id, &out) >= 0, let out else { return nil }
        defer { free(out) }
        return String(cString: out)
    }
}

/// A method to call: where, which interface, which member.
public struct BusMethod: Hashable, Sendable, CustomStringConvertible {
    public var destination: String
    public var path: String
    public var interface: String
    public var member: String

    public init(destination: String, path: String, interface: String, member: String) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
    }

    public var description: String { "\(destination) \(path) \(interface).\(member)" }

    /// `org.freedesktop.DBus.Properties.Get(interface, name)` on the same object.
    public static func getProperty(_ destination: String, _ path: String) -> BusMethod {
        BusMethod(destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get")
    }

    public static func getAllProperties(_ destination: String, _ path: String) -> BusMethod {
        BusMethod(destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "GetAll")
    }
}

/// Reads a whole message body into ``BusValue``s, checking every step.
enum BusMessageReader {
    /// At most this many elements per array: more than any reply we read, and a bound on what a confused peer
    /// can make us allocate.
    static let maxArrayElements = 4096

    static func read(_ message: OpaquePointer, call: String) -> Result<BusMessage, BusError> {
        var reader = Reader(message: message, call: call)
        do throws(BusError) {
            var body: [BusValue] = []
            while let value = try reader.next(depth: 0) { body.append(value) }
            return .success(BusMessage(
                sender: sd_bus_message_get_sender(message).map { String(cString: $0) },
                member: sd_bus_message_get_member(message).map { String(cString: $0) }, body: body,
                path: sd_bus_message_get_path(message).map { String(cString: $0) },
                interface: sd_bus_message_get_interface(message).map { String(cString: $0) }))
        } catch {
            return .failure(error)
        }
    }

    private struct Reader {
        let message: OpaquePointer
        let call: String

        func fail(_ what: String, _ rc: Int32) -> BusError {
            .reply(call: call, problem: "\(what): \(String(cString: strerror(-rc)))")
        }

        /// The next value of the current container, or `nil` at its end.
        mutating func next(depth: Int) throws(BusError) -> BusValue? {
            guard depth < 64 else { throw .reply(call: call, problem: "nested more than 64 deep") }
            var type: CChar = 0
            var contents: UnsafePointer<CChar>? = nil
            let rc = sd_bus_message_peek_type(message, &type, &contents)
            if rc < 0 { throw fail("peek", rc) }
            if rc == 0 { return nil }
            let t = UInt8(bitPattern: type)
            switch t {
            case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
                var p: UnsafePointer<CChar>? = nil
                let r = sd_bus_message_read_basic(message, type, &p)
                guard r > 0, let p else { throw fail("read \(Character(UnicodeScalar(t)))", r) }
                let s = String(cString: p)
                switch t {
                case UInt8(ascii: "s"): return .string(s)
                case UInt8(ascii: "o"): return .objectPath(s)
                default: return .signature(s)
                }
            case UInt8(ascii: "b"): return .bool(try basic(type, Int32(0)) != 0)
            case UInt8(ascii: "y"): return .byte(try basic(type, UInt8(0)))
            case UInt8(ascii: "n"): return .int16(try basic(type, Int16(0)))
            case UInt8(ascii: "q"): return .uint16(try basic(type, UInt16(0)))
            case UInt8(ascii: "i"): return .int32(try basic(type, Int32(0)))
            case UInt8(ascii: "u"): return .uint32(try basic(type, UInt32(0)))
            case UInt8(ascii: "x"): return .int64(try basic(type, Int64(0)))
            case UInt8(ascii: "t"): return .uint64(try basic(type, UInt64(0)))
            case UInt8(ascii: "d"): return .double(try basic(type, Double(0)))
            case UInt8(ascii: "h"):
                _ = try basic(type, Int32(0))
                return .fileDescriptor
            case UInt8(ascii: "a"), UInt8(ascii: "r"), UInt8(ascii: "v"), UInt8(ascii: "e"):
                let entered = sd_bus_message_enter_container(message, type, contents)
                if entered <= 0 { throw fail("enter \(Character(UnicodeScalar(t)))", entered == 0 ? -EBADMSG : entered) }
                var items: [BusValue] = []
                while let item = try next(depth: depth + 1) {
                    items.append(item)
                    if items.count > BusMessageReader.maxArrayElements {
                        throw .reply(call: call, problem: "more than \(BusMessageReader.maxArrayElements) elements")
                    }
                }
                let exited = sd_bus_message_exit_container(message)
                if exited < 0 { throw fail("exit container", exited) }
                switch t {
                case UInt8(ascii: "a"): return .array(items)
                case UInt8(ascii: "r"): return .structure(items)
                case UInt8(ascii: "e"):
                    guard items.count == 2 else { throw .reply(call: call, problem: "a dictionary entry of \(items.count) values") }
                    return .dictEntry(items[0], items[1])
                default:
                    guard items.count == 1 else { throw .reply(call: call, problem: "a variant of \(items.count) values") }
                    return .variant(items[0])
                }
            default:
                throw .reply(call: call, problem: "unknown type '\(Character(UnicodeScalar(t)))'")
            }
        }

        /// One fixed-size value of D-Bus type `type`, read into a `T` starting at `zero`.
        private func basic<T>(_ type: CChar, _ zero: T) throws(BusError) -> T {
            var value = zero
            let r = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(message, type, $0) }
            guard r > 0 else { throw fail("read \(Character(UnicodeScalar(UInt8(bitPattern: type))))", r == 0 ? -EBADMSG : r) }
            return value
        }
    }
}
