import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings
import EdgeSwipeTestSupport
import Foundation
import Testing

/// The fuzzers' committed seeds (`Fuzz/corpus/`) are only worth their place if they are what they claim: real
/// shapes the parsers accept, and for the play targets, input that drives gestures. A format change that made them
/// all errors would leave the fuzzers exploring error paths; these tests say so instead. Inputs the fuzzers found
/// (`Fuzz/Regressions/`) are replayed here too.
@Suite("Fuzzing corpus and regressions: recordings")
struct FuzzCorpusTests {
    /// The seeds of a folder: every file but the `found-*` inputs `scripts/fuzz.sh --merge` folded in from long runs,
    /// which reach new code and need not parse (`found: true` gives those alone).
    static func files(_ folder: String, found: Bool = false) -> [URL] {
        let url = Fixtures.packageRoot.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasPrefix("found-") == found }.sorted().map { url.appendingPathComponent($0) }
    }

    static func text(_ url: URL) throws -> String { String(decoding: try Data(contentsOf: url), as: UTF8.self) }

    @Test("every evemu seed parses: recordings as recordings, descriptions as descriptions", arguments: ["evemu-parse", "evemu-play"])
    func evemuSeedsParse(_ target: String) throws {
        let seeds = Self.files("Fuzz/corpus/\(target)")
        #expect(seeds.count >= 10, "\(target) has \(seeds.count) seeds")
        for url in seeds {
            let text = try Self.text(url)
            if url.pathExtension == "desc" {
                #expect(throws: Never.self, "\(url.lastPathComponent)") { _ = try Evemu.parseDescription(text, file: url.lastPathComponent) }
            } else {
                let devices = try Evemu.parse(text, file: url.lastPathComponent)
                #expect(devices.count == 1 && !devices[0].events.isEmpty, "\(url.lastPathComponent)")
            }
        }
    }

    @Test("every libinput record seed parses, with events", arguments: ["libinput-record-parse", "libinput-record-play"])
    func libinputRecordSeedsParse(_ target: String) throws {
        let seeds = Self.files("Fuzz/corpus/\(target)")
        #expect(seeds.count >= 5, "\(target) has \(seeds.count) seeds")
        for url in seeds {
            let devices = try LibinputRecord.parse(try Self.text(url), file: url.lastPathComponent)
            #expect(devices.contains { !$0.events.isEmpty }, "\(url.lastPathComponent)")
        }
    }

    @Test("the play seeds drive gestures: the edge swipes among them begin a transition")
    func playSeedsSwipe() throws {
        var began: [String] = []
        for url in Self.files("Fuzz/corpus/evemu-play") {
            let recording = Recording(path: url.path, format: .evemu, devices: try Evemu.parse(try Self.text(url), file: url.path))
            var player = RecordingPlayer(recordings: [recording], options: .init(removeDevicesAtEnd: true))
            var engine = Engine(configuration: .default)
            var transitions = 0
            player.play(into: &engine) { event in
                if case .transition(let t) = event, t.phase == .began, !t.isProgress { transitions += 1 }
            }
            if transitions > 0 { began.append(url.deletingPathExtension().lastPathComponent) }
        }
        // The demo's first swipe and the Intuos5's two-finger swipe from the left edge fit in their slices.
        #expect(Set(["demo", "intuos5-edge-swipe"]).isSubset(of: began), "\(began)")
    }

    @Test("inputs the fuzzers found (regressions, and what long runs folded into the parsers' corpora) are rejected or read, never a crash, and errors name the file",
          arguments: ["evemu", "libinput-record"])
    func regressions(_ family: String) throws {
        let found = Self.files("Fuzz/corpus/\(family)-parse", found: true)
        for url in Self.files("Fuzz/Regressions/\(family)") + found {
            let name = url.lastPathComponent
            let text = try Self.text(url)
            do {
                let devices = family == "evemu" ? try Evemu.parse(text, file: name) : try LibinputRecord.parse(text, file: name)
                if family == "evemu" {
                    // evemu-parse's oracle: what parses is written back to text that parses to the same devices.
                    for device in devices {
                        let again = try Evemu.parse(Evemu.write(device.description, events: device.events), file: "written")
                        #expect(again.map(\.description.absInfo) == [device.description.absInfo], "\(name)")
                        #expect(again.map(\.description.keys) == [device.description.keys], "\(name)")
                        #expect(again.map(\.events) == [device.events], "\(name)")
                    }
                }
                let recording = Recording(path: name, format: family == "evemu" ? .evemu : .libinputRecord, devices: devices)
                var player = RecordingPlayer(recordings: [recording], options: .init(removeDevicesAtEnd: true))
                var engine = Engine(configuration: .default)
                player.play(into: &engine) { _ in }
                #expect(engine.isIdle, "\(name): the engine is busy after the recording ended")
            } catch {
                #expect(error.description.hasPrefix(name), "\(error)")
            }
        }
    }
}
