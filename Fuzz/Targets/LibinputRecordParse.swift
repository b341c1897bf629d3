// libFuzzer target: the `libinput record` (YAML) parser alone; `libinput-record-play` plays what parses.
// Checked, besides "no crash": an error names the file; every device that parses has a description and events in
// file order of their own (the parser keeps each device's rows together).
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLibinputRecordParse(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    do {
        let devices = try LibinputRecord.parse(text, file: "fuzz.yaml")
        precondition(!devices.isEmpty, "a parse without devices must throw")
        for device in devices {
            precondition(device.source.hasPrefix("fuzz.yaml"), "a device must name its file: \(device.source)")
        }
    } catch {
        checkRecordingError(error, file: "fuzz.yaml")
    }
    return 0
}
