// libFuzzer target: the evemu parser (inline descriptions, `.desc` files, events), then whatever it accepts
// played through the recording player and an engine, with the stream invariants of EngineStreamCheck.
import EdgeSwipeCore
import EdgeSwipeInput

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    do {
        let devices = try Evemu.parse(text, file: "fuzz.evemu")
        precondition(!devices.isEmpty, "a parse without devices must throw")
        playAndCheck(trimmed(devices), format: .evemu)
    } catch {
        precondition(!error.description.isEmpty)
        precondition(error.description.hasPrefix("fuzz.evemu"), "an error must name the file: \(error)")
    }
    // The same text as a description file.
    _ = try? Evemu.parseDescription(text, file: "fuzz.desc")
    return 0
}
