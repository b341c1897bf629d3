import EdgeSwipeCore
import EdgeSwipeProtocol
import Foundation
import Testing

@testable import EdgeSwipeWeb

/// The bridge's judgement of a page's message, before any daemon is asked (the `web-request` fuzz target holds it
/// to the same rules on random input; `WebBridgeTests` runs it behind a real bridge and daemon).
@Suite("web bridge: a page's requests")
struct PageRequestTests {
    enum Expect: Sendable {
        case forward(ControlRequest, id: RequestID?)
        case refuse(code: String, id: RequestID?)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var message: String
        var control = true
        var expect: Expect
        var testDescription: String { "\(control ? "control" : "read-only"): \(message)" }
    }

    static let cases: [Case] = [
        Case(message: #"{"op":"push","container":"app","scene":"details","id":1}"#,
             expect: .forward(ControlRequest(container: "app", action: .push(scene: "details")), id: .int(1))),
        Case(message: #"{"op":"select-tab","container":"shell","scene":"settings","id":"t"}"#,
             expect: .forward(ControlRequest(container: "shell", action: .selectTab(.scene("settings"))), id: .string("t"))),
        Case(message: #"{"op":"dismiss","container":"overlay","animated":false}"#,
             expect: .forward(ControlRequest(container: "overlay", action: .dismiss, animated: false), id: nil)),
        Case(message: #"{"op":"push","container":"app","scene":"details","id":1}"#, control: false, expect: .refuse(code: "read-only", id: .int(1))),
        Case(message: #"{"op":"status","id":2}"#, expect: .refuse(code: "unsupported", id: .int(2))),
        Case(message: #"{"op":"set-rotation","rotation":90,"id":3}"#, expect: .refuse(code: "unsupported", id: .int(3))),
        Case(message: #"{"op":"pop-to-root","container":"app","id":4}"#, expect: .refuse(code: "unsupported", id: .int(4))),
        Case(message: #"{"op":"push","container":"app","id":5}"#, expect: .refuse(code: "missing-field", id: .int(5))),
        Case(message: #"{"op":"push","container":"app","scene":"","id":6}"#, expect: .refuse(code: "invalid-field", id: .int(6))),
        Case(message: "not json", expect: .refuse(code: "malformed-json", id: nil)),
        Case(message: #"{"op":"push","id":{"x":1}}"#, control: false, expect: .refuse(code: "invalid-field", id: nil)),
    ]

    @Test("forwarded as the protocol's decoder reads it, or refused with a bridge-error naming the problem", arguments: cases)
    func judged(_ c: Case) throws {
        let outcome = PageRequest.read(Array(c.message.utf8), control: c.control)
        switch (c.expect, outcome) {
        case (.forward(let request, let id), .forward(let page)):
            #expect(page.request == request && page.id == id)
            let reply = try Self.object(page.reply(transition: TransitionID(42)))
            #expect(reply["type"] as? String == "bridge-reply" && reply["op"] as? String == request.op)
            #expect(reply["transition"] as? Int == 42)
            let refused = try Self.object(page.refusal(code: "busy", message: "container 'app' is running transition 3"))
            #expect(refused["code"] as? String == "busy" && refused["message"] as? String == "container 'app' is running transition 3")
        case (.refuse(let code, let id), .refuse(let bytes)):
            let answer = try Self.object(bytes)
            #expect(answer["type"] as? String == "bridge-error")
            #expect(answer["code"] as? String == code)
            #expect(!((answer["message"] as? String) ?? "").isEmpty)
            switch id {
            case nil: #expect(answer["id"] == nil)
            case .int(let n)?: #expect(answer["id"] as? Int == Int(n))
            case .string(let s)?: #expect(answer["id"] as? String == s)
            }
        default:
            Issue.record("expected \(c.expect), got \(outcome)")
        }
    }

    @Test("the web-request seeds are the page's requests: forwarded, or refused by the decoder for the field it names")
    func seeds() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/web-request")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("page-") }.sorted()
        #expect(names.count >= 6)
        var forwarded = 0, controlling = 0
        for name in names {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            guard let mode = bytes.first else { continue }
            let control = mode & 1 == 1
            if control { controlling += 1 }
            switch PageRequest.read(Array(bytes.dropFirst()), control: control) {
            case .forward: forwarded += 1
            case .refuse(let answer):
                #expect(try Self.object(answer)["code"] as? String == (control ? "invalid-field" : "read-only"), "\(name)")
            }
        }
        #expect(forwarded >= controlling - 1, "\(forwarded) of \(controlling) page seeds for a --control bridge reach the daemon")
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }
}
