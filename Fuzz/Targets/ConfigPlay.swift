// libFuzzer target: a TOML configuration that parses drives an engine through the demo's first swipes (the
// bindings, zones, thresholds and animations it sets must never break the stream's invariants). Parsing and
// rendering alone are the `config` target's.
import EdgeSwipeConfig
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings

private let demo = DemoRecording.recording()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigPlay(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    guard let settings = try? ConfigParser.parse(text, file: "fuzz.toml") else { return 0 }
    var engine = Engine(configuration: settings.engine)
    var check = EngineStreamCheck()
    var player = RecordingPlayer(recordings: [demo], options: .init(removeDevicesAtEnd: true))
    var steps = 0
    var events: [EngineEvent] = []
    while steps < 400, let step = player.next() {
        RecordingPlayer.runDeadlines(of: &engine, before: step.time, into: &events)
        step.apply(to: &engine, into: &events)
        steps += 1
    }
    engine.removeDevice(DeviceID(1), at: engine.now, into: &events)
    RecordingPlayer.runDeadlines(of: &engine, before: nil, into: &events)
    for e in events { check.check(e) }
    check.checkQuiet(engine)
    return 0
}
