// libFuzzer target: the TOML configuration parser (our pre-check, TOMLKit's toml++, the settings). What it accepts
// must render back (`--check-config` prints the effective configuration) to text that parses to the same settings;
// an error must name the file. `config-play` drives an engine with what parses.
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
        // The rendering is the effective configuration: a deprecated key (a warning) has no effect and is left
        // out, so the warnings go and everything else stays.
        precondition(again.warnings.isEmpty, "the rendered configuration has warnings: \(again.warnings)\n\(rendered)")
        var effective = settings
        effective.warnings = []
        precondition(again == effective, "the settings changed through rendering:\n\(rendered)")
    } catch {
        preconditionFailure("the rendered configuration does not parse: \(error)\n\(rendered)")
    }
    _ = try? DeviceFilter(parsingAllow: settings.devices.allow, deny: settings.devices.deny)
    return 0
}
