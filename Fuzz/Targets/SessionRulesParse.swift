// libFuzzer target: the session's rules reader (`session.toml`: `Sources/EdgeSwipeSessionModel/SessionRules.swift`,
// with its key chords and `[overlay]` table, compiled into this harness).
//
// Input: the text of a rules file. Checked, besides "no crash": the text is refused with an error that names the
// file and a line of it (1 up to the number of lines, plus one for an end of file that is missing something), or
// rules come out, each placed at a line of the file, and parsing the same text again gives the same rules.
import EdgeSwipeProtocol
import EdgeSwipeTOML

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSessionRules(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    // Counted in bytes: "\r\n" is one Character, which a split at "\n" would not see.
    let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    do throws(ConfigError) {
        let set = try SessionRulesParser.parse(text, file: "fuzz.toml")
        // The file's own rules; the built-in ones after them (unless `defaults = false`) are the program's.
        precondition(set.rules.count == set.fileRules.count + set.builtIn.count, "rules besides the file's and the built-in ones")
        for rule in set.builtIn { precondition(rule.isBuiltIn, "a built-in rule placed at \(rule.place)") }
        for rule in set.fileRules {
            precondition(rule.place.hasPrefix("fuzz.toml:"), "rule '\(rule.name)' placed at \(rule.place)")
            let line = Int(rule.place.dropFirst("fuzz.toml:".count)) ?? 0
            precondition((1...max(1, lines)).contains(line), "rule '\(rule.name)' at \(rule.place), in a file of \(lines) lines")
            if let step = rule.step { precondition(step.isFinite && step > 0, "rule '\(rule.name)' steps by \(step)") }
        }
        do throws(ConfigError) {
            let again = try SessionRulesParser.parse(text, file: "fuzz.toml")
            precondition(again == set, "the same text gave other rules")
        } catch { preconditionFailure("the same text was refused the second time: \(error)") }
    } catch {
        precondition(error.file == "fuzz.toml", "an error names \(error.file)")
        if !error.isUnreadable {
            guard let line = error.line else { preconditionFailure("an error without a line: \(error)") }
            precondition((1...max(1, lines + 1)).contains(line), "an error at line \(line) of \(lines): \(error)")
        }
        precondition(!error.message.isEmpty, "an error without a message")
    }
    return 0
}
