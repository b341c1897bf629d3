// libFuzzer target: what the session reads from sway (or i3): i3 IPC frames in chunks of any size, and what they
// say (`RUN_COMMAND` results, the focused window in a `GET_TREE` reply or a `window` event)
// (`Sources/EdgeSwipeSessionModel/CompositorWire.swift`, compiled into this harness).
//
// Input: byte 0 the chunk size, then the bytes a compositor writes. Checked, besides "no crash" (deep trees, huge
// lengths, partial headers):
// - framing does not depend on chunking: fed whole and in chunks, the same frames or the same refusal;
// - no frame is longer than the cap, and what is left over is shorter than one whole frame;
// - a command reply gives a list of errors, never fails; focus is read from tree replies and window events only.
import EdgeSwipeProtocol

private func decode(_ bytes: ArraySlice<UInt8>, chunk: Int) -> (frames: [I3IPCFrame.Frame], refused: Bool, left: Int) {
    var buffer: [UInt8] = []
    var frames: [I3IPCFrame.Frame] = []
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
        let end = min(bytes.endIndex, offset + chunk)
        buffer += bytes[offset..<end]
        offset = end
        do throws(I3IPCFrame.FramingError) { frames += try I3IPCFrame.decode(&buffer) } catch {
            return (frames, true, buffer.count)
        }
    }
    return (frames, false, buffer.count)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSwayIPCReplies(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let all = Array(UnsafeBufferPointer(start: data, count: count))
    let chunk = Int(all[0]) + 1
    let stream = all[1...]
    let whole = decode(stream, chunk: max(1, stream.count))
    let chunked = decode(stream, chunk: chunk)
    // A stream that turns out not to be i3 IPC is refused however it is chunked (the connection is then closed: the
    // frames of the read that found the garbage are dropped with it, so only a stream that is never refused must
    // give the same frames).
    precondition(whole.refused == chunked.refused, "refusal depends on chunking (chunk \(chunk))")
    if !whole.refused { precondition(whole.frames == chunked.frames, "framing depends on chunking (chunk \(chunk))") }
    if !whole.refused { precondition(whole.left < I3IPCFrame.headerBytes + I3IPCFrame.maxPayloadBytes) }
    for frame in whole.frames {
        precondition(frame.payload.count <= I3IPCFrame.maxPayloadBytes, "a frame of \(frame.payload.count) bytes")
        _ = I3IPCFrame.commandErrors(frame.payload)
        let focus = I3IPCFrame.focus(in: frame)
        if frame.type != I3IPCFrame.MessageType.getTree.rawValue && frame.type != I3IPCFrame.windowEvent {
            precondition(focus == nil, "focus read from a frame of type \(frame.type)")
        }
        // The frame written back reads back as itself.
        if let type = I3IPCFrame.MessageType(rawValue: frame.type) {
            var again = I3IPCFrame.encode(type, String(decoding: frame.payload, as: UTF8.self))
            let read = try? I3IPCFrame.decode(&again)
            precondition(read?.count == 1 && read?.first?.type == frame.type && again.isEmpty, "a frame does not round-trip")
        }
    }
    return 0
}
