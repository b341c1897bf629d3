import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Foundation
import Testing

/// Encoding throughput, for `EDGESWIPE_BENCHMARK=1 swift test -c release --filter EncodingBenchmark`.
@Suite("Encoding benchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["EDGESWIPE_BENCHMARK"] != nil, "set EDGESWIPE_BENCHMARK=1 to run"))
struct EncodingBenchmark {
    /// Swipes are the heavy case: every finger move is a gesture and a transition message with geometry.
    static let events = Scenario.everything().events.sent

    /// What `edgeswipectl replay --json` prints for one pass over the events: the lines both loops must produce.
    static let reference: [UInt8] = {
        var encoder = ProtocolLineEncoder()
        var out: [UInt8] = []
        encoder.encode(events, into: &out)
        return out
    }()
    static var referenceLines: Int { reference.count { $0 == UInt8(ascii: "\n") } }

    @Test("engine events to protocol lines, one event at a time, as edgeswipectl replay --json does")
    func linePerEvent() throws {
        var encoder = ProtocolLineEncoder()
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        var firstPass: [UInt8] = []
        let passes = max(1, 2_000_000 / Self.events.count)
        var bytes = 0
        let start = ThreadCPUClock.seconds()
        for pass in 0..<passes {
            for e in Self.events {
                out.removeAll(keepingCapacity: true)
                encoder.encode(e, into: &out)
                if pass == 0 { firstPass += out }
                bytes += out.count
            }
        }
        // Each line takes one seq.
        let lines = Int(encoder.nextSeq) - 1
        report("line per event", messages: lines, bytes: bytes, since: start)
        // One event at a time gives the very lines of the whole run encoded at once, on every pass.
        #expect(firstPass == Self.reference)
        #expect(lines == passes * Self.referenceLines)
        try Self.expectWellFormed(firstPass, lines: Self.referenceLines)
    }

    @Test("engine events to a shared batch plus one connection's lines, as the server does per publish")
    func batchAndLines() throws {
        var batch = EncodedBatch(capacity: 1 << 16)
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        var firstPass: [UInt8] = []
        let passes = max(1, 2_000_000 / Self.events.count)
        var lines = 0
        var bytes = 0
        var seq: UInt64 = 1
        let start = ThreadCPUClock.seconds()
        for pass in 0..<passes {
            batch.removeAll()
            out.removeAll(keepingCapacity: true)
            for e in Self.events { batch.append(e) }
            for m in 0..<batch.count {
                batch.appendLine(m, seq: seq, to: &out)
                seq += 1
            }
            if pass == 0 { firstPass = out }
            bytes += out.count
            lines += batch.count
        }
        report("batch + lines", messages: lines, bytes: bytes, since: start)
        // The server's path sends a connection subscribed to everything the same lines as replay --json.
        #expect(firstPass == Self.reference)
        #expect(lines == passes * Self.referenceLines)
        try Self.expectWellFormed(firstPass, lines: Self.referenceLines)
    }

    /// Every line is one JSON object with a type and a gap-free `seq` from 1.
    static func expectWellFormed(_ bytes: [UInt8], lines expected: Int) throws {
        let lines = bytes.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == expected)
        #expect(bytes.last == UInt8(ascii: "\n"))
        for (i, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            #expect(object["seq"] as? Int == i + 1)
            #expect((object["type"] as? String)?.isEmpty == false)
        }
    }

    func report(_ name: String, messages: Int, bytes: Int, since start: Double) {
        let seconds = ThreadCPUClock.seconds() - start
        let line = String(
            format: "%@: %d messages in %.3f s of CPU = %.0f messages/s, %.1f MB/s, %.0f bytes/message",
            name, messages, seconds, Double(messages) / seconds, Double(bytes) / seconds / 1e6, Double(bytes) / Double(messages))
        print(line)
    }
}
