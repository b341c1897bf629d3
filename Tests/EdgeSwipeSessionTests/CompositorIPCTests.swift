import EdgeSwipeProtocol
import EdgeSwipeSessionModel
import EdgeSwipeTestSupport
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import EdgeSwipeSession

@Suite("Compositor IPC: framing, against fake sockets", .serialized)
struct CompositorIPCTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static var loop: any EventLoop { group.next() }

    static func rule(_ name: String, _ effect: Effect) -> Rule {
        Rule(name: name, place: "s.toml:1", match: RuleMatch(), effect: effect)
    }

    static func facts(output: String? = nil) -> TransitionFacts {
        TransitionFacts(id: 1, container: "shell", operation: "next-tab", from: "a", to: "b", swipe: .left, fingers: 3, output: output)
    }

    // MARK: i3 IPC framing

    @Test("i3 IPC frames: encoded as sway reads them, decoded whole, in pieces, and refused when they are not i3 IPC")
    func i3Frames() throws {
        let frame = I3IPCFrame.encode(.runCommand, "workspace next")
        #expect(Array(frame.prefix(6)) == Array("i3-ipc".utf8))
        #expect(frame.count == 14 + 14)
        #expect(Array(frame[6..<10]) == [14, 0, 0, 0] && Array(frame[10..<14]) == [0, 0, 0, 0])
        var buffer = frame + I3IPCFrame.encode(.getTree, "")
        let two = try I3IPCFrame.decode(&buffer)
        #expect(two.map(\.type) == [0, 4] && two[0].payload == Array("workspace next".utf8) && buffer.isEmpty)
        var partial = Array(frame.prefix(20))
        #expect(try I3IPCFrame.decode(&partial).isEmpty && partial.count == 20)
        partial += frame.dropFirst(20)
        #expect(try I3IPCFrame.decode(&partial).count == 1)
        var garbage = Array("HTTP/1.1 400 Bad Request\r\n".utf8)
        #expect(throws: I3IPCFrame.FramingError.self) { try I3IPCFrame.decode(&garbage) }
        var huge = I3IPCFrame.magic + [0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0]
        #expect(throws: I3IPCFrame.FramingError.self) { try I3IPCFrame.decode(&huge) }
        #expect(I3IPCFrame.commandErrors(Array(#"[{"success":true}]"#.utf8)).isEmpty)
        #expect(I3IPCFrame.commandErrors(Array(#"[{"success":true},{"success":false,"error":"Unknown command 'wrkspace'"}]"#.utf8)) == ["Unknown command 'wrkspace'"])
        #expect(I3IPCFrame.commandErrors(Array("nonsense".utf8)).first?.hasPrefix("the reply is not a JSON array") == true)
    }

    @Test("the focused window in a sway tree: app_id, else the X11 class")
    func swayTree() throws {
        let tree = try JSONValueParse(#"{"type":"root","nodes":[{"type":"output","nodes":[{"type":"workspace","nodes":[{"type":"con","focused":false,"app_id":"foot"},{"type":"con","focused":true,"app_id":null,"window_properties":{"class":"Firefox"}}]}]}]}"#)
        #expect(I3IPCFrame.focusedApp(inTree: tree) == "Firefox")
    }

    @Test("the workspace requests, per compositor, with and without the gesture's output")
    func workspaceRequests() {
        #expect(SwayIPC.workspaceCommand(.next, output: nil) == "workspace next_on_output")
        #expect(SwayIPC.workspaceCommand(.previous, output: "HDMI-A-1") == "focus output \"HDMI-A-1\"; workspace prev_on_output")
        #expect(HyprlandWire.workspaceRequest(.next, output: nil) == .success("dispatch workspace m+1"))
        #expect(HyprlandWire.workspaceRequest(.previous, output: "DSI-1") == .success("[[BATCH]]dispatch focusmonitor DSI-1;dispatch workspace m-1"))
        #expect(NiriIPC.workspaceActions(.next, output: nil) == [#"{"FocusWorkspaceDown":{}}"#])
        #expect(NiriIPC.workspaceActions(.previous, output: "eDP-1") == [#"{"FocusMonitor":{"output":"eDP-1"}}"#, #"{"FocusWorkspaceUp":{}}"#])
    }

    // MARK: sway

    @Test("sway: commands on one held connection; a refusal, garbage, a stall and a close are each logged with the rule, and the next command reconnects")
    func sway() throws {
        let dir = try TempDir()
        let log = LogCapture()
        let ok = I3IPCFrame.encode(.runCommand, #"[{"success":true}]"#)
        let server = try FakeCompositorSocket(path: dir.file("sway.sock"), framing: .i3) { request, i in
            switch i {
            case 0, 1: .reply(ok, thenClose: false)
            case 2: .reply(I3IPCFrame.encode(.runCommand, #"[{"success":false,"error":"Unknown command 'warp'"}]"#), thenClose: false)
            case 3: .reply(Array("garbage garbage garbage".utf8), thenClose: false)
            case 4: .stall
            case 5: .close
            default: .reply(ok, thenClose: false)
            }
        }
        let ipc = SwayIPC(desktop: .sway, socketPath: server.path, eventLoop: Self.loop, logger: log.logger)
        func perform(_ name: String, _ effect: Effect) { Self.loop.execute { ipc.perform(effect, facts: Self.facts(), rule: Self.rule(name, effect)) } }
        perform("a", .workspace(.next))
        perform("b", .sway("workspace 2"))
        #expect(waitUntil(timeout: 10) { log.contains("rule 'b' (s.toml:1): sway ran 'workspace 2'") }, "\(log.all)")
        #expect(server.connections == 1)
        perform("c", .sway("warp"))
        #expect(waitUntil(timeout: 10) { log.contains("rule 'c' (s.toml:1): sway refused 'warp': Unknown command 'warp'") }, "\(log.all)")
        perform("d", .sway("workspace 3"))
        #expect(waitUntil(timeout: 10) { log.contains("rule 'd' (s.toml:1): sway answered garbage") }, "\(log.all)")
        perform("e", .sway("workspace 4"))
        #expect(waitUntil(timeout: 10) { log.contains("rule 'e' (s.toml:1): sway did not answer 'workspace 4' within 2000 ms; reconnecting") }, "\(log.all)")
        perform("f", .sway("workspace 5"))
        #expect(waitUntil(timeout: 10) { log.contains("rule 'f' (s.toml:1): 'workspace 5' got no answer: sway closed the IPC connection") }, "\(log.all)")
        perform("g", .sway("workspace 6"))
        #expect(waitUntil(timeout: 10) { log.contains("rule 'g' (s.toml:1): sway ran 'workspace 6'") }, "\(log.all)")
        #expect(server.requests.map { String($0.dropFirst(14)) } == ["workspace next_on_output", "workspace 2", "warp", "workspace 3", "workspace 4", "workspace 5", "workspace 6"])
        #expect(server.connections == 4, "reconnected after the garbage, the stall and the close")
        server.stop()
    }

    @Test("sway: a missing socket is said with the rule, and the session goes on")
    func swayMissing() throws {
        let dir = try TempDir()
        let log = LogCapture()
        let ipc = SwayIPC(desktop: .sway, socketPath: dir.file("none.sock"), eventLoop: Self.loop, logger: log.logger)
        Self.loop.execute { ipc.perform(.workspace(.next), facts: Self.facts(), rule: Self.rule("w", .workspace(.next))) }
        #expect(waitUntil(timeout: 10) { log.contains("rule 'w' (s.toml:1): cannot reach sway at \(dir.file("none.sock"))") }, "\(log.all)")
        guard case .failure(.missing("$SWAYSOCK is not set")) = compositorIPC(for: .sway, environment: [:], eventLoop: Self.loop, logger: log.logger) else {
            Issue.record("a missing $SWAYSOCK is not said")
            return
        }
    }

    // MARK: Hyprland

    @Test("Hyprland: one connection per request, closed once answered; refusals, stalls and silent closes are logged")
    func hyprland() throws {
        let dir = try TempDir()
        let log = LogCapture()
        let server = try FakeCompositorSocket(path: dir.file(".socket.sock"), framing: .oneRead) { request, i in
            switch i {
            case 0, 1: .reply(Array("ok".utf8), thenClose: true)  // as Hyprland does: the answer, then the close
            case 2: .reply(Array("Invalid dispatcher".utf8), thenClose: true)
            case 3: .stall
            default: .close
            }
        }
        let ipc = HyprlandIPC(requestSocket: server.path, eventSocket: dir.file(".socket2.sock"), eventLoop: Self.loop, logger: log.logger)
        func perform(_ name: String, _ effect: Effect, output: String? = nil) {
            Self.loop.execute { ipc.perform(effect, facts: Self.facts(output: output), rule: Self.rule(name, effect)) }
        }
        perform("a", .workspace(.next))
        #expect(waitUntil(timeout: 10) { server.connections == 1 && server.openConnections == 0 }, "the connection is closed once answered")
        perform("b", .workspace(.previous), output: "DSI-1")
        #expect(waitUntil(timeout: 10) { server.connections == 2 && server.openConnections == 0 })
        perform("c", .hyprland("dispatch nosuch"))
        #expect(waitUntil(timeout: 10) { log.contains("rule 'c' (s.toml:1): Hyprland refused 'dispatch nosuch': Invalid dispatcher") }, "\(log.all)")
        perform("d", .hyprland("dispatch workspace 3"))
        #expect(waitUntil(timeout: 10) { log.contains("rule 'd' (s.toml:1): Hyprland request 'dispatch workspace 3' failed: no answer within 2000 ms") }, "\(log.all)")
        #expect(waitUntil(timeout: 10) { server.openConnections == 0 }, "a stalled request's connection is closed, not held")
        perform("e", .hyprland("dispatch workspace 4"))
        #expect(waitUntil(timeout: 10) { log.contains("rule 'e' (s.toml:1): Hyprland request 'dispatch workspace 4' failed: the compositor closed the connection without answering") }, "\(log.all)")
        #expect(server.requests == ["dispatch workspace m+1", "[[BATCH]]dispatch focusmonitor DSI-1;dispatch workspace m-1", "dispatch nosuch", "dispatch workspace 3", "dispatch workspace 4"])
        #expect(!log.contains("error rule 'a'") && !log.contains("error rule 'b'"))
        server.stop()
    }

    // Issue 35.4: the output's name went unquoted into `[[BATCH]]`: `HDMI-A-1;dispatch exec …` ran a command.
    struct OutputName: CustomStringConvertible, Sendable {
        var name: String
        var problem: String?
        var description: String { name.debugDescription }
    }

    static let outputNames: [OutputName] = [
        OutputName(name: "HDMI-A-1", problem: nil),
        OutputName(name: "eDP-1", problem: nil),
        OutputName(name: "Virtual 1", problem: nil),
        OutputName(name: "HDMI-A-1;dispatch exec touch /tmp/pwned", problem: "contains ';', which separates Hyprland's batched commands"),
        // Found by the hyprland-replies fuzzer: ";" and a combining mark make one Character that is not ";".
        OutputName(name: "HDMI-A-1;\u{0350}dispatch exec touch /tmp/pwned", problem: "contains ';', which separates Hyprland's batched commands"),
        OutputName(name: "\u{0350}", problem: nil),
        OutputName(name: "DSI-1\ndispatch exec x", problem: "contains the control character U+A"),
        OutputName(name: "DSI-1\u{0}x", problem: "contains the control character U+0"),
        OutputName(name: " DSI-1", problem: "begins or ends with white space"),
        OutputName(name: "", problem: "is empty"),
        OutputName(name: String(repeating: "a", count: 300), problem: "is 300 bytes long (at most 256)"),
    ]

    @Test("Hyprland: an output's name that would change the batch is refused, never sent", arguments: outputNames)
    func hyprlandOutputNames(_ c: OutputName) {
        #expect(HyprlandWire.outputNameProblem(c.name) == c.problem)
        switch HyprlandWire.workspaceRequest(.next, output: c.name) {
        case .success(let request):
            #expect(c.problem == nil)
            #expect(HyprlandWire.commands(in: request) == ["dispatch focusmonitor \(c.name)", "dispatch workspace m+1"])
        case .failure(let error):
            #expect(c.problem != nil && error.problem == c.problem)
        }
    }

    @Test("Hyprland: a workspace rule on an output named to inject a command sends nothing and says why, with the rule")
    func hyprlandInjection() throws {
        let dir = try TempDir()
        let log = LogCapture()
        let server = try FakeCompositorSocket(path: dir.file(".socket.sock"), framing: .oneRead) { _, _ in .reply(Array("ok".utf8), thenClose: true) }
        let ipc = HyprlandIPC(requestSocket: server.path, eventSocket: dir.file(".socket2.sock"), eventLoop: Self.loop, logger: log.logger)
        Self.loop.execute {
            ipc.perform(.workspace(.next), facts: Self.facts(output: "HDMI-A-1;dispatch exec touch /tmp/pwned"), rule: Self.rule("w", .workspace(.next)))
            ipc.perform(.workspace(.next), facts: Self.facts(output: "HDMI-A-1"), rule: Self.rule("x", .workspace(.next)))
        }
        #expect(waitUntil(timeout: 10) { server.requests.count == 1 }, "\(log.all)")
        #expect(server.requests == ["[[BATCH]]dispatch focusmonitor HDMI-A-1;dispatch workspace m+1"])
        #expect(log.contains("rule 'w' (s.toml:1): the output's name 'HDMI-A-1;dispatch exec touch /tmp/pwned' contains ';'"), "\(log.all)")
        server.stop()
    }

    // Issue 35.5: a Hyprland that never answers, and a fast rule, took every descriptor and ~8,100 log lines.
    @Test("Hyprland: requests in flight are capped; those past the cap are dropped, counted and said once")
    func hyprlandCap() throws {
        let dir = try TempDir()
        let log = LogCapture()
        let server = try FakeCompositorSocket(path: dir.file(".socket.sock"), framing: .oneRead) { _, _ in .stall }
        let ipc = HyprlandIPC(requestSocket: server.path, eventSocket: dir.file(".socket2.sock"), eventLoop: Self.loop, logger: log.logger)
        let rule = Self.rule("v", .hyprland("dispatch workspace e+1"))
        Self.loop.execute {
            for _ in 0..<500 { ipc.perform(.hyprland("dispatch workspace e+1"), facts: Self.facts(), rule: rule) }
        }
        let cap = RequestGate.maxInFlight
        #expect(waitUntil(timeout: 10) { server.requests.count == cap }, "\(server.requests.count)")
        #expect(try Self.loop.submit { ipc.gate.dropped }.wait() == 500 - cap)
        #expect(log.all.filter { $0.contains("has \(cap) requests unanswered; dropping this one") }.count == 1, "\(log.all)")
        // The stalled ones time out and free their places: the next request goes.
        #expect(waitUntil(timeout: 10) { (try? Self.loop.submit { ipc.gate.inFlight }.wait()) == 0 })
        Self.loop.execute { ipc.perform(.hyprland("dispatch workspace e+1"), facts: Self.facts(), rule: rule) }
        #expect(waitUntil(timeout: 10) { server.requests.count == cap + 1 })
        server.stop()
    }

    @Test("Hyprland: the focused window's class from activewindow events")
    func hyprlandFocus() throws {
        let dir = try TempDir()
        let log = LogCapture()
        let events = try FakeCompositorSocket(
            path: dir.file(".socket2.sock"), framing: .oneRead,
            greeting: Array("workspace>>2\nactivewindow>>firefox,Mozilla Firefox\nactivewindow>>foot,~\n".utf8)) { _, _ in .stall }
        let ipc = HyprlandIPC(requestSocket: dir.file(".socket.sock"), eventSocket: events.path, eventLoop: Self.loop, logger: log.logger)
        let seen = NIOLockedValueBox<[String?]>([])
        ipc.followFocus { app in seen.withLockedValue { $0.append(app) } }
        #expect(waitUntil(timeout: 10) { seen.withLockedValue { $0 } == ["firefox", "foot"] }, "\(seen.withLockedValue { $0 })")
        ipc.stop()
        events.stop()
    }

    // MARK: niri

    @Test("niri: one JSON action per line and connection, in order; an Err stops the sequence and is logged")
    func niri() throws {
        let dir = try TempDir()
        let log = LogCapture()
        let server = try FakeCompositorSocket(path: dir.file("niri.sock"), framing: .line) { request, _ in
            String(decoding: request, as: UTF8.self).contains("Nope")
                ? .reply(Array(#"{"Err":"unknown variant `Nope`"}"#.utf8) + [10], thenClose: true)
                : .reply(Array(#"{"Ok":"Handled"}"#.utf8) + [10], thenClose: false)
        }
        let ipc = NiriIPC(socketPath: server.path, eventLoop: Self.loop, logger: log.logger)
        Self.loop.execute { ipc.perform(.workspace(.previous), facts: Self.facts(output: "eDP-1"), rule: Self.rule("w", .workspace(.previous))) }
        #expect(waitUntil(timeout: 10) { server.requests.count == 2 && server.openConnections == 0 })
        #expect(server.requests == [#"{"Action":{"FocusMonitor":{"output":"eDP-1"}}}"#, #"{"Action":{"FocusWorkspaceUp":{}}}"#])
        #expect(server.connections == 2)
        Self.loop.execute { ipc.perform(.niri(#"{"Nope":{}}"#), facts: Self.facts(), rule: Self.rule("n", .niri(#"{"Nope":{}}"#))) }
        #expect(waitUntil(timeout: 10) { log.contains(#"rule 'n' (s.toml:1): niri refused {"Nope":{}}: unknown variant `Nope`"#) }, "\(log.all)")
        #expect(NiriWire.problem(inReply: Array("<html>".utf8))?.hasPrefix("the reply is not JSON") == true)
        server.stop()
    }

    @Test("niri: the focused window's app id from the event stream (windows by id, focus by id)")
    func niriFocus() throws {
        let dir = try TempDir()
        let log = LogCapture()
        let stream = [
            #"{"Ok":"Handled"}"#,
            #"{"WorkspacesChanged":{"workspaces":[]}}"#,
            #"{"WindowsChanged":{"windows":[{"id":1,"app_id":"foot","is_focused":true},{"id":2,"app_id":"firefox","is_focused":false}]}}"#,
            #"{"WindowFocusChanged":{"id":2}}"#,
            #"{"WindowOpenedOrChanged":{"window":{"id":3,"app_id":"mpv","is_focused":true}}}"#,
            #"{"WindowClosed":{"id":3}}"#,
            #"{"WindowFocusChanged":{"id":null}}"#,
        ].joined(separator: "\n") + "\n"
        let server = try FakeCompositorSocket(path: dir.file("niri.sock"), framing: .line) { request, _ in
            String(decoding: request, as: UTF8.self) == "\"EventStream\"" ? .reply(Array(stream.utf8), thenClose: false) : .close
        }
        let ipc = NiriIPC(socketPath: server.path, eventLoop: Self.loop, logger: log.logger)
        let seen = NIOLockedValueBox<[String?]>([])
        ipc.followFocus { app in seen.withLockedValue { $0.append(app) } }
        #expect(waitUntil(timeout: 10) { seen.withLockedValue { $0.count } == 5 }, "\(seen.withLockedValue { $0 })")
        #expect(seen.withLockedValue { $0 } == ["foot", "firefox", "mpv", nil, nil])
        ipc.stop()
        server.stop()
    }
}

func JSONValueParse(_ text: String) throws -> JSONValue {
    try JSONValue.parse(Array(text.utf8), maxDepth: 64)
}
