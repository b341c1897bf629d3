import EdgeSwipeCore
import EdgeSwipeProtocol
import Foundation
import Glibc
import Testing

/// CPU time of this thread, so that a loaded machine does not distort the rate.
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Encoding throughput, for `EDGESWIPE_BENCHMARK=1 swift test -c release --filter EncodingBenchmark`.
@Suite("Encoding benchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["EDGESWIPE_BENCHMARK"] != nil, "set EDGESWIPE_BENCHMARK=1 to run"))
struct EncodingBenchmark {
    /// Swipes are the heavy case: every finger move is a gesture and a transition message with geometry.
    static let events = Scenario.everything().events.sent

    @Test("engine events to protocol lines, one event at a time, as edgeswipectl replay --json does")
    func linePerEvent() {
        var encoder = ProtocolLineEncoder()
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        let total = 2_000_000
        var bytes = 0
        let start = threadCPUSeconds()
        var i = 0
        while i < total {
            for e in Self.events where i < total {
                out.removeAll(keepingCapacity: true)
                encoder.encode(e, into: &out)
                bytes += out.count
                i += 1
            }
        }
        report("line per event", messages: total, bytes: bytes, since: start)
    }

    @Test("engine events to a shared batch plus one connection's lines, as the server does per publish")
    func batchAndLines() {
        var batch = EncodedBatch(capacity: 1 << 16)
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        let total = 2_000_000
        var bytes = 0
        var seq: UInt64 = 1
        let start = threadCPUSeconds()
        var i = 0
        while i < total {
            batch.removeAll()
            out.removeAll(keepingCapacity: true)
            for e in Self.events.prefix(total - i) { batch.append(e) }
            for m in 0..<batch.count {
                batch.appendLine(m, seq: seq, to: &out)
                seq += 1
            }
            bytes += out.count
            i += Self.events.count
        }
        report("batch + lines", messages: total, bytes: bytes, since: start)
    }

    func report(_ name: String, messages: Int, bytes: Int, since start: Double) {
        let seconds = threadCPUSeconds() - start
        let line = String(
            format: "%@: %d messages in %.3f s of CPU = %.0f messages/s, %.1f MB/s, %.0f bytes/message",
            name, messages, seconds, Double(messages) / seconds, Double(bytes) / seconds / 1e6, Double(bytes) / Double(messages))
        print(line)
        #expect(messages > 0)
    }
}
