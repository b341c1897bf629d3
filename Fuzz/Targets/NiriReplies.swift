// libFuzzer target: what the session reads from niri: a request's reply line, and the event stream's lines, split
// as they come, into the windows' app ids and the focused one (`Sources/EdgeSwipeSessionModel/CompositorWire.swift`,
// compiled into this harness).
//
// Input: byte 0 the chunk size and the line cap, then the bytes niri writes. Checked, besides "no crash":
// - lines do not depend on chunking, none is longer than the cap, and what is held back is shorter than it;
// - the windows followed never pass `FocusState.maxWindows`, and the focused app is one of them (or none);
// - a reply is accepted or refused with a reason, never a crash.
import EdgeSwipeProtocol

private func lines(_ bytes: ArraySlice<UInt8>, chunk: Int, cap: Int) -> ([[UInt8]], Int) {
    var splitter = LineSplitter(maxBytes: cap)
    var out: [[UInt8]] = []
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
        let end = min(bytes.endIndex, offset + chunk)
        out += splitter.feed(Array(bytes[offset..<end]))
        offset = end
    }
    return (out, splitter.pendingBytes)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNiriReplies(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let all = Array(UnsafeBufferPointer(start: data, count: count))
    let chunk = Int(all[0] & 0x3f) + 1
    let cap = all[0] & 0x40 == 0 ? 1 << 20 : 64
    let stream = all[1...]
    let (whole, pending) = lines(stream, chunk: max(1, stream.count), cap: cap)
    let (chunked, pendingChunked) = lines(stream, chunk: chunk, cap: cap)
    precondition(whole == chunked && pending == pendingChunked, "lines depend on chunking (chunk \(chunk))")
    precondition(pending <= cap, "\(pending) bytes held back, over the \(cap) cap")
    var focus = NiriWire.FocusState()
    for line in whole {
        precondition(line.count <= cap, "a line of \(line.count) bytes, over the \(cap) cap")
        _ = NiriWire.problem(inReply: line)
        if case .some(let app) = focus.apply(line), let app {
            precondition(focus.apps.values.contains(app), "the focused app \(app) is not a window's")
        }
        precondition(focus.apps.count <= NiriWire.FocusState.maxWindows, "\(focus.apps.count) windows followed")
    }
    return 0
}
