import EdgeSwipeCore
@testable import EdgeSwipeInput
@testable import EdgeSwipeRecordings
import Testing

/// What the streamed readers of both formats must keep: a streamed recording reads the same devices as a loaded one,
/// plays to exactly the same events and fails with exactly the same error.
enum StreamedRecordingCheck {
    /// Every engine event of `recordings` played offline, as text, and the failures of streamed devices.
    static func play(_ recordings: [Recording]) -> (events: [String], failures: [RecordingError]) {
        var player = RecordingPlayer(recordings: recordings, options: RecordingPlayer.Options())
        var engine = Engine(configuration: .default)
        var out: [String] = []
        player.play(into: &engine) { out.append("\($0)") }
        return (out, player.streamFailures)
    }

    /// Loads and streams `path` (a file of `format`) and expects the same devices, events and errors.
    static func expectSameAsLoaded(_ path: String, format: Recording.Format, sourceLocation: SourceLocation = #_sourceLocation) {
        let loaded = Result { () throws(RecordingError) in try Recording.load(path: path) }
        let streamed = Result { () throws(RecordingError) in try Recording.stream(path: path) }
        switch (loaded, streamed) {
        case (.success(let l), .success(let s)):
            #expect(s.devices.map(\.description) == l.devices.map(\.description), sourceLocation: sourceLocation)
            #expect(s.devices.map(\.source) == l.devices.map(\.source), sourceLocation: sourceLocation)
            #expect(s.devices.allSatisfy { $0.events.isEmpty && $0.streamed?.format == format }, "streamed devices hold no events", sourceLocation: sourceLocation)
            #expect(s.devices.map { $0.streamed?.eventCount } == l.devices.map(\.events.count), sourceLocation: sourceLocation)
            #expect(s.firstEventTime == l.firstEventTime, sourceLocation: sourceLocation)
            let a = play([l]), b = play([s])
            #expect(b.failures.isEmpty, sourceLocation: sourceLocation)
            #expect(a.events == b.events, "\(a.events.count) events loaded, \(b.events.count) streamed", sourceLocation: sourceLocation)
        case (.failure(let l), .failure(let s)):
            #expect(l == s, sourceLocation: sourceLocation)
        default:
            Issue.record("loaded: \(loaded), streamed: \(streamed)", sourceLocation: sourceLocation)
        }
    }
}
