// libFuzzer target: evemu text that parses, played through the recording player and an engine with the stream
// invariants of EngineStreamCheck. Inputs are capped (scripts/fuzz.sh: -max_len) at a few swipes' worth of events:
// longer recordings only repeat what a swipe already explores, and each one costs a whole engine run.
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemuPlay(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    // Parser errors are evemu-parse's business.
    guard let devices = try? Evemu.parse(text, file: "fuzz.evemu") else { return 0 }
    playAndCheck(trimmed(devices), format: .evemu)
    return 0
}
