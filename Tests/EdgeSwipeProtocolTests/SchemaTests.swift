import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import Foundation
import Testing

/// Runs python3 with the jsonschema package against docs/protocol.schema.json.
enum SchemaValidator {
    static let schemaPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/protocol.schema.json").path

    static let available: Bool = (try? python(["-c", "import jsonschema"]).status) == 0

    /// Validates each line of `lines` against `#/$defs/<definition>`; returns the exit status and the report.
    static func validate(_ lines: [String], as definition: String) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("edgeswipe-schema-\(UUID().uuidString).jsonl")
        try lines.joined(separator: "\n").appending("\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator
            schema = json.load(open(sys.argv[1]))
            Draft202012Validator.check_schema(schema)
            schema.pop("oneOf")
            schema["$ref"] = "#/$defs/" + sys.argv[3]
            validator = Draft202012Validator(schema)
            failed = 0
            for n, line in enumerate(open(sys.argv[2]), 1):
                instance = json.loads(line)
                errors = list(validator.iter_errors(instance))
                for e in errors[:3]:
                    print("line %d (%s): %s: %s" % (n, instance.get("type") or instance.get("op"), "/".join(map(str, e.absolute_path)), e.message))
                failed += bool(errors)
            print("%d lines, %d invalid" % (n, failed))
            sys.exit(1 if failed else 0)
            """
        return try python(["-c", script, schemaPath, file.path, definition])
    }

    static func python(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

@Suite("JSON Schema", .enabled(if: SchemaValidator.available, "python3 with the jsonschema package is not installed"))
struct SchemaTests {
    /// One or more lines of every message type the server writes, in every variant.
    static func serverLines() -> [String] {
        let run = EncodingTests.run
        var batch = EncodedBatch()
        let time = MonotonicInstant(microseconds: 42)
        batch.appendHello(run.initial, access: AccessInfo(read: true, control: false), time: time)
        batch.appendHello(run.final, access: AccessInfo(read: true, control: true), time: time)
        for e in run.events { batch.append(e) }
        let summary = run.initial.config
        batch.appendConfig(.reloaded, message: "reloaded /etc/edgeswipe/config.toml", config: summary, time: time)
        batch.appendConfig(.rejected, message: "config.toml:12: edge zone must be between 0.5 and 30 mm (got 45)", config: nil, time: time)
        batch.appendError(RequestError(code: .unknownOp, reason: "unknown op \"x\"", id: .int(3), op: "x", line: 2), time: time)
        batch.appendError(RequestError(code: .malformedJSON, reason: "not valid JSON", line: 1), time: time)
        batch.appendError(RequestError(code: .forbidden, reason: "read-only", id: .string("a"), op: "push"), time: time)
        batch.appendReply(id: .int(1), op: "ping", result: .empty, time: time)
        batch.appendReply(id: nil, op: "subscribe", result: .subscribed(Subscription(topics: TopicSet([.transition]), ticks: .hz(30))), time: time)
        batch.appendReply(id: .string("s"), op: "subscribe", result: .subscribed(.everything), time: time)
        batch.appendReply(id: .int(2), op: "subscribe", result: .subscribed(Subscription(ticks: .none)), time: time)
        batch.appendReply(id: .int(4), op: "status", result: .status(run.final), time: time)
        batch.appendReply(id: .int(5), op: "devices", result: .devices([Scenario.screen]), time: time)
        batch.appendReply(id: .int(6), op: "push", result: .transition(TransitionID(9)), time: time)
        batch.appendGoodbye(.shutdown, message: "stopping", time: time)
        batch.appendGoodbye(.backlogExceeded, message: "too slow", time: time)
        return (0..<batch.count).map { String(decoding: batch.line($0, seq: UInt64($0 + 1)).dropLast(), as: UTF8.self) }
    }

    @Test("every message type the encoder writes validates against the schema")
    func serverMessagesValidate() throws {
        let lines = Self.serverLines()
        let types = Set(lines.compactMap { try? ServerMessage(line: Array($0.utf8)).type })
        #expect(types == Set(MessageType.allCases.map(\.rawValue)))
        #expect(lines.contains { $0.contains(#""kind":"swipe","direction":"left""#) }, "a multi-finger swipe's gesture")
        #expect(lines.contains { $0.contains(#""swipe_direction":"left","swipe_fingers":3"#) }, "a swipe-driven transition")
        #expect(lines.contains { $0.contains(#"{"gesture":"swipe","direction":"left""#) }, "a swipe binding in hello")
        let result = try SchemaValidator.validate(lines, as: "server_message")
        #expect(result.status == 0, "\(result.output)")
    }

    @Test("every request the client writes validates against the schema")
    func requestsValidate() throws {
        let lines = RequestDecoderTests.valid.map(\.2).map { String(decoding: $0.line(id: .int(1)).dropLast(), as: UTF8.self) }
            + RequestDecoderTests.valid.map(\.0)
        let result = try SchemaValidator.validate(lines, as: "request")
        #expect(result.status == 0, "\(result.output)")
    }

    @Test("the schema rejects what the protocol forbids", arguments: [
        #"{"type":"transition","time_us":1,"id":1}"#,
        #"{"type":"gesture","seq":0,"time_us":1,"edge":"left","state":"began","device":1,"device_kind":"touchscreen","fingers":1,"location":{"x":0,"y":0},"translation_mm":{"x":0,"y":0},"velocity_mm_s":{"x":0,"y":0},"progress":false}"#,
        #"{"type":"gesture","seq":0,"time_us":1,"kind":"swipe","edge":"left","state":"began","device":1,"device_kind":"touchscreen","fingers":3,"location":{"x":0,"y":0},"translation_mm":{"x":0,"y":0},"velocity_mm_s":{"x":0,"y":0},"progress":false}"#,
        #"{"type":"lifecycle","seq":3,"time_us":1,"transition":1,"container":"app","scene":"a","event":"will-vanish"}"#,
        #"{"type":"goodbye","seq":3,"time_us":1,"reason":"shutdown","message":"x","extra":1}"#,
    ])
    func rejectsInvalid(_ line: String) throws {
        let result = try SchemaValidator.validate([line], as: "server_message")
        #expect(result.status == 1, "\(result.output)")
    }
}
