import EdgeSwipeClient
import EdgeSwipeCore
@testable import EdgeSwipeProtocol
import EdgeSwipeTestSupport
import Foundation
import Testing

/// `StreamState` is `edgeswipe.js`'s model in Swift: the same stream gives the same frames, to the last bits but for
/// `exp`'s rounding. The page's own module runs under Debian's `nodejs`; it skips, saying what to install, where
/// node is missing, except where `EDGESWIPE_REQUIRE_NODE=1` (CI) makes its absence a failure.
@Suite("StreamState: edgeswipe.js's model")
struct StreamStateTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let module = packageRoot.appendingPathComponent("Sources/EdgeSwipeWeb/Web/edgeswipe.js")
    static let node = ["/usr/bin/node", "/usr/bin/nodejs"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var required: Bool { ProcessInfo.processInfo.environment["EDGESWIPE_REQUIRE_NODE"] == "1" }

    /// Instants after each line at which every running transition is sampled: the line's own, within a frame, a
    /// few frames on, and past any run-out's end.
    static let offsetsUS: [UInt64] = [0, 4_000, 16_000, 40_000, 400_000]

    /// Per line and running transition (by id) and offset: `[seq, id, offset, percent, phase, from's x y w h alpha
    /// z on_stage, to's …, dimming or null]`.
    static func swiftSamples(_ lines: [[UInt8]]) throws -> [[Double?]] {
        var state = StreamState()
        var out: [[Double?]] = []
        for line in lines {
            let message = try ServerMessage(line: line)
            state.apply(message)
            for id in state.transitions.keys.sorted() {
                guard let t = state.transitions[id] else { continue }
                for dt in offsetsUS {
                    let s = t.scenes(atTimeUS: message.timeUS + dt)
                    func scene(_ g: SceneGeometryInfo) -> [Double?] {
                        [g.frame.x, g.frame.y, g.frame.width, g.frame.height, g.alpha, Double(g.zIndex), g.onStage ? 1 : 0]
                    }
                    let phase = Double(PercentDrivenInteractiveTransition.Phase.allCases.firstIndex(of: s.phase) ?? -1)
                    out.append([Double(message.seq), Double(id), Double(dt), s.percent, phase] + scene(s.from) + scene(s.to) + [s.dimmingAlpha])
                }
            }
        }
        return out
    }

    static let script = #"""
        import { EdgeSwipeState, scenesAt } from "./edgeswipe.mjs";
        import { readFileSync } from "node:fs";
        const phases = ["began", "changed", "finishing", "cancelling", "completed", "cancelled"];
        const offsets = JSON.parse(process.argv[3]);
        const state = new EdgeSwipeState();
        const out = [];
        for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
          if (!line) continue;
          const m = JSON.parse(line);
          state.apply(m, 0);
          for (const id of [...state.transitions.keys()].sort((a, b) => a - b)) {
            const t = state.transitions.get(id);
            for (const dt of offsets) {
              const s = scenesAt(t, m.time_us + dt);
              const scene = (g) => [g.frame.x, g.frame.y, g.frame.width, g.frame.height, g.alpha, g.z_index, g.on_stage ? 1 : 0];
              out.push([m.seq, id, dt, s.percent, phases.indexOf(s.phase), ...scene(s.from), ...scene(s.to), s.dimming_alpha ?? null]);
            }
          }
        }
        console.log(JSON.stringify(out));
        """#

    @Test("the same stream gives the same percents, frames, alphas and dimming at every instant, in Swift and in edgeswipe.js",
          .enabled(if: node != nil || required, "needs node to run edgeswipe.js (apt install nodejs)"))
    func parity() throws {
        let node = try #require(Self.node, "EDGESWIPE_REQUIRE_NODE=1, but node is not installed")
        let lines = StreamScenario.lines()
        let swift = try Self.swiftSamples(lines)
        let dir = try TempDir()
        try FileManager.default.copyItem(atPath: Self.module.path, toPath: dir.file("edgeswipe.mjs"))
        try Self.script.write(toFile: dir.file("parity.mjs"), atomically: true, encoding: .utf8)
        try Data(lines.map { $0 + [UInt8(ascii: "\n")] }.joined()).write(to: URL(fileURLWithPath: dir.file("stream.ndjson")))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: node)
        process.arguments = [dir.file("parity.mjs"), dir.file("stream.ndjson"), "\(Self.offsetsUS)"]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "node: \(errors)")
        let js = try #require(try JSONSerialization.jsonObject(with: output) as? [[Any]])
        try #require(js.count == swift.count, "edgeswipe.js sampled \(js.count) instants, Swift \(swift.count)")
        #expect(swift.count > 400, "the scenario runs transitions for many lines")
        var worst = 0.0
        for (row, (a, b)) in zip(swift, js).enumerated() {
            try #require(a.count == b.count, "row \(row): \(a.count) fields in Swift, \(b.count) in JS")
            for (i, (x, y)) in zip(a, b).enumerated() {
                let yv = (y as? NSNumber)?.doubleValue
                guard let x, let yv else {
                    #expect(x == nil && yv == nil, "row \(row) field \(i): \(String(describing: x)) in Swift, \(y) in JS")
                    continue
                }
                // Equal but for the last bits of exp (the spring), which V8 and glibc round apart.
                let d = abs(x - yv)
                worst = max(worst, d)
                #expect(d <= 1e-12 * max(1, abs(yv)), "row \(row) (seq \(a[0] ?? -1), transition \(a[1] ?? -1), +\(a[2] ?? -1) us) field \(i): \(x) in Swift, \(yv) in JS")
            }
        }
        print("StreamState vs edgeswipe.js: \(swift.count) samples, largest difference \(worst)")
    }

    @Test("a re-grab drops the run-out and follows the finger from where the run-out was: the percent does not jump")
    func regrabIsContinuous() throws {
        var state = StreamState()
        var caught = false
        for line in StreamScenario.lines() {
            let message = try ServerMessage(line: line)
            if case .transition(let m) = message, m.phase == .changed, let before = state.transitions[m.id], before.phase == .cancelling {
                let drawn = before.percent(atTimeUS: m.timeUS)
                state.apply(message)
                let after = try #require(state.transitions[m.id])
                #expect(after.animation == nil)
                #expect(abs(after.percent(atTimeUS: m.timeUS) - drawn) < 0.02, "the run-out was drawn at \(drawn), the finger took it at \(after.percent)")
                caught = true
                continue
            }
            state.apply(message)
        }
        #expect(caught, "the scenario catches a run-out")
    }

    // Issue 35.8: transitions that never end, and devices without number, grew a client without bound.
    @Test("a stream no daemon writes cannot grow the state: transitions, containers, devices and gestures are capped")
    func bounded() {
        func transition(_ id: Int, _ phase: TransitionPhase) -> ServerMessage {
            var t = TransitionMessage()
            t.id = UInt64(id)
            t.container = "c\(id)"
            t.phase = phase
            return .transition(t)
        }
        var state = StreamState()
        state.apply(.hello(HelloMessage()))
        for id in 1...5_000 {
            state.apply(transition(id, .began))
            var d = DeviceMessage()
            d.change = .added
            d.device.id = UInt32(id)
            state.apply(.device(d))
            var g = GestureMessage()
            g.device = UInt32(id)
            state.apply(.gesture(g))
        }
        #expect(state.transitions.count == StreamState.maxTransitions)
        #expect(state.lastTransition.count == StreamState.maxTransitions)
        #expect(state.transitions[5_000] != nil, "the newest are kept")
        #expect(state.devices.count == StreamState.maxDevices)
        #expect(state.gestures.count == StreamState.maxDevices)
        // Ending them leaves nothing behind.
        for id in 1...5_000 { state.apply(transition(id, .cancelled)) }
        #expect(state.transitions.isEmpty && state.lastTransition.isEmpty)
    }
}
