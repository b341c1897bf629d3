// libFuzzer target: the evemu parser alone (inline descriptions, `.desc` files, events). Parsing is cheap, so this
// target gets the executions the parser's branches need; `evemu-play` plays what parses.
// Checked, besides "no crash":
// - an error names the file, and the line when a line is to blame;
// - what parses is written back (`Evemu.write`, as the benchmarks and the demo do) to text that parses to the
//   same devices: name, input id, properties, event types, keys, axes, and every event.
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemuParse(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    do {
        let devices = try Evemu.parse(text, file: "fuzz.evemu")
        precondition(!devices.isEmpty, "a parse without devices must throw")
        for device in devices { checkEvemuRoundTrip(device) }
    } catch {
        checkRecordingError(error, file: "fuzz.evemu")
    }
    // The same text as a description file.
    do {
        _ = try Evemu.parseDescription(text, file: "fuzz.desc")
    } catch {
        checkRecordingError(error, file: "fuzz.desc")
    }
    return 0
}

private func checkEvemuRoundTrip(_ device: RecordedDevice) {
    let written = Evemu.write(device.description, events: device.events)
    let again: [RecordedDevice]
    do {
        again = try Evemu.parse(written, file: "written.evemu")
    } catch {
        preconditionFailure("what Evemu.write wrote does not parse: \(error)\n\(written.prefix(2000))")
    }
    precondition(again.count == 1, "one device written, \(again.count) read back")
    let a = device.description, b = again[0].description
    precondition(b.name == a.name, "name \(a.name.debugDescription) read back as \(b.name.debugDescription)")
    precondition(b.id == a.id, "input id changed")
    precondition(b.properties == a.properties, "properties changed")
    // The writer always sets EV_SYN, which every device has.
    precondition(b.eventTypes == a.eventTypes.union([EvdevType.syn]), "event types \(a.eventTypes.sorted()) read back as \(b.eventTypes.sorted())")
    precondition(b.keys == a.keys, "keys changed")
    precondition(b.absInfo == a.absInfo, "axes \(a.absInfo) read back as \(b.absInfo)")
    precondition(again[0].events == device.events, "events changed through writing")
}
