// In-process benchmarks of the daemon's per-event work, with ordo-one/benchmark's malloc interposer.
//
//     cd Benchmarks && swift package benchmark
//
// Every benchmark measures one unit per inner iteration and uses `.kilo` scaling, so each figure (time,
// mallocs) is per unit: per evdev event, per engine input (a frame), or per protocol message, as its name says.
// The workloads live in EdgeSwipeBenchSupport, shared with `edgeswipe-bench`, which prints the headline
// figures as JSON. docs/PERFORMANCE.md has the results and how they compare with the budget.

import Benchmark
import EdgeSwipeBenchSupport
import Foundation

/// The real recordings of the development tree (`../shared/recordings`), or the bundled demo when absent.
private func recordedStreams() -> [DeviceStream] {
    if let dir = BenchCorpus.findRecordings(from: FileManager.default.currentDirectoryPath, explicit: ProcessInfo.processInfo.environment["EDGESWIPE_RECORDINGS"]) {
        let found = BenchCorpus.recordings(in: dir).streams
        if !found.isEmpty { return found }
    }
    return [BenchCorpus.demo()]
}

// Built on first use, which is the first (warm-up) iteration of the benchmark that uses it, so no setup is
// measured. Each benchmark runs on the runner's one thread.
nonisolated(unsafe) let realPipeline = CyclicPipeline(streams: recordedStreams())
nonisolated(unsafe) let syntheticPipeline = CyclicPipeline(streams: [BenchCorpus.synthetic(seconds: 20)])
nonisolated(unsafe) let syntheticDecoder = CyclicDecoder(stream: BenchCorpus.synthetic(seconds: 20))
nonisolated(unsafe) let steadyState = EngineSteadyState()
nonisolated(unsafe) let wholeSwipes = EngineFullSwipes(seconds: 20)
nonisolated(unsafe) let encoder = EncoderWorkload(seconds: 20)

let metrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .mallocBytesCount]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: metrics,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 10_000
    )

    Benchmark("Pipeline: real recordings, per evdev event (decode, recognize, engine, encode)") { benchmark in
        for _ in benchmark.scaledIterations { realPipeline.step() }
    }

    Benchmark("Pipeline: synthetic 10-finger 240 Hz, per evdev event (decode, recognize, engine, encode)") { benchmark in
        for _ in benchmark.scaledIterations { syntheticPipeline.step() }
    }

    Benchmark("Decode: synthetic 10-finger 240 Hz, per evdev event") { benchmark in
        for _ in benchmark.scaledIterations { syntheticDecoder.step() }
    }

    // The budget's allocs_per_event: 0. `swift package benchmark thresholds check` fails if it ever allocates.
    Benchmark(
        "Engine steady state: recognizer + engine, per frame of 10 motions",
        configuration: .init(thresholds: [.mallocCountTotal: BenchmarkThresholds(absolute: [.p0: 0, .p50: 0, .p100: 0])])
    ) { benchmark in
        for _ in benchmark.scaledIterations { steadyState.step() }
    }

    Benchmark("Engine whole swipes: recognizer + engine, per frame (begin, release, run-out, completion)") { benchmark in
        for _ in benchmark.scaledIterations { wholeSwipes.step() }
    }

    Benchmark("Encoder: ProtocolLineEncoder, per message") { benchmark in
        for _ in benchmark.scaledIterations { encoder.step() }
    }
}
