import EdgeSwipeClient
import EdgeSwipeTestSupport
import Testing

@testable import EdgeSwipeProtocol
@testable import EdgeSwipeSessionModel

/// The overlay's frames from the engine's own stream (StreamScenario): what is drawn where, when, and when nothing is.
@Suite("Overlay model")
struct OverlayModelTests {
    static let messages: [ServerMessage] = StreamScenario.lines().compactMap { try? ServerMessage(line: $0) }
    static let output = "HEADLESS-1"

    /// The model after every message up to `seq`, each applied at its own time.
    static func model(through seq: UInt64 = .max, settings: OverlaySettings = .defaults) -> OverlayModel {
        var model = OverlayModel(settings: settings)
        for m in messages where m.seq <= seq { model.apply(m, atUS: m.timeUS) }
        return model
    }

    /// Every message in order, with the model just after it.
    static func replay(_ body: (ServerMessage, OverlayModel) -> Void) {
        var model = OverlayModel()
        for m in messages {
            model.apply(m, atUS: m.timeUS)
            body(m, model)
        }
    }

    static func indicators(_ f: OverlayFrame) -> [EdgeIndicator] {
        f.marks.compactMap { if case .indicator(let i) = $0 { i } else { nil } }
    }

    static func transitions(_ edge: Edge? = nil, swipe: SwipeDirection? = nil) -> [TransitionMessage] {
        messages.compactMap { if case .transition(let t) = $0, edge == nil || t.edge == edge, swipe == nil || t.swipeDirection == swipe { t } else { nil } }
    }

    @Test("nothing is drawn at rest: before the first touch, after the last run-out, and between gestures")
    func nothingAtRest() throws {
        let first = try #require(Self.messages.first)
        var model = OverlayModel()
        model.apply(first, atUS: first.timeUS)
        #expect(model.frame(atUS: first.timeUS, output: Self.output, outputs: [Self.output]).isEmpty)
        let last = try #require(Self.messages.last)
        let all = Self.model()
        for later in [last.timeUS, last.timeUS + 1_000_000] {
            #expect(all.frame(atUS: later, output: Self.output, outputs: [Self.output]).isEmpty)
            #expect(!all.isMoving(atUS: later))
        }
        // Just before each gesture begins, nothing (the previous one has run out).
        var checked = 0
        Self.replay { m, model in
            if case .gesture(let g) = m, g.state == .began, g.transition != nil || g.blocked != nil, g.device == StreamScenario.screen.id.rawValue {
                let before = Self.model(through: m.seq - 1)
                // The re-grab's finger lands while the run-out it catches is still drawn.
                guard before.stream.transitions.isEmpty else { return }
                #expect(before.frame(atUS: m.timeUS, output: Self.output, outputs: [Self.output]).isEmpty, "before seq \(m.seq)")
                checked += 1
            }
        }
        #expect(checked >= 5)
    }

    @Test("a left-edge swipe: the indicator at the left edge at the finger's height, growing with the percent, committed once a release would finish")
    func leftEdge() throws {
        let id = try #require(Self.transitions(.left).first?.id)
        var reaches: [Double] = []
        var commits: [Double] = []
        Self.replay { m, model in
            guard case .transition(let t) = m, t.id == id, t.phase == .changed else { return }
            let i = Self.indicators(model.frame(atUS: m.timeUS, output: Self.output, outputs: [Self.output]))
            guard let indicator = i.first else { return }
            #expect(i.count == 1)
            #expect(indicator.edge == .left && indicator.style == .transition(fingers: 1))
            #expect(abs(indicator.along - 0.45) < 0.02, "the finger landed at 45 % of the height")
            #expect(abs(indicator.reach - t.percent / 0.5) < 1e-9)
            // Once eased (a snapping colour flickers), it says what the engine's projection says.
            let settled = Self.indicators(model.frame(atUS: m.timeUS + OverlayModel.commitBlendUS, output: Self.output, outputs: [Self.output]))
            #expect(settled.first?.commit == (t.release?.finishes == true ? 1 : 0))
            reaches.append(indicator.reach)
            commits.append(settled.first?.commit ?? -1)
        }
        #expect(reaches.count > 20)
        #expect(zip(reaches, reaches.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 }, "a finger moving inward grows it")
        #expect(commits.first == 0 && commits.last == 1, "it starts as a would-cancel and ends as a would-finish")
    }

    @Test("the run-out toward finish fades the indicator out from where the finger left it, and it is gone at the end")
    func finishingRunOut() throws {
        let finishing = try #require(Self.transitions(.left).first { $0.phase == .finishing })
        let animation = try #require(finishing.animation)
        let model = Self.model(through: finishing.seq)
        var alphas: [Double] = []
        for k in 0...10 {
            let t = animation.startTimeUS + UInt64(k) * UInt64(animation.durationUS) / 10
            alphas.append(Self.indicators(model.frame(atUS: t, output: Self.output, outputs: [Self.output])).first?.alpha ?? 0)
            #expect(model.isMoving(atUS: t) == (k < 10))
        }
        #expect(alphas.first == 1)
        #expect(zip(alphas, alphas.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(alphas.last == 0)
    }

    @Test("a blocked swipe: a grey rubber band at the left edge that stretches with the finger and springs back to nothing")
    func blocked() throws {
        var stretched: [Double] = []
        var end: (GestureMessage, OverlayModel)?
        Self.replay { m, model in
            guard case .gesture(let g) = m, g.blocked != nil else { return }
            let i = Self.indicators(model.frame(atUS: m.timeUS, output: Self.output, outputs: [Self.output]))
            if g.state == .changed, let band = i.first {
                #expect(band.style == .blocked(fingers: 1) && band.edge == .left && abs(band.along - 0.6) < 0.02)
                stretched.append(band.reach)
            }
            if g.state == .ended { end = (g, model) }
        }
        #expect(stretched.count > 5 && (stretched.max() ?? 0) > 0.3 && (stretched.max() ?? 1) < 1)
        let (g, model) = try #require(end)
        let spring = try #require(g.animation)
        let atRelease = Self.indicators(model.frame(atUS: spring.startTimeUS, output: Self.output, outputs: [Self.output]))
        #expect(abs((atRelease.first?.reach ?? 0) - (stretched.last ?? -1)) < 0.05, "the spring starts where the band was")
        #expect(model.isMoving(atUS: spring.startTimeUS))
        #expect(Self.indicators(model.frame(atUS: spring.endTimeUS, output: Self.output, outputs: [Self.output])).isEmpty)
        #expect(!model.isMoving(atUS: spring.endTimeUS))
    }

    /// The blocked swipe's reaches while the finger stretches the band, with the `hello`'s `rubber_band_limit`
    /// replaced by `helloLimit` and, when `reloadedLimit` is given, a reloaded `config` carrying it just before.
    static func blockedReaches(helloLimit: Double?, reloadedLimit: Double? = nil) -> [Double] {
        var model = OverlayModel()
        var reaches: [Double] = []
        var reloaded = false
        for message in messages {
            var m = message
            if case .hello(var hello) = m {
                hello.config.rubberBandLimit = helloLimit
                m = .hello(hello)
            }
            if case .gesture(let g) = m, g.blocked != nil, let limit = reloadedLimit, !reloaded, case .hello(let hello)? = messages.first {
                var config = hello.config
                config.rubberBandLimit = limit
                model.apply(.config(ConfigMessage(seq: 0, timeUS: m.timeUS, result: .reloaded, message: "", config: config)), atUS: m.timeUS)
                reloaded = true
            }
            model.apply(m, atUS: m.timeUS)
            if case .gesture(let g) = m, g.blocked != nil, g.state == .changed {
                reaches.append(indicators(model.frame(atUS: m.timeUS, output: output, outputs: [output])).first?.reach ?? 0)
            }
        }
        return reaches
    }

    @Test("a blocked swipe's reach is measured against the daemon's rubber_band_limit: the hello's, then a reloaded config's")
    func rubberBandLimitFromTheStream() throws {
        let hello = try #require(Self.messages.first.flatMap { if case .hello(let h) = $0 { h } else { nil } })
        #expect(hello.config.rubberBandLimit == 0.05, "the stream's hello carries the default configuration's limit")
        let daemons = Self.blockedReaches(helloLimit: 0.05)
        #expect(daemons.count > 5 && daemons.allSatisfy { $0 > 0 })
        for (twice, base) in zip(Self.blockedReaches(helloLimit: 0.1), daemons) {
            #expect(abs(twice * 2 - base) < 1e-9, "a limit twice as far: the same stretch reaches half as far")
        }
        for (reloaded, base) in zip(Self.blockedReaches(helloLimit: 0.05, reloadedLimit: 0.025), daemons) {
            #expect(abs(reloaded - base * 2) < 1e-9, "a reload to half the limit: twice the reach")
        }
        #expect(Self.blockedReaches(helloLimit: nil).allSatisfy { $0 == 0 }, "no limit on the wire (overscroll = \"none\", an older daemon): no band")
        #expect(Self.blockedReaches(helloLimit: -1).allSatisfy { $0 == 0 }, "a limit that is not a positive number: no band")
    }

    @Test("a top-edge presentation: the panel follows the streamed geometry, with its dimming, and the indicator at the top")
    func presentation() throws {
        let present = Self.transitions(.top).filter { $0.operation == "present" }
        let id = try #require(present.first?.id)
        var checked = 0
        Self.replay { m, model in
            guard case .transition(let t) = m, t.id == id, t.phase == .changed else { return }
            let frame = model.frame(atUS: m.timeUS, output: Self.output, outputs: [Self.output])
            let panels = frame.marks.compactMap { if case .panel(let p) = $0 { p } else { nil } }
            let presented = t.geometry.to
            // The stream's geometry, rebuilt from its affine form (edgeswipe.js's geometryAt): equal to the wire's six decimals.
            func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-5 }
            try? #require(panels.count == 1)
            if let p = panels.first {
                #expect(p.label == "notifications" && near(p.alpha, presented.alpha))
                #expect(near(p.frame.x, presented.frame.x) && near(p.frame.y, presented.frame.y))
                #expect(near(p.frame.width, presented.frame.width) && near(p.frame.height, presented.frame.height))
            }
            if let d = t.geometry.dimmingAlpha, d > 0.001 {
                if case .dimming(let a)? = frame.marks.first { #expect(near(a, d)) } else { Issue.record("no dimming under the panel") }
            }
            #expect(Self.indicators(frame).first?.edge == .top)
            checked += 1
        }
        #expect(checked > 10)
    }

    /// The frames drawn every `step` µs over `window`, the messages applied as they arrive.
    static func frames(over window: ClosedRange<UInt64>, step: UInt64 = 4_000) -> [(atUS: UInt64, frame: OverlayFrame)] {
        var model = OverlayModel()
        var index = 0
        for m in messages where m.timeUS < window.lowerBound { model.apply(m, atUS: m.timeUS); index += 1 }
        var out: [(atUS: UInt64, frame: OverlayFrame)] = []
        var t = window.lowerBound
        while t <= window.upperBound {
            while index < messages.count, messages[index].timeUS <= t {
                model.apply(messages[index], atUS: t)
                index += 1
            }
            out.append((t, model.frame(atUS: t, output: output, outputs: [output])))
            t += step
        }
        return out
    }

    static func panels(_ f: OverlayFrame) -> [OverlayPanel] {
        f.marks.compactMap { if case .panel(let p) = $0 { p } else { nil } }
    }

    static func dimming(_ f: OverlayFrame) -> Double {
        f.marks.lazy.compactMap { if case .dimming(let a) = $0 { a } else { nil } }.first ?? 0
    }

    /// How much of a sheet shows: its opacity times the share of the screen it covers (a sheet sliding in from an
    /// edge shows a sliver first, whole).
    static func shown(_ p: OverlayPanel?) -> Double {
        guard let p else { return 0 }
        func span(_ a: Double, _ length: Double) -> Double { max(0, min(1, a + length) - max(0, a)) }
        return p.alpha * span(p.frame.x, p.frame.width) * span(p.frame.y, p.frame.height)
    }

    /// How much of the sheet shows, its bottom edge and the dimming, frame to frame: the largest change of each.
    static func largestSteps(_ frames: [(atUS: UInt64, frame: OverlayFrame)]) -> (alpha: Double, bottom: Double, dimming: Double) {
        var largest = (alpha: 0.0, bottom: 0.0, dimming: 0.0)
        for (a, b) in zip(frames, frames.dropFirst()) {
            let (pa, pb) = (panels(a.frame).first, panels(b.frame).first)
            largest.alpha = max(largest.alpha, abs(shown(pa) - shown(pb)))
            if let pa, let pb { largest.bottom = max(largest.bottom, abs(pa.frame.y + pa.frame.height - pb.frame.y - pb.frame.height)) }
            largest.dimming = max(largest.dimming, abs(dimming(a.frame) - dimming(b.frame)))
        }
        return largest
    }

    @Test("a completed presentation: the sheet runs out from where the finger left it, then fades from where it ended; it never vanishes between two frames, and nothing stays")
    func presentationCompletes() throws {
        let present = Self.transitions(.top).filter { $0.operation == "present" }
        let finishing = try #require(present.first { $0.phase == .finishing })
        let completed = try #require(present.first { $0.phase == .completed })
        let frames = Self.frames(over: (finishing.timeUS - 50_000)...(completed.timeUS + OverlayModel.departureFadeUS + 100_000))
        let steps = Self.largestSteps(frames)
        // Drawn every 4 ms: a fade of 220 ms moves the opacity by under 4 % a frame; a vanish, by all of it.
        #expect(steps.alpha < 0.1, "what shows of the sheet jumped by \(steps.alpha) in one frame")
        #expect(steps.dimming < 0.1, "the dimming jumped by \(steps.dimming) in one frame")
        #expect(steps.bottom < 0.05, "the sheet jumped by \(steps.bottom) of the screen in one frame")
        let atEnd = try #require(frames.first { $0.atUS >= completed.timeUS })
        #expect(Self.panels(atEnd.frame).first.map { $0.alpha > 0.9 } == true, "at its completion the sheet is still drawn where it ended")
        #expect(frames.last?.frame.isEmpty == true, "nothing stays once it has faded")
        var model = Self.model(through: completed.seq)
        #expect(model.isMoving(atUS: completed.timeUS + 1_000), "the fade is drawn")
        #expect(!model.isMoving(atUS: completed.timeUS + OverlayModel.departureFadeUS))
        model.disconnected()
        #expect(model.frame(atUS: completed.timeUS + 1_000, output: Self.output, outputs: [Self.output]).isEmpty, "a lost connection drops the fade too")
    }

    @Test("a dismissal from the bottom edge draws no sheet (the presented scene at rest is the daemon's, drawn by nobody here), only its indicator at the bottom; nothing appears from nowhere")
    func dismissalDrawsNoSheet() throws {
        let dismiss = Self.transitions(.bottom).filter { $0.operation == "dismiss" }
        let began = try #require(dismiss.first { $0.phase == .began })
        let end = try #require(dismiss.first { $0.phase.isTerminal })
        let frames = Self.frames(over: (began.timeUS - 20_000)...(end.timeUS + OverlayModel.departureFadeUS + 100_000))
        #expect(frames.allSatisfy { Self.panels($0.frame).isEmpty }, "a sheet was drawn for the dismissal")
        #expect(frames.contains { Self.indicators($0.frame).first?.edge == .bottom }, "its indicator, at the bottom edge")
        // The dimming, if any, only as much as it changes from rest: it never starts at its full value.
        let steps = Self.largestSteps(frames)
        #expect(steps.dimming < 0.1, "the dimming jumped by \(steps.dimming) in one frame")
        #expect(frames.last?.frame.isEmpty == true)
    }

    @Test("the whole stream drawn every 4 ms: no sheet, no dimming and no indicator appears or disappears between two frames")
    func nothingJumps() throws {
        let first = try #require(Self.messages.first?.timeUS)
        let last = try #require(Self.messages.last?.timeUS)
        let frames = Self.frames(over: first...(last + 500_000))
        let steps = Self.largestSteps(frames)
        #expect(steps.alpha < 0.1 && steps.dimming < 0.1 && steps.bottom < 0.05, "\(steps)")
        // An indicator's opacity times its reach: it grows from the edge and fades or shrinks back into it.
        func presence(_ f: OverlayFrame) -> Double { Self.indicators(f).map { $0.alpha * min(1, $0.reach) }.max() ?? 0 }
        let largest = zip(frames, frames.dropFirst()).map { abs(presence($0.frame) - presence($1.frame)) }.max() ?? 0
        #expect(largest < 0.2, "an indicator jumped by \(largest) in one frame")
    }

    @Test("three fingers moving right: the indicator at the left edge, where the motion comes from, with its three fingers")
    func multiFinger() throws {
        let id = try #require(Self.transitions(swipe: .right).first?.id)
        var seen = 0
        Self.replay { m, model in
            guard case .transition(let t) = m, t.id == id, t.phase == .changed else { return }
            guard let i = Self.indicators(model.frame(atUS: m.timeUS, output: Self.output, outputs: [Self.output])).first else { return }
            #expect(i.edge == .left && i.style == .transition(fingers: 3))
            #expect(abs(i.along - 0.55) < 0.03, "at the fingers' centroid")
            seen += 1
        }
        #expect(seen > 5)
    }

    @Test("a re-grab mid run-out: the drawing carries on from where it was, without a jump, then follows the new finger")
    func regrab() throws {
        let catchMessage = try #require(Self.messages.first { if case .interaction(let i) = $0 { i.phase == .began } else { false } })
        let caught: UInt64 = { if case .interaction(let i) = catchMessage { i.transition } else { 0 } }()
        // Draw every 4 ms from 100 ms before the catch to 300 ms after it, as the messages arrive.
        var model = OverlayModel()
        var index = 0
        var previous: EdgeIndicator?
        var largest = (along: 0.0, reach: 0.0, alpha: 0.0, commit: 0.0)
        var t = catchMessage.timeUS - 100_000
        for m in Self.messages where m.timeUS < t { model.apply(m, atUS: m.timeUS); index += 1 }
        while t < catchMessage.timeUS + 300_000 {
            while index < Self.messages.count, Self.messages[index].timeUS <= t {
                model.apply(Self.messages[index], atUS: t)
                index += 1
            }
            let i = Self.indicators(model.frame(atUS: t, output: Self.output, outputs: [Self.output])).first
            if let i, let p = previous, model.stream.transitions[caught] != nil {
                largest.along = max(largest.along, abs(i.along - p.along))
                largest.reach = max(largest.reach, abs(i.reach - p.reach))
                largest.alpha = max(largest.alpha, abs(i.alpha - p.alpha))
                largest.commit = max(largest.commit, abs(i.commit - p.commit))
            }
            previous = i
            t += 4_000
        }
        // The new finger landed at 70 % of the height, the old one at 30 %: 150 ms of blending makes that 40 % a glide.
        #expect(largest.along < 0.06, "along moved by \(largest.along) in one frame")
        #expect(largest.reach < 0.12, "reach moved by \(largest.reach) in one frame")
        #expect(largest.alpha < 0.2 && largest.commit < 0.2)
        let settled = Self.indicators(model.frame(atUS: t, output: Self.output, outputs: [Self.output])).first
        if let settled { #expect(abs(settled.along - 0.7) < 0.02, "under the new finger once blended") }
    }

    @Test("which outputs draw a gesture", arguments: [
        (OverlaySettings.Outputs.auto, "HEADLESS-1", ["HEADLESS-1", "DP-2"], true),
        (.auto, "DP-2", ["HEADLESS-1", "DP-2"], false),
        (.auto, "DP-2", ["DP-2"], true),
        (.all, "DP-2", ["HEADLESS-1", "DP-2"], true),
        (.named("DP-2"), "DP-2", ["HEADLESS-1", "DP-2"], true),
        (.named("DP-2"), "HEADLESS-1", ["HEADLESS-1", "DP-2"], false),
    ])
    func outputs(_ choice: OverlaySettings.Outputs, _ output: String, _ outputs: [String], _ drawn: Bool) throws {
        let changed = try #require(Self.transitions(.left).first { $0.phase == .changed && $0.percent > 0.3 })
        let model = Self.model(through: changed.seq, settings: OverlaySettings(outputs: choice))
        #expect(!model.frame(atUS: changed.timeUS, output: output, outputs: Set(outputs)).isEmpty == drawn)
    }

    @Test("a lost connection clears the drawing")
    func disconnection() throws {
        let changed = try #require(Self.transitions(.left).first { $0.phase == .changed && $0.percent > 0.3 })
        var model = Self.model(through: changed.seq)
        #expect(!model.frame(atUS: changed.timeUS, output: Self.output, outputs: [Self.output]).isEmpty)
        model.disconnected()
        #expect(model.frame(atUS: changed.timeUS, output: Self.output, outputs: [Self.output]).isEmpty)
    }
}
