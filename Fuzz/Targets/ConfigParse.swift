// libFuzzer target: the TOML configuration parser (our TOML reader, the settings). Our reader must agree with
// TOMLKit's toml++ (Tests/EdgeSwipeTOMLTests/TOMLKitOracle.swift, compiled in): what one reads the other reads
// to the same tree, what one refuses the other refuses (toml++ is not asked about text it would abort on). What
// parses must render back (`--check-config` prints the effective configuration) to text that parses to the same
// settings; an error must name the file. `config-play` drives an engine with what parses.
import EdgeSwipeConfig
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeTOML

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let text = String(decoding: bytes, as: UTF8.self)
    if bytes.elementsEqual(text.utf8) {
        checkAgainstTOMLKit(text)
    }
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
        // out, so its warning goes; a warning about what the settings mean (a 2-finger swipe binding reaches no
        // touchpad) says the same of the rendering. No warning is new.
        let before = Set(settings.warnings.map(\.problem.message))
        let new = again.warnings.filter { !before.contains($0.problem.message) }
        precondition(new.isEmpty, "the rendered configuration has new warnings: \(new)\n\(rendered)")
        var effective = settings, reread = again
        effective.warnings = []
        reread.warnings = []
        precondition(reread == effective, "the settings changed through rendering:\n\(rendered)")
    } catch {
        preconditionFailure("the rendered configuration does not parse: \(error)\n\(rendered)")
    }
    _ = try? DeviceFilter(parsingAllow: settings.devices.allow, deny: settings.devices.deny)
    return 0
}

/// Our reader's verdict and tree against toml++'s.
func checkAgainstTOMLKit(_ text: String) {
    guard let theirs = TOMLKitOracle.read(text) else { return }
    do {
        let ours = TOMLKitOracle.normalized(.table(try TOMLReader.read(text)))
        // Where toml++ departs from TOML 1.0.0 (TOMLKitOracle.departs lists where) the trees cannot be compared.
        if TOMLKitOracle.departs(ours: ours, theirs: theirs) { return }
        switch theirs {
        case .success(let tree): precondition(tree == ours, "TOMLKit read it to another tree:\n\(tree)\nours:\n\(ours)")
        case .failure(let error): preconditionFailure("TOMLKit refused what we read: \(error)")
        }
    } catch {
        // Past our nesting bound we refuse by design (toml++ has none): not a disagreement.
        if error.isBeyondLimit { return }
        if case .success(let tree) = theirs { preconditionFailure("we refused (\(error)) what TOMLKit read: \(tree)") }
    }
}
