// libFuzzer target: what the web bridge does with a page's message before the daemon is asked
// (`Sources/EdgeSwipeWeb/PageRequest.swift`, compiled into this harness: the bridge's module links an HTTP
// server, its request path does not).
//
// Input: byte 0 picks the bridge (bit 0: `--control`) and whether the message arrives as the WebSocket hands it
// over (bit 1: a text frame becomes a String, so invalid UTF-8 arrives repaired) or as raw bytes; the rest is the
// message. Checked, besides "no crash":
// - every refusal is one JSON object `{"type":"bridge-error","code":…,"message":…}` with a known code, a message
//   that says what was wrong, and the page's `id` echoed whenever the protocol's decoder could read one;
// - an accepted message is exactly the request the protocol's own decoder reads from it (a control op a page may
//   send, on a `--control` bridge), never anything else, and a read-only bridge accepts nothing;
// - the answers the bridge builds for it (the `bridge-reply` with any transition id, and the daemon's refusal
//   with any code and message) are JSON objects that carry the op, the id and the message back unchanged.
import EdgeSwipeProtocol

/// The codes a refusal the bridge makes itself may carry: the protocol decoder's, and the bridge's two.
private let bridgeCodes: Set<String> = ["unsupported", "read-only"]
private let decoderCodes: Set<String> = [
    ErrorCode.malformedJSON, .notAnObject, .missingOp, .unknownOp, .missingField, .invalidField,
].reduce(into: []) { $0.insert($1.rawValue) }

private func object(_ bytes: [UInt8], _ what: String) -> [String: JSONValue] {
    guard case .object(let o)? = try? JSONValue.parse(bytes) else {
        preconditionFailure("\(what) is not a JSON object: \(String(decoding: bytes, as: UTF8.self))")
    }
    return o
}

private func idValue(_ id: RequestID?) -> JSONValue? {
    switch id {
    case nil: nil
    case .int(let n)?: .integer(n)
    case .string(let s)?: .string(s)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebRequest(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let control = data[0] & 1 == 1
    var message = Array(UnsafeBufferPointer(start: data + 1, count: count - 1))
    if data[0] & 2 == 2 { message = Array(String(decoding: message, as: UTF8.self).utf8) }

    // The protocol's own reading of the same bytes, as the daemon would read the line.
    let decoded: Result<RequestEnvelope, RequestError>
    do throws(RequestError) { decoded = .success(try RequestDecoder.decode(message, line: 1)) } catch { decoded = .failure(error) }

    switch PageRequest.read(message, control: control) {
    case .forward(let page):
        precondition(control, "a read-only bridge forwarded a request")
        guard case .success(let envelope) = decoded, case .daemon(.control(let request)) = envelope.request else {
            preconditionFailure("the bridge forwarded what the protocol's decoder does not read as a control request")
        }
        precondition(request == page.request, "the bridge forwards \(page.request), the decoder reads \(request)")
        precondition(envelope.id == page.id, "the bridge echoes id \(String(describing: page.id)), the decoder read \(String(describing: envelope.id))")
        precondition(PageRequest.controlOps.contains(page.request.op), "op \(page.request.op) is not one a page may send")

        // The answers for it: the reply with any transition id, and the daemon's refusal with any text.
        let transition = TransitionID(UInt64(count) &* 0x9E37_79B9 & UInt64(Int64.max))
        let reply = object(page.reply(transition: transition), "a bridge-reply")
        precondition(reply["type"] == .string("bridge-reply") && reply["op"] == .string(page.request.op))
        precondition(reply["id"] == idValue(page.id), "the reply's id is not the page's")
        precondition(reply["transition"] == .integer(Int64(transition.rawValue)), "the reply's transition is not the daemon's")
        let text = String(decoding: message, as: UTF8.self)
        let refused = object(page.refusal(code: "busy", message: text), "a daemon refusal")
        precondition(refused["type"] == .string("bridge-error") && refused["code"] == .string("busy"))
        precondition(refused["message"] == .string(text), "the daemon's message did not survive the bridge's JSON")
        precondition(refused["id"] == idValue(page.id))

    case .refuse(let answer):
        let o = object(answer, "a refusal")
        precondition(o["type"] == .string("bridge-error"), "a refusal must be a bridge-error")
        guard case .string(let code)? = o["code"], case .string(let text)? = o["message"] else {
            preconditionFailure("a refusal must carry a code and a message: \(String(decoding: answer, as: UTF8.self))")
        }
        precondition(!text.isEmpty, "a refusal must say what was wrong")
        switch decoded {
        case .failure(let error):
            // The decoder's own refusal, word for word, with the id it could read.
            precondition(code == error.code.rawValue && decoderCodes.contains(code), "code \(code) for a decoder error \(error.code)")
            precondition(text == error.reason, "the message is not the decoder's reason")
            precondition(o["id"] == idValue(error.id), "the refusal's id is not the one the decoder read")
        case .success(let envelope):
            precondition(bridgeCodes.contains(code), "a request the decoder reads refused with \(code)")
            precondition(o["id"] == idValue(envelope.id), "the refusal's id is not the page's")
            if case .daemon(.control(let request)) = envelope.request, PageRequest.controlOps.contains(request.op) {
                precondition(code == "read-only" && !control, "a control request refused with \(code) on a \(control ? "--control" : "read-only") bridge")
            } else {
                precondition(code == "unsupported", "op \(envelope.request.op) refused with \(code)")
            }
        }
    }
    return 0
}
