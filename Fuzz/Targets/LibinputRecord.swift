// libFuzzer target: the `libinput record` (YAML) parser, then whatever it accepts played through the recording
// player and an engine, with the stream invariants of EngineStreamCheck.
import EdgeSwipeCore
import EdgeSwipeInput

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLibinputRecord(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    do {
        let devices = try LibinputRecord.parse(text, file: "fuzz.yaml")
        precondition(!devices.isEmpty, "a parse without devices must throw")
        playAndCheck(trimmed(devices), format: .libinputRecord)
    } catch {
        precondition(error.description.hasPrefix("fuzz.yaml"), "an error must name the file: \(error)")
    }
    return 0
}
