import EdgeSwipeCore
@testable import EdgeSwipeProtocol
import EdgeSwipeEngineWire
import Foundation
import Testing

/// Walks a description without touching the values: the keys in wire order, whether each is always present,
/// and how many stored properties were visited.
struct KeyCollector: WireCoder {
    typealias Failure = Never
    var keys: [String] = []
    var required: Set<String> = []
    var propertiesVisited = 0

    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V) {
        keys.append(key.description)
        required.insert(key.description)
        propertiesVisited += 1
    }

    mutating func field<V: WireValue>(_ key: StaticString, _ value: inout V?) {
        keys.append(key.description)
        propertiesVisited += 1
    }

    mutating func inline<O: WireObject>(_ value: inout O) {
        // The inlined object is one property of this one; its keys are this object's.
        let visited = propertiesVisited
        value.wire(&self)
        propertiesVisited = visited + 1
    }

    static func walk<O: WireObject>(_ type: O.Type) -> (collector: KeyCollector, storedProperties: Int) {
        var value = O()
        var c = KeyCollector()
        value.wire(&c)
        return (c, Mirror(reflecting: value).children.count)
    }
}

/// One described type, and the `$defs` entry of docs/protocol.schema.json that specifies it (nil when the schema
/// writes it inline in its parent).
struct Described: CustomTestStringConvertible, Sendable {
    var name: String
    var schemaDefinition: String?
    var walk: @Sendable () -> (collector: KeyCollector, storedProperties: Int)
    var isMessage = false

    init<O: WireObject & SendableMetatype>(_ type: O.Type, _ definition: String?) {
        name = "\(O.self)"
        schemaDefinition = definition
        walk = { KeyCollector.walk(O.self) }
        isMessage = O.self is any WireMessage.Type
    }

    var testDescription: String { name }

    static let all: [Described] = [
        Described(Vector2.self, "vector2"), Described(NormalizedRect.self, "rect"), Described(SizeMM.self, "size_mm"),
        Described(DeviceInfo.self, "device"), Described(PresentationInfo.self, "presentation"),
        Described(ContainerInfo.self, "container"), Described(RunningInfo.self, "running"),
        Described(StateInfo.self, "state_body"), Described(AccessInfo.self, nil),
        Described(BindingSummary.self, "binding"), Described(BindingSummary.FingerRange.self, nil),
        Described(AnimatorSummary.self, nil), Described(ConfigSummary.self, "config_summary"),
        Described(ControlPoints.self, nil), Described(AnimationInfo.self, "animation"),
        Described(SceneGeometryInfo.self, "scene_geometry"), Described(GeometryInfo.self, "geometry"),
        Described(ReplyPayload.self, "reply_result"), Described(UnknownMessage.self, nil),
        Described(HelloMessage.self, "hello"), Described(GestureMessage.self, "gesture"),
        Described(TransitionMessage.self, "transition"), Described(LifecycleMessage.self, "lifecycle"),
        Described(StateMessage.self, "state"), Described(DeviceMessage.self, "device_message"),
        Described(ConfigMessage.self, "config"), Described(ErrorMessage.self, "error"),
        Described(ReplyMessage.self, "reply"), Described(GoodbyeMessage.self, "goodbye"),
    ]
}

@Suite("The wire description")
struct WireDescriptionTests {
    @Test("every stored property is on the wire, once, under a unique snake_case key", arguments: Described.all)
    func everyPropertyDescribed(_ type: Described) {
        let (c, stored) = type.walk()
        #expect(c.propertiesVisited == stored, "\(type.name) has \(stored) stored properties but its description visits \(c.propertiesVisited)")
        #expect(Set(c.keys).count == c.keys.count, "\(type.name) repeats a key: \(c.keys)")
        for key in c.keys {
            #expect(key.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }, "\(type.name): key \(key)")
        }
        if type.isMessage { #expect(Array(c.keys.prefix(2)) == ["seq", "time_us"]) }
    }

    @Test("the schema names the same fields, and requires exactly the ones always present", arguments: Described.all.filter { $0.schemaDefinition != nil })
    func schemaAgrees(_ type: Described) throws {
        let schema = try SchemaDefinitions.load()
        let definition = try #require(type.schemaDefinition)
        let (fields, required) = try schema.fields(of: definition)
        let (c, _) = type.walk()
        // `type` is the envelope's, read before the message's own description.
        let ignored: Set<String> = type.isMessage ? ["type"] : []
        #expect(Set(c.keys) == fields.subtracting(ignored), "\(type.name) against #/$defs/\(definition)")
        #expect(c.required == required.subtracting(ignored), "\(type.name) against #/$defs/\(definition): required")
    }

    @Test("a line that lacks a field, or has one of the wrong type, fails naming it", arguments: [
        (#"{"type":"gesture","seq":1}"#, #"field "time_us" is missing"#),
        (#"{"type":"lifecycle","seq":1,"time_us":2,"transition":"x","container":"c","scene":"s","event":"will-appear"}"#,
         "at transition: expected an integer, got a string"),
        (#"{"type":"lifecycle","seq":1,"time_us":2,"transition":1,"container":"c","scene":"s","event":"will-vanish"}"#,
         #"at event: unknown value "will-vanish""#),
        (#"{"type":"device","seq":1,"time_us":2,"change":"added","id":1,"name":"n","kind":"touchpad","path":"p","size_mm":{"width":1},"size_known":true,"rotation":0}"#,
         #"at size_mm: field "height" is missing"#),
        (#"{"type":"state","seq":1,"time_us":2,"containers":[{"name":"a","kind":"tabs","visible":"x","tabs":["x",2],"selected":0}],"running":[]}"#,
         "at containers[0].tabs[1]: expected a string, got a number"),
        (#"{"type":"reply","seq":1,"time_us":2,"op":"push","result":{"transition":-1}}"#,
         "at result.transition: -1 is out of range for UInt64"),
        (#"[1]"#, "a message must be a JSON object, got an array"),
        (#"{"type":"gesture""#, "not valid JSON"),
    ])
    func decodingErrors(_ line: String, _ expected: String) {
        do {
            _ = try ServerMessage(line: Array(line.utf8))
            Issue.record("\(line) decoded")
        } catch {
            #expect(error.reason.contains(expected), "\(error.reason)")
        }
    }

    @Test("fields a newer server adds, and types this client does not know, are not errors")
    func forwardCompatible() throws {
        let newer = #"{"type":"goodbye","seq":3,"time_us":4,"reason":"upgrade","message":"bye","later":{"x":[1]}}"#
        #expect(try ServerMessage(line: Array(newer.utf8)) == .goodbye(GoodbyeMessage(seq: 3, timeUS: 4, reason: "upgrade", message: "bye")))
        let unknown = #"{"type":"weather","seq":5,"time_us":6,"sky":"blue"}"#
        #expect(try ServerMessage(line: Array(unknown.utf8)) == .unknown(UnknownMessage(type: "weather", seq: 5, timeUS: 6)))
    }

    @Test("seq and time_us past Int64.max read back", arguments: [UInt64(1) << 63, UInt64.max - 2047])
    func largeUnsigned(_ value: UInt64) throws {
        let line = #"{"type":"goodbye","seq":\#(value),"time_us":\#(value),"reason":"shutdown","message":""}"#
        let m = try ServerMessage(line: Array(line.utf8))
        #expect(m.seq == value && m.timeUS == value)
    }

    @Test("Codable follows the same description: JSONEncoder writes the wire's keys and JSONDecoder reads its lines")
    func codableFollowsTheDescription() throws {
        var batch = EncodedBatch()
        for e in EncodingTests.run.events { batch.append(e) }
        batch.appendHello(EncodingTests.run.final, access: AccessInfo(read: true, control: true), time: MonotonicInstant(microseconds: 9))
        for i in 0..<batch.count {
            let line = batch.line(i, seq: UInt64(i + 1))
            let message = try ServerMessage(line: line)
            let encoded = try JSONEncoder().encode(message)
            #expect(try JSONDecoder().decode(ServerMessage.self, from: encoded) == message)
            // The same keys: JSONEncoder orders them as its dictionary hashes them, and writes numbers its own way.
            #expect(keys(in: encoded).sorted() == keys(in: Data(line)).sorted(), "\(String(decoding: line, as: UTF8.self))")
        }
    }

    /// Every object key of a JSON text.
    func keys(in data: Data) -> [String] {
        let text = String(decoding: data, as: UTF8.self)
        var keys: [String] = []
        var rest = Substring(text)
        while let quote = rest.firstIndex(of: "\"") {
            let afterQuote = rest.index(after: quote)
            guard let end = rest[afterQuote...].firstIndex(of: "\"") else { break }
            let next = rest.index(after: end)
            if next < rest.endIndex, rest[next] == ":" { keys.append(String(rest[afterQuote..<end])) }
            rest = rest[next...]
        }
        return keys
    }
}

/// The `$defs` of docs/protocol.schema.json, read with the protocol's own JSON parser.
struct SchemaDefinitions {
    let definitions: [String: JSONValue]

    static func load() throws -> SchemaDefinitions {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: SchemaValidator.schemaPath)))
        guard case .object(let root) = try JSONValue.parse(bytes, maxDepth: 64), case .object(let defs)? = root["$defs"] else {
            throw SchemaError()
        }
        return SchemaDefinitions(definitions: defs)
    }

    struct SchemaError: Error {}

    /// Every property a definition allows (its own, its `$ref`'s and `allOf`'s, and those of each `oneOf` branch)
    /// and the ones it always requires (a `oneOf` branch's are required only in that branch).
    func fields(of name: String) throws -> (fields: Set<String>, required: Set<String>) {
        guard case .object(let def)? = definitions[name] else { throw SchemaError() }
        return try fields(def)
    }

    private func fields(_ def: [String: JSONValue]) throws -> (fields: Set<String>, required: Set<String>) {
        var allowed: Set<String> = []
        var required: Set<String> = []
        if case .object(let properties)? = def["properties"] { allowed.formUnion(properties.keys) }
        if case .array(let names)? = def["required"] {
            for case .string(let n) in names { required.insert(n) }
        }
        var referenced: [JSONValue] = []
        if let ref = def["$ref"] { referenced.append(ref) }
        if case .array(let all)? = def["allOf"] {
            for case .object(let part) in all { if let ref = part["$ref"] { referenced.append(ref) } }
        }
        for case .string(let ref) in referenced {
            let (f, r) = try fields(of: String(ref.dropFirst("#/$defs/".count)))
            allowed.formUnion(f)
            required.formUnion(r)
        }
        if case .array(let branches)? = def["oneOf"] {
            for case .object(let branch) in branches { allowed.formUnion(try fields(branch).fields) }
        }
        return (allowed, required)
    }
}
