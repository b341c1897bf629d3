// libFuzzer target: the TOML configuration parser. What it accepts must render back (`--check-config` prints the
// effective configuration) to text that parses to the same settings, and must drive an engine through a swipe.
import EdgeSwipeConfig
import EdgeSwipeCore
import EdgeSwipeInput

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    let settings: EdgeSwipeSettings
    do {
        settings = try ConfigParser.parse(text, file: "fuzz.toml")
    } catch {
        precondition(error.description.hasPrefix("fuzz.toml"), "an error must name the file: \(error)")
        return 0
    }
    let rendered = settings.renderTOML()
    do {
        let again = try ConfigParser.parse(rendered, file: "rendered.toml")
        precondition(again == settings, "the settings changed through rendering:\n\(rendered)")
    } catch {
        preconditionFailure("the rendered configuration does not parse: \(error)\n\(rendered)")
    }
    _ = try? settings.devices.filter()
    // One demo swipe with this configuration: the engine must end idle.
    var engine = Engine(configuration: settings.engine)
    var check = EngineStreamCheck()
    var player = RecordingPlayer(recordings: [DemoRecording.recording()], options: .init(removeDevicesAtEnd: true))
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
