// libFuzzer target: `libinput record` YAML that parses, played through the recording player and an engine with the
// stream invariants of EngineStreamCheck. Inputs are capped (scripts/fuzz.sh: -max_len) at a few swipes' worth.
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLibinputRecordPlay(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    // Parser errors are libinput-record-parse's business.
    guard let devices = try? LibinputRecord.parse(text, file: "fuzz.yaml") else { return 0 }
    playAndCheck(trimmed(devices), format: .libinputRecord)
    return 0
}
