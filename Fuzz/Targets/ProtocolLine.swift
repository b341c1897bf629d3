// libFuzzer target: the protocol's line framer and request decoder (what every client byte goes through).
//
// Input: byte 0 picks the line cap and the size of the chunks the rest is fed in; the rest is the byte stream a
// client sends. Checked, besides "no crash":
// - framing does not depend on how the stream is chunked (fed whole, in chunks, and byte by byte: same frames);
// - no line is longer than the cap, line numbers only grow;
// - every line that is not a request gets an error that names its line and encodes to a valid JSON object, which
//   the client's reader (`ServerMessage(line:)`) reads back as that error;
// - the client's reader takes every line too, as if a server had sent it: an error or a message, never a crash.
import EdgeSwipeProtocol

private func frames(_ bytes: UnsafeRawBufferPointer, cap: Int, chunk: Int) -> [LineFramer.Frame] {
    var framer = LineFramer(maxLineBytes: cap)
    var out: [LineFramer.Frame] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunk)
        framer.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) { out.append($0) }
        offset = end
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtocolLine(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let all = UnsafeRawBufferPointer(start: data, count: count)
    let caps = [8, 64, 4096, WireProtocol.maxLineBytes]
    let cap = caps[Int(all[0] & 3)]
    let chunk = Int(all[0] >> 2) + 1
    let stream = UnsafeRawBufferPointer(rebasing: all[1...])

    let whole = frames(stream, cap: cap, chunk: max(1, stream.count))
    let chunked = frames(stream, cap: cap, chunk: chunk)
    precondition(whole == chunked, "framing depends on chunking (chunk \(chunk))")
    if stream.count <= 512 {
        precondition(whole == frames(stream, cap: cap, chunk: 1), "framing depends on chunking (byte by byte)")
    }

    var lastLine = 0
    for frame in whole {
        switch frame {
        case .line(let bytes, let number):
            precondition(!bytes.isEmpty && bytes.count <= cap, "line of \(bytes.count) bytes passed the cap \(cap)")
            precondition(number > lastLine, "line numbers went backwards")
            lastLine = number
            do {
                let envelope = try RequestDecoder.decode(bytes, line: number)
                precondition(envelope.line == number)
            } catch {
                precondition(error.line == number, "an error must name its line")
                precondition(!error.reason.isEmpty, "an error must say what was wrong")
                var batch = EncodedBatch(capacity: 256)
                batch.appendError(error, time: MonotonicInstant(microseconds: 42))
                var line = batch.line(0, seq: 1)
                precondition(line.last == UInt8(ascii: "\n"))
                line.removeLast()
                guard case .object(let object)? = try? JSONValue.parse(line) else {
                    preconditionFailure("an error line is not a JSON object: \(String(decoding: line, as: UTF8.self))")
                }
                precondition(object["type"] == .string("error"))
                guard case .error(let read)? = try? ServerMessage(line: line), read.code == error.code, read.message == error.message else {
                    preconditionFailure("the client does not read back its error: \(String(decoding: line, as: UTF8.self))")
                }
            }
            _ = try? ServerMessage(line: bytes)
        case .oversized(let number, let limit):
            precondition(limit == cap)
            precondition(number > lastLine, "line numbers went backwards")
            lastLine = number
        }
    }
    // The JSON parser alone, on the whole input, with a shallow and the default depth.
    _ = try? JSONValue.parse(Array(stream), maxDepth: 4)
    _ = try? JSONValue.parse(Array(stream))
    return 0
}
