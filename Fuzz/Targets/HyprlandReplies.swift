// libFuzzer target: what the session reads from and sends to Hyprland (`Sources/EdgeSwipeSessionModel/
// CompositorWire.swift`, compiled into this harness): replies (`ok`, one per batched command, or an error), the
// event socket's `activewindow>>class,title` lines, and the workspace request built around an output's name.
//
// Input: byte 0 splits the rest into an output's name and the bytes Hyprland writes. Checked, besides "no crash":
// - a workspace request with any output's name is either refused (naming why) or runs exactly the two commands it
//   means, `dispatch focusmonitor <name>` then the step, as Hyprland's `[[BATCH]]` splits it: no name adds one;
// - a reply is judged ok or not without failing, and an event line gives a class only for `activewindow>>`.
import EdgeSwipeProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHyprlandReplies(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let all = Array(UnsafeBufferPointer(start: data, count: count))
    let split = min(all.count, 1 + Int(all[0]))
    let name = String(decoding: all[1..<split], as: UTF8.self)
    let reply = Array(all[split...])

    for step in [WorkspaceStep.next, .previous] {
        switch HyprlandWire.workspaceRequest(step, output: name) {
        case .success(let request):
            precondition(HyprlandWire.outputNameProblem(name) == nil)
            let commands = HyprlandWire.commands(in: request)
            let move = "dispatch workspace \(step == .next ? "m+1" : "m-1")"
            precondition(commands == ["dispatch focusmonitor \(name)", move], "the name \(name.debugDescription) makes \(commands)")
            precondition(!request.utf8.contains(0), "a NUL in a request ends Hyprland's reading of it")
        case .failure(let error):
            precondition(!error.problem.isEmpty && !error.description.isEmpty)
        }
    }

    let text = HyprlandWire.text(ofReply: reply)
    if HyprlandWire.isOK(text) { precondition(text.split(whereSeparator: \.isWhitespace).allSatisfy { $0 == "ok" }) }
    var splitter = LineSplitter(maxBytes: 4096)
    for line in splitter.feed(reply + [UInt8(ascii: "\n")]) {
        let focus = HyprlandWire.focusedApp(eventLine: line)
        if !line.starts(with: Array("activewindow>>".utf8)) { precondition(focus == nil, "focus from another event") }
    }
    return 0
}
