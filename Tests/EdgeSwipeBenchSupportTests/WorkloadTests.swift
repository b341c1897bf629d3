import EdgeSwipeBenchSupport
import EdgeSwipeCore
import EdgeSwipeInput
import Testing

/// The benchmarks' workloads must exercise what they claim to; these tests check that, and time nothing.
@Suite struct WorkloadTests {
    /// Transitions that reached `completed`, and gestures that began, in a whole stream.
    private func outcome(of stream: DeviceStream) -> (began: Int, completed: Int, cancelled: Int) {
        var decoder = try! EvdevFrameDecoder(description: stream.description, device: stream.device)
        var engine = Engine(configuration: .default)
        var events: [EngineEvent] = []
        engine.addDevice(stream.device, at: stream.events[0].time, into: &events)
        for e in stream.events {
            if case .frame(let f)? = decoder.feed(e) {
                engine.tick(through: f.time, into: &events)
                engine.handle(f, into: &events)
            }
        }
        engine.tickUntilSettled(into: &events)
        var began = 0, completed = 0, cancelled = 0
        for event in events {
            switch event {
            case .gesture(let g) where g.state == .began: began += 1
            case .transition(let t) where t.phase == .completed: completed += 1
            case .transition(let t) where t.phase == .cancelled: cancelled += 1
            default: break
            }
        }
        return (began, completed, cancelled)
    }

    @Test func syntheticStreamSwipesFromAlternateEdgesAndEverySwipeCompletes() {
        let stream = BenchCorpus.synthetic(seconds: 8)
        let cycles = stream.events.filter { $0.type == EvdevType.key && $0.code == EvdevKey.btnTouch && $0.value == 1 }.count
        #expect(cycles >= 4 && cycles % 2 == 0)
        let result = outcome(of: stream)
        #expect(result.began == cycles)
        #expect(result.completed == cycles)
        #expect(result.cancelled == 0)
    }

    @Test func syntheticStreamMovesTenFingersInEveryActiveFrame() {
        let stream = BenchCorpus.synthetic(seconds: 2)
        var decoder = try! EvdevFrameDecoder(description: stream.description, device: stream.device)
        var tenFingerFrames = 0
        for e in stream.events {
            if case .frame(let f)? = decoder.feed(e), f.touches.count == 10, f.touches.allSatisfy({ $0.phase == .motion }) {
                tenFingerFrames += 1
            }
        }
        // Each cycle has about 360 frames with all ten fingers down and moving.
        #expect(tenFingerFrames > 600)
    }

    @Test func steadyStateDrivesOneTransitionWithTwoEventsPerFrame() {
        let steady = EngineSteadyState()
        #expect(steady.isDriving)
        for _ in 0..<500 { #expect(steady.step() == 2) }
        #expect(steady.isDriving)
    }

    @Test func pipelineOverTheDemoProducesEveryLine() {
        let p = Pipeline.run(BenchCorpus.demo())
        #expect(p.fed == BenchCorpus.demo().events.count)
        #expect(p.lines > 100)
        #expect(p.bytes > 10_000)
    }

    @Test func cyclicWorkloadsWrapAround() {
        let pipeline = CyclicPipeline(streams: [BenchCorpus.demo()])
        for _ in 0..<(pipeline.totalEvents * 2 + 10) { pipeline.step() }
        let swipes = EngineFullSwipes(seconds: 4)
        for _ in 0..<(swipes.frameCount * 2 + 10) { swipes.step() }
        #expect(swipes.produced > 0)
        let encoder = EncoderWorkload(seconds: 4)
        for _ in 0..<(encoder.count + 10) { encoder.step() }
    }
}
