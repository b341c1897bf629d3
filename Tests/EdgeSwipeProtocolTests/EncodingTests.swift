import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import Testing

/// Lines from the fast encoder, decoded back through the Codable types.
func decodeLines(_ bytes: [UInt8]) throws -> [ServerMessage] {
    try bytes.split(separator: UInt8(ascii: "\n")).map { try ServerMessage(line: Array($0)) }
}

func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 5e-7 * max(1, abs(b)) }
func close(_ a: NormalizedRect, _ b: NormalizedRect) -> Bool {
    close(a.x, b.x) && close(a.y, b.y) && close(a.width, b.width) && close(a.height, b.height)
}

@Suite("Encoding engine events")
struct EncodingTests {
    static let run = Scenario.everything()

    @Test("the scenario covers every event kind, curve timing and container kind")
    func coverage() {
        let events = Self.run.events
        #expect(events.gestures.contains { $0.state == .changed && $0.transition != nil })
        #expect(events.transitions.contains { $0.isProgress && !$0.phase.isRunningOut })
        #expect(events.transitions.contains { $0.isProgress && $0.phase.isRunningOut })
        #expect(events.transitions.contains { if case .criticallyDampedSpring = $0.animation?.timing { true } else { false } })
        #expect(events.transitions.contains { if case .cubicBezier = $0.animation?.timing { true } else { false } })
        #expect(events.transitions.contains { $0.geometry.dimmingAlpha != nil })
        #expect(events.transitions.contains { $0.phase == .cancelled })
        #expect(events.contains { if case .lifecycle = $0 { true } else { false } })
        #expect(events.contains { if case .device(let d) = $0 { d.change == .removed } else { false } })
        #expect(events.contains { if case .state = $0 { true } else { false } })
        #expect(events.gestures.contains { $0.blocked != nil && $0.overscroll != nil && $0.state == .changed })
        #expect(events.gestures.contains { $0.blocked != nil && $0.animation != nil })
        #expect(events.gestures.contains { $0.failure != nil })
        #expect(events.contains { if case .presentation(let p) = $0 { p.phase == .willBegin } else { false } })
        #expect(events.contains { if case .presentation(let p) = $0 { p.completed == true } else { false } })
        #expect(events.contains { if case .interaction(let i) = $0 { i.cancelled == false } else { false } })
        #expect(events.transitions.contains { $0.release?.finishes == true } && events.transitions.contains { $0.release?.finishes == false })
        #expect(events.transitions.allSatisfy { ($0.release != nil) == ($0.phase == .changed && $0.interactive) }, "a projection on every finger-driven changed, and only there")
        #expect(events.contains { if case .interaction(let i) = $0 { i.phase == .ended && i.decision != nil } else { false } })
    }

    @Test("one line per sent event, seq from 1 without gaps, every line decodes to the event it encodes")
    func roundTrip() throws {
        var encoder = ProtocolLineEncoder()
        var bytes: [UInt8] = []
        encoder.encodeHello(Self.run.initial, time: MonotonicInstant(microseconds: 5), into: &bytes)
        encoder.encode(Self.run.events, into: &bytes)
        let messages = try decodeLines(bytes)
        let sent = Self.run.events.sent
        try #require(messages.count == sent.count + 1)
        #expect(messages.map(\.seq) == Array(1...UInt64(messages.count)))
        guard case .hello(let hello) = messages[0] else {
            Issue.record("the first line is not hello")
            return
        }
        #expect(hello.protocolVersion == WireProtocol.version)
        #expect(hello.state.containers.map(\.content) == Self.run.initial.containers.map(\.content))
        for (event, message) in zip(sent, messages.dropFirst()) {
            #expect(message.timeUS == event.time?.microseconds)
            check(message, encodes: event)
        }
    }

    func check(_ message: ServerMessage, encodes event: EngineEvent) {
        switch (event, message) {
        case (.transition(let e), .transition(let m)):
            #expect(m.id == e.id.rawValue && m.operation == e.operation.name && m.container == e.container)
            #expect(m.from == e.from && m.to == e.to && m.direction == e.direction && m.phase == e.phase)
            #expect(close(m.percent, e.percent.value) && close(m.velocity, e.velocity.value))
            #expect(m.interactive == e.interactive && m.progress == e.isProgress)
            #expect(m.presentationStyle == e.presentationStyle && m.edge == e.edge && m.device == e.device?.rawValue)
            #expect(close(m.geometry.from.frame, e.geometry.from.frame) && close(m.geometry.to.frame, e.geometry.to.frame))
            #expect(m.geometry.from.zIndex == e.geometry.from.zIndex && m.geometry.to.onStage == e.geometry.to.onStage)
            #expect(m.geometry.dimmingAlpha.map { close($0, e.geometry.dimmingAlpha ?? .nan) } ?? (e.geometry.dimmingAlpha == nil))
            #expect(m.release.map { close($0.projectedPercent, e.release?.projected.value ?? .nan) && close($0.threshold, e.release?.threshold.value ?? .nan) } ?? (e.release == nil))
            #expect(m.release.map { $0.finishes == e.release?.finishes } ?? true)
            #expect((m.animation == nil) == (e.animation == nil))
            if let a = m.animation, let spec = e.animation {
                #expect(a.curve == spec.curve.name && a.durationUS == spec.duration.value)
                #expect(a.startTimeUS == spec.start.microseconds && a.endTimeUS == spec.end.microseconds)
                #expect(close(a.fromPercent, spec.fromPercent.value) && close(a.toPercent, spec.toPercent.value))
                // A client interpolating the spec gets what the engine computes.
                for f in stride(from: 0.0, through: 1.0, by: 0.125) {
                    let t = spec.start.advanced(by: Microseconds(Int64(Double(spec.duration.value) * f)))
                    #expect(abs(a.percent(atTimeUS: t.microseconds) - spec.percent(at: t).value) < 1e-4)
                }
            }
        case (.gesture(let e), .gesture(let m)):
            #expect(m.kind == e.kind.rawValue && m.edge == e.edge && m.direction == e.trigger.direction && m.state == e.state && m.device == e.device.rawValue && m.deviceKind == e.deviceKind)
            #expect(m.fingers == e.fingers && m.transition == e.transition?.rawValue && m.progress == (e.state == .changed))
            #expect(close(m.location.x, e.location.x) && close(m.translationMM.x, e.translation.x) && close(m.velocityMMPerS.y, e.velocity.y))
            #expect(m.blocked == e.blocked?.rawValue && m.reason == e.failureReason)
            #expect(m.overscroll.map { close($0, e.overscroll?.value ?? .nan) } ?? (e.overscroll == nil))
            #expect(m.overscrollMM.map { close($0, e.overscrollMM?.value ?? .nan) } ?? (e.overscrollMM == nil))
            #expect((m.animation == nil) == (e.animation == nil))
            if let a = m.animation, let spec = e.animation {
                #expect(a.timing == "spring" && a.toPercent == 0 && a.endTimeUS == spec.end.microseconds)
                #expect(m.overscroll(atTimeUS: a.endTimeUS) == 0, "a client draws the bounce back to exactly 0")
            }
        case (.presentation(let e), .presentation(let m)):
            #expect(m.transition == e.transition.rawValue && m.container == e.container && m.kind == e.kind && m.phase == e.phase)
            #expect(m.completed == e.completed && m.presented == e.presented && m.presenting == e.presenting)
            #expect(m.style == e.style && close(m.frame, e.frame))
        case (.interaction(let e), .interaction(let m)):
            #expect(m.transition == e.transition.rawValue && m.container == e.container && m.phase == e.phase)
            #expect(m.cancelled == e.cancelled && close(m.percent, e.percent.value) && close(m.velocity, e.velocity.value))
            #expect(m.release.map { close($0.projectedPercent, e.decision?.projected.value ?? .nan) && close($0.threshold, e.decision?.threshold.value ?? .nan) } ?? (e.decision == nil))
        case (.lifecycle(let e), .lifecycle(let m)):
            #expect(m.transition == e.transition.rawValue && m.container == e.container && m.scene == e.scene && m.event == e.kind)
        case (.state(let s), .state(let m)):
            #expect(m.containers.map(\.name) == s.containers.map(\.name))
            #expect(m.containers.map(\.visible) == s.containers.map(\.content.visibleScene))
            #expect(m.running.map(\.id) == s.running.map(\.id.rawValue))
            for (info, container) in zip(m.containers, s.containers) {
                if case .modal(_, let presented) = container.content {
                    #expect(zip(info.presented ?? [], presented).allSatisfy { close($0.frame, $1.frame) && $0.style == $1.style })
                } else {
                    #expect(info.content == container.content)
                }
            }
        case (.device(let e), .device(let m)):
            #expect(m.change == e.change && m.device == DeviceInfo(e.device))
        default:
            Issue.record("\(message.type) does not encode \(event)")
        }
    }

    @Test("the body is encoded once: lines differ only in their seq")
    func seqIsTheOnlyDifference() {
        var batch = EncodedBatch()
        for e in Self.run.events { batch.append(e) }
        for i in 0..<batch.count {
            let a = String(decoding: batch.line(i, seq: 1), as: UTF8.self)
            let b = String(decoding: batch.line(i, seq: 123_456), as: UTF8.self)
            #expect(a.replacingOccurrences(of: "\"seq\":1,", with: "\"seq\":123456,") == b)
        }
    }

    @Test("progress messages carry their coalescing key; phase, start, terminal and the rest are essential")
    func roles() {
        var batch = EncodedBatch()
        for e in Self.run.events.sent { batch.append(e) }
        for (event, message) in zip(Self.run.events.sent, batch.messages) {
            switch event {
            case .transition(let t):
                let expected: DeliveryRole =
                    t.phase.isTerminal ? .terminal(t.id)
                    : t.isProgress ? (t.phase.isRunningOut ? .runOutFrame(t.id) : .progress(.transition(t.id)))
                    : t.phase.isRunningOut ? .runOutStart(t.id) : .essential
                #expect(message.role == expected)
            case .gesture(let g):
                #expect(message.role == (g.state == .changed ? .progress(.gesture(g.device)) : .essential))
            case .lifecycle, .presentation, .interaction, .state, .device, .trace:
                #expect(message.role == .essential)
            }
        }
    }
}

@Suite("Subscriptions")
struct SubscriptionTests {
    static func lines(_ subscription: Subscription) throws -> [ServerMessage] {
        var encoder = ProtocolLineEncoder(subscription: subscription)
        var bytes: [UInt8] = []
        encoder.encode(EncodingTests.run.events, into: &bytes)
        return try decodeLines(bytes)
    }

    @Test("topics filter by type and seq stays gap-free", arguments: [
        [Topic.transition], [.lifecycle, .state], [.gesture], [.device], [],
    ])
    func topics(_ topics: [Topic]) throws {
        let messages = try Self.lines(Subscription(topics: TopicSet(topics)))
        #expect(messages.allSatisfy { $0.topic.map(topics.contains) ?? false })
        #expect(messages.map(\.seq) == Array(stride(from: 1, through: UInt64(messages.count), by: 1)))
        #expect(messages.isEmpty == topics.isEmpty)
    }

    @Test("tick_hz thins run-out frames per transition and never drops phase or terminal events", arguments: [
        (TickRate.every, 0.0), (.none, 0.0), (.hz(30), 1_000_000.0 / 30), (.hz(10), 100_000.0),
    ])
    func ticks(_ ticks: TickRate, _ minimumGapUS: Double) throws {
        let all = try Self.lines(.everything).compactMap { if case .transition(let t) = $0 { t } else { nil } }
        let thinned = try Self.lines(Subscription(topics: TopicSet([.transition]), ticks: ticks))
            .compactMap { if case .transition(let t) = $0 { t } else { nil } }
        func essential(_ list: [TransitionMessage]) -> [String] {
            list.filter { !$0.progress }.map { "\($0.id) \($0.phase)" }
        }
        #expect(essential(thinned) == essential(all))
        let frames = thinned.filter { $0.progress && ($0.phase == .finishing || $0.phase == .cancelling) }
        let allFrames = all.filter { $0.progress && ($0.phase == .finishing || $0.phase == .cancelling) }
        switch ticks {
        case .every: #expect(frames.count == allFrames.count)
        case .none: #expect(frames.isEmpty && !allFrames.isEmpty)
        case .hz:
            #expect(!frames.isEmpty && frames.count < allFrames.count)
            // Consecutive frames of one transition (counting its run-out start) are at least 1/hz apart.
            var last: [UInt64: UInt64] = [:]
            for t in thinned {
                if t.phase == .finishing || t.phase == .cancelling {
                    if t.progress, let l = last[t.id] { #expect(Double(t.timeUS - l) >= minimumGapUS - 1) }
                    last[t.id] = t.timeUS
                }
            }
        }
    }
}
