import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import Testing

@Suite("Requests")
struct RequestDecoderTests {
    static let valid: [(String, RequestID?, Request)] = [
        (#"{"op":"ping"}"#, nil, .ping),
        (#"{"op":"ping","id":7}"#, .int(7), .ping),
        (#"{"id":"a b","op":"status"}"#, .string("a b"), .status),
        (#"{"op":"devices","id":null}"#, nil, .devices),
        (#"{"op":"subscribe"}"#, nil, .subscribe(.everything)),
        (#"{"op":"subscribe","topics":["transition","lifecycle"],"tick_hz":30}"#, nil,
         .subscribe(Subscription(topics: TopicSet([.transition, .lifecycle]), ticks: .hz(30)))),
        (#"{"op":"subscribe","topics":[],"tick_hz":0}"#, nil, .subscribe(Subscription(topics: TopicSet([]), ticks: .none))),
        (#"{"op":"subscribe","tick_hz":null}"#, nil, .subscribe(Subscription(ticks: .none))),
        (#"{"op":"push","container":"app","scene":"detail"}"#, nil,
         .control(ControlRequest(container: "app", action: .push(scene: "detail")))),
        (#"{"op":"pop","container":"app","animated":false,"future_field":{"x":[1]}}"#, nil,
         .control(ControlRequest(container: "app", action: .pop, animated: false))),
        (#"{"op":"pop-to-root","container":"app"}"#, nil, .control(ControlRequest(container: "app", action: .popToRoot))),
        (#"{"op":"present","container":"overlay","scene":"card","style":"custom","frame":{"x":0,"y":0.5,"width":1,"height":0.5}}"#, nil,
         .control(ControlRequest(container: "overlay", action: .present(scene: "card", style: .custom, frame: NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.5))))),
        (#"{"op":"present","container":"overlay","scene":"full"}"#, nil,
         .control(ControlRequest(container: "overlay", action: .present(scene: "full", style: .fullScreen, frame: nil)))),
        (#"{"op":"dismiss","container":"overlay"}"#, nil, .control(ControlRequest(container: "overlay", action: .dismiss))),
        (#"{"op":"select-tab","container":"shell","index":2}"#, nil, .control(ControlRequest(container: "shell", action: .selectTab(.index(2))))),
        (#"{"op":"select-tab","container":"shell","scene":"home"}"#, nil, .control(ControlRequest(container: "shell", action: .selectTab(.scene("home"))))),
        (#"{"op":"show","container":"panes","child":"b"}"#, nil, .control(ControlRequest(container: "panes", action: .show(child: "b")))),
        (" \t{\"op\" : \"ping\" } ", nil, .ping),
        // Names at the limit: 256 bytes of UTF-8.
        (#"{"op":"push","container":"app","scene":"\#(String(repeating: "é", count: 128))"}"#, nil,
         .control(ControlRequest(container: "app", action: .push(scene: String(repeating: "é", count: 128))))),
        (#"{"op":"present","container":"o","scene":"c","frame":{"x":-10,"y":10,"width":0.001,"height":10}}"#, nil,
         .control(ControlRequest(container: "o", action: .present(scene: "c", style: .fullScreen, frame: NormalizedRect(x: -10, y: 10, width: 0.001, height: 10))))),
    ]

    @Test("valid requests decode", arguments: valid)
    func decodes(_ line: String, _ id: RequestID?, _ request: Request) throws {
        let envelope = try RequestDecoder.decode(Array(line.utf8), line: 4)
        #expect(envelope.id == id)
        #expect(envelope.request == request)
        #expect(envelope.line == 4)
    }

    @Test("every request encodes to a line that decodes back to it", arguments: valid.map(\.2))
    func roundTrip(_ request: Request) throws {
        let line = request.line(id: .string("r"))
        #expect(line.last == UInt8(ascii: "\n"))
        let back = try RequestDecoder.decode(Array(line.dropLast()), line: 1)
        #expect(back.request == request)
        #expect(back.id == .string("r"))
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var line: String
        var code: ErrorCode
        var id: RequestID?
        /// Words the message must contain: the place and the problem.
        var mentions: [String]
        var testDescription: String { line }
    }

    static let bad: [Bad] = [
        Bad(line: #"{"op":"ping""#, code: .malformedJSON, mentions: ["line 3", "byte 12", "expected ',' or '}'"]),
        Bad(line: "not json", code: .malformedJSON, mentions: ["line 3", "byte 0"]),
        Bad(line: #"{"op":"ping"} trailing"#, code: .malformedJSON, mentions: ["unexpected data after the JSON value"]),
        Bad(line: #"{"op":"a\qb"}"#, code: .malformedJSON, mentions: ["invalid escape"]),
        Bad(line: String(repeating: "[", count: 100), code: .malformedJSON, mentions: ["nested deeper than 32"]),
        Bad(line: #"[1,2]"#, code: .notAnObject, mentions: ["must be a JSON object", "an array"]),
        Bad(line: #"{"id":5}"#, code: .missingOp, id: .int(5), mentions: ["line 3", "id 5", "\"op\" is missing"]),
        Bad(line: #"{"id":"x","op":3}"#, code: .invalidField, id: .string("x"), mentions: ["\"op\" must be a string"]),
        Bad(line: #"{"id":{"a":1},"op":"ping"}"#, code: .invalidField, mentions: ["\"id\" must be a string or an integer"]),
        Bad(line: #"{"id":9,"op":"jump"}"#, code: .unknownOp, id: .int(9), mentions: ["id 9", "op \"jump\"", "unknown op", "select-tab"]),
        Bad(line: #"{"id":"p","op":"push","scene":"s"}"#, code: .missingField, id: .string("p"), mentions: ["id \"p\"", "op \"push\"", "\"container\" is missing"]),
        Bad(line: #"{"id":1,"op":"push","container":"app","scene":4}"#, code: .invalidField, id: .int(1), mentions: ["\"scene\" must be a string, got a number"]),
        Bad(line: #"{"op":"push","container":"","scene":"x"}"#, code: .invalidField, mentions: ["\"container\" must not be empty"]),
        Bad(line: #"{"op":"pop","container":"app","animated":"yes"}"#, code: .invalidField, mentions: ["\"animated\" must be a boolean"]),
        Bad(line: #"{"op":"present","container":"o","scene":"c","style":"sheet"}"#, code: .invalidField, mentions: ["\"style\" must be one of full-screen, custom"]),
        Bad(line: #"{"op":"present","container":"o","scene":"c","frame":{"x":0,"y":0,"width":0,"height":1}}"#, code: .invalidField, mentions: ["width must be between 0.001 and 10"]),
        Bad(line: #"{"op":"present","container":"o","scene":"c","frame":{"x":0}}"#, code: .invalidField, mentions: ["\"frame.y\" must be a number"]),
        Bad(line: #"{"op":"present","container":"o","scene":"c","frame":{"x":1e308,"y":0,"width":1,"height":1}}"#, code: .invalidField, mentions: ["\"frame\": x must be between -10 and 10"]),
        Bad(line: #"{"op":"present","container":"o","scene":"c","frame":{"x":0,"y":0,"width":1,"height":1e-308}}"#, code: .invalidField, mentions: ["\"frame\": height must be between 0.001 and 10"]),
        Bad(line: #"{"op":"push","container":"app","scene":"\#(String(repeating: "é", count: 128))x"}"#, code: .invalidField, mentions: ["\"scene\" is 257 bytes long; a name holds at most 256 bytes"]),
        Bad(line: #"{"op":"push","container":"\#(String(repeating: "c", count: 300))","scene":"x"}"#, code: .invalidField, mentions: ["\"container\" is 300 bytes long"]),
        Bad(line: #"{"op":"show","container":"p","child":"a\u0007b"}"#, code: .invalidField, mentions: ["\"child\" contains the control character U+0007"]),
        Bad(line: #"{"op":"select-tab","container":"shell"}"#, code: .missingField, mentions: ["\"index\"", "\"scene\""]),
        Bad(line: #"{"op":"select-tab","container":"shell","index":1,"scene":"home"}"#, code: .invalidField, mentions: ["not both"]),
        Bad(line: #"{"op":"select-tab","container":"shell","index":-1}"#, code: .invalidField, mentions: ["must not be negative"]),
        Bad(line: #"{"op":"select-tab","container":"shell","index":1.5}"#, code: .invalidField, mentions: ["\"index\" must be an integer"]),
        Bad(line: #"{"op":"subscribe","topics":["transition","gestures"]}"#, code: .invalidField, mentions: ["topics[1]", "\"gestures\""]),
        Bad(line: #"{"op":"subscribe","topics":"transition"}"#, code: .invalidField, mentions: ["must be an array of strings"]),
        Bad(line: #"{"op":"subscribe","tick_hz":-5}"#, code: .invalidField, mentions: ["tick_hz", "-5"]),
    ]

    @Test("bad requests fail with a code, the id when readable, and a message naming place and problem", arguments: bad)
    func rejects(_ c: Bad) {
        #expect {
            _ = try RequestDecoder.decode(Array(c.line.utf8), line: 3)
        } throws: { error in
            guard let e = error as? RequestError else { return false }
            #expect(e.code == c.code)
            #expect(e.id == c.id)
            #expect(e.line == 3)
            for word in c.mentions { #expect(e.message.contains(word), "\(e.message) lacks \(word)") }
            return true
        }
    }

    @Test("JSON values parse, including escapes and surrogate pairs", arguments: [
        (#"{"a":[1,-2.5e1,true,false,null,"x\u00e9\ud83d\ude00\n"]}"#,
         JSONValue.object(["a": .array([.integer(1), .number(-25), .bool(true), .bool(false), .null, .string("x\u{e9}\u{1F600}\n")])])),
        // The nearest Double, written exactly: 12345678901234567890 is not one.
        ("12345678901234567890", .number(12345678901234567168)),
        ("-0", .integer(0)),
        (#""\/""#, .string("/")),
    ])
    func parsesValues(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue.parse(Array(text.utf8)) == expected)
    }

    @Test("malformed JSON is located", arguments: [
        ("", 0), ("{", 1), (#"{"a" 1}"#, 5), ("[1,]", 3), ("01", 1), ("1.", 2), (#""\ud800""#, 7), ("tru", 0), ("\"a\u{01}\"", 2),
    ])
    func locatesErrors(_ text: String, _ offset: Int) {
        #expect {
            _ = try JSONValue.parse(Array(text.utf8))
        } throws: { error in
            (error as? JSONSyntaxError)?.offset == offset
        }
    }

    @Test("a tab chosen by scene resolves against the container's tabs")
    func tabByScene() throws {
        let containers = EngineConfiguration.default.containers
        let byScene = ControlRequest(container: "shell", action: .selectTab(.scene("settings")))
        #expect(try byScene.operation(in: containers) == .selectTab(index: 2))
        let missing = ControlRequest(container: "shell", action: .selectTab(.scene("nope")))
        #expect(throws: RequestError(code: ErrorCode("unknown-scene"), reason: "container 'shell' has no scene 'nope'")) {
            try missing.operation(in: containers)
        }
        let wrongKind = ControlRequest(container: "app", action: .selectTab(.scene("home")))
        #expect(throws: RequestError.self) { try wrongKind.operation(in: containers) }
    }
}

@Suite("UTF-8 in requests")
struct RequestUTF8Tests {
    @Test("the first byte that is not well-formed UTF-8 is found", arguments: [
        ([0x61, 0x62], nil),
        ([0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80], nil),
        ([0x61, 0xFF], 1),
        ([0xC0, 0x80], 0),
        ([0x61, 0xED, 0xA0, 0x80], 1),
        ([0xF4, 0x90, 0x80, 0x80], 0),
        ([0x61, 0x62, 0xE2, 0x82], 2),
        ([0xE2, 0x28, 0xA1], 0),
        ([0x80], 0),
    ] as [([UInt8], Int?)])
    func offsets(_ bytes: [UInt8], _ expected: Int?) {
        #expect(UTF8Check.firstInvalidOffset(bytes) == expected)
    }

    @Test("a request with a byte that is not UTF-8 is malformed JSON, with the offset; never read with it replaced")
    func refused() {
        let line = Array(#"{"op":"push","id":1,"container":"app","scene":"a"#.utf8) + [0xFF] + Array(#""}"#.utf8)
        do {
            _ = try RequestDecoder.decode(line, line: 4)
            Issue.record("decoded")
        } catch {
            #expect(error.code == .malformedJSON)
            #expect(error.message.hasPrefix("line 4: not valid JSON: byte 48: invalid UTF-8 (0xFF)"), "\(error.message)")
        }
    }
}
