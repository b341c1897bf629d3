// libFuzzer target: what the session does with the daemon's stream (issue 35): each line read as the client reads
// it (`ServerMessage(line:)`, the ranges of `WireRanges` checked), then applied to `StreamState` (what the overlay
// and a web page draw from) and matched by `RuleMatcher` (`Sources/EdgeSwipeSessionModel/RuleMatcher.swift` and the
// rules' model, compiled into this harness: the model's module links the client and its event loop).
//
// Input: a stream of lines, each ending at a newline (the client frames by newline). Checked, besides "no crash"
// (every conversion of a number the stream carries, the percents of a run-out at any instant included):
// - at most one firing per transition and phase within a connection (`began`, `completed`, `cancelled`), and a
//   `changed` firing only when the percent crossed a step, in the direction it says;
// - memory bounded: the matcher follows at most `maxRunning` transitions and remembers at most `endedMemory` ended
//   ones and `maxDevices` devices; the stream state holds at most `ClientBounds`' transitions, devices and gestures,
//   and no container points at a transition it does not hold;
// - a line refused for its numbers names the field, and every number of a line that is read lies within its range.
import EdgeSwipeProtocol

/// Every kind of rule, so that each phase and a stepping `changed` rule can fire (an edge, a swipe, the device's
/// kind and output, an application, a desktop).
private let rules: RuleSet = {
    let text = """
        [[rule]]
        name = "began"
        on = "began"
        command = ["true"]

        [[rule]]
        name = "step"
        on = "changed"
        step = 0.1
        command = ["true"]

        [[rule]]
        name = "back"
        edge = "left"
        fingers = 1
        key = "alt+Left"

        [[rule]]
        name = "pad"
        swipe = "left"
        fingers = [3, 4]
        device = "touchpad"
        workspace = "next"

        [[rule]]
        name = "out"
        output = "DSI-1"
        app = ["firefox"]
        command = ["true"]

        [[rule]]
        name = "done"
        command = ["true"]

        [[rule]]
        name = "gone"
        on = "cancelled"
        command = ["true"]
        """
    do { return try SessionRulesParser.parse(text, file: "fuzz.toml") } catch { preconditionFailure("the harness's rules: \(error)") }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSessionStream(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    var matcher = RuleMatcher(rules: rules, desktop: .sway)
    var state = StreamState()
    // (epoch, transition, phase) -> firings; and each transition's last step level.
    var fired: [String: Int] = [:]
    var start = 0
    for i in 0...count where i == count || bytes[i] == UInt8(ascii: "\n") {
        let line = Array(bytes[start..<i])
        start = i + 1
        let message: ServerMessage
        do throws(MessageDecodingError) { message = try ServerMessage(line: line) } catch {
            if error.reason.contains("is outside 0...1") || error.reason.contains("a client accepts") {
                precondition(error.reason.hasPrefix("at "), "a number refused without its field: \(error.reason)")
            }
            continue
        }
        state.apply(message)
        let app: String? = line.count % 3 == 0 ? "Firefox" : nil
        for action in matcher.handle(message, app: app) {
            guard case .fire(let firing) = action else { continue }
            let key = "\(matcher.epoch) \(firing.facts.id) \(firing.phase.rawValue)"
            fired[key, default: 0] += 1
            switch firing.phase {
            case .began, .completed, .cancelled:
                precondition(fired[key] == 1, "\(key) fired twice")
            case .changed:
                precondition(firing.stepDirection == 1 || firing.stepDirection == -1, "a changed firing without a direction")
            }
            // What a command would be told, from the facts as they are: finite numbers in range.
            precondition((0...1).contains(firing.facts.percent), "a firing's percent \(firing.facts.percent) is out of range")
            precondition(firing.facts.velocity.magnitude <= WireRanges.magnitude, "a firing's velocity is out of range")
        }
        precondition(matcher.runningCount <= RuleMatcher.maxRunning, "the matcher follows \(matcher.runningCount) transitions")
        precondition(matcher.endedCount <= RuleMatcher.endedMemory, "the matcher remembers \(matcher.endedCount) ended")
        precondition(matcher.deviceCount <= RuleMatcher.maxDevices, "the matcher remembers \(matcher.deviceCount) devices")
        precondition(state.transitions.count <= ClientBounds.maxTransitions, "the stream state holds \(state.transitions.count) transitions")
        precondition(state.devices.count <= ClientBounds.maxDevices && state.gestures.count <= ClientBounds.maxDevices)
        for (container, id) in state.lastTransition {
            precondition(state.transitions[id] != nil, "container \(container) points at \(id), which the state does not hold")
        }
        // What the overlay draws: every transition at a few instants, its run-out included (2^64 - 1 among them).
        for t in state.transitions.values {
            for at in [t.timeUS, t.timeUS &+ 16_000, 0, UInt64.max] {
                let scenes = t.scenes(atTimeUS: at)
                _ = scenes.from.frame.height * 1080
            }
        }
        if case .gesture(let g) = message { _ = g.overscroll(atTimeUS: g.timeUS &+ 8_000) }
    }
    return 0
}
