import EdgeSwipeConfig
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `edgeswipectl plot`, run as a real subprocess; its figures checked against the engine's own numbers.
@Suite("edgeswipectl plot")
struct PlotCommandTests {
    /// The elements of an SVG with a `class`, by class, with their attributes; nil when it is not well-formed XML.
    static func classes(_ svg: Data) -> [String: [[String: String]]]? {
        let parser = XMLParser(data: svg)
        let collector = ClassCollector()
        parser.delegate = collector
        return parser.parse() ? collector.byClass : nil
    }

    /// The engine's release judgements for a recording, replayed in process with the same configuration.
    static func engineJudgements(_ path: String, settings: EdgeSwipeSettings = .default) throws -> [ReleaseJudgement] {
        var player = RecordingPlayer(
            recordings: [try Recording.load(path: path)],
            options: RecordingPlayer.Options(setup: settings.devices.setup(for: settings.engine)))
        var engine = Engine(configuration: settings.engine)
        var judgements: [ReleaseJudgement] = []
        player.play(into: &engine) { event in
            if case .interaction(let i) = event, let d = i.decision { judgements.append(d) }
        }
        return judgements
    }

    @Test("the demo's plot is well-formed, has one percent curve per transition, and draws the engine's projections")
    func demo() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("demo.svg")
        let r = try run(Paths.edgeswipectl, ["plot", Paths.demo.path, "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try Data(contentsOf: out)
        let elements = try #require(Self.classes(svg), "the SVG parses as XML")
        // The demo runs six transitions (ReplayCommandTests): one curve, one release and one run-out each.
        let curves = elements["percent-curve"] ?? []
        #expect(curves.count == 6)
        #expect(Set(curves.compactMap { $0["data-transition"] }) == Set((1...6).map(String.init)))
        #expect(elements["release"]?.count == 6)
        #expect(elements["run-out"]?.count == 6)
        let drawn = (elements["projection"] ?? []).compactMap { $0["data-projected"].flatMap(Double.init) }
        let engine = try Self.engineJudgements(Paths.demo.path).map(\.projected.value)
        #expect(drawn == engine, "the arrows end where the engine projected")
        #expect(engine.count == 6)
        // The last swipe is the flick: released at 35 %, projected far past the threshold.
        #expect((engine.last ?? 0) > 1)
        // Every figure says what it is and in which unit.
        let text = String(decoding: svg, as: UTF8.self)
        for label in ["x (mm)", "y (mm, downward)", "time since start (ms)", "velocity (%/s)", "1. Touches", "2. Percent", "3. Release velocity", "4. Swipes"] {
            #expect(text.contains(label), "missing \(label)")
        }
        #expect(elements["zone"]?.count == 4, "the demo's four bound edges are shaded")
        #expect(elements["finger"]?.count == 6)
    }

    /// Issue 37: the titles were cut (`(top e…`) and each decision's label sat on its panel's curves.
    @Test("each percent panel says in full what ran and what drove it, and its decision above the plot, clear of the curves")
    func panelsAreReadable() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("demo.svg")
        let r = try run(Paths.edgeswipectl, ["plot", Paths.demo.path, Paths.touchpadDemo.path, "--in-turn", "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let elements = try #require(Self.classes(try Data(contentsOf: out)))
        let titles = (elements["panel-title"] ?? []).compactMap { $0["#text"] }
        #expect(titles.count == 9)
        #expect(titles.allSatisfy { !$0.contains("…") }, "\(titles)")
        #expect(titles.contains("#3 present in overlay: shell → notifications"), "\(titles)")
        let decisions = elements["decision"] ?? []
        let curves = elements["percent-curve"] ?? []
        #expect(decisions.count == 9 && curves.count == 9)
        #expect(decisions.last?["#text"] == "projected 28% < 50% → cancel", "\(decisions.map { $0["#text"] ?? "" })")
        for (decision, curve) in zip(decisions, curves) {
            // The curve's points, `x,y` pairs of its path: the label's baseline is above all of them.
            let numbers = (curve["d"] ?? "").split { !"0123456789.-".contains($0) }.compactMap { Double($0) }
            let top = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }.min() ?? 0
            let baseline = Double(decision["y"] ?? "") ?? .infinity
            #expect(baseline < top - 4, "transition \(curve["data-transition"] ?? "?"): the label at y \(baseline), the curve from y \(top)")
        }
    }

    @Test("a blocked swipe is listed with its reason")
    func blocked() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The demo's first swipe selects the tab left of home; starting on the first tab, there is none.
        let defaults = try String(contentsOf: Paths.packageRoot.appendingPathComponent("config/default.toml"), encoding: .utf8)
        let config = dir.appendingPathComponent("first-tab.toml")
        try defaults.replacingOccurrences(of: "selected = \"home\"", with: "selected = \"launcher\"").write(to: config, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("blocked.svg")
        let r = try run(Paths.edgeswipectl, ["plot", Paths.demo.path, "--config", config.path, "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try Data(contentsOf: out)
        let elements = try #require(Self.classes(svg))
        #expect(elements["attempt"]?.contains { $0["data-outcome"] == "blocked" } == true)
        #expect(String(decoding: svg, as: UTF8.self).contains("blocked: no applicable binding"))
    }

    /// `-o` names and where the PNG lands: an `.svg` name asks for an SVG, so the PNG goes beside it as `.png`.
    static let pngOutputs: [(asked: String, written: String, note: Bool)] = [
        ("demo.png", "demo.png", false),
        ("demo.svg", "demo.png", true),
        ("Demo.SVG", "Demo.png", true),
        ("demo", "demo", false),
    ]

    @Test("--png writes a PNG through rsvg-convert, or says what to install", arguments: pngOutputs)
    func png(_ asked: String, _ written: String, _ note: Bool) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent(asked)
        let haveRsvg = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].contains { FileManager.default.isExecutableFile(atPath: $0) }
        // scripts/deps.sh installs rsvg-convert (librsvg2-bin); CI must run the conversion.
        try #require(haveRsvg || ProcessInfo.processInfo.environment["CI"] == nil, "CI without rsvg-convert: scripts/deps.sh installs librsvg2-bin")
        if haveRsvg {
            let r = try run(Paths.edgeswipectl, ["plot", Paths.demo.path, "--png", "-o", out.path])
            #expect(r.status == 0, "\(r.stderr)")
            let bytes = try Data(contentsOf: dir.appendingPathComponent(written))
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG signature")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [written], "nothing else is written")
            #expect(r.stderr.contains("writing \(dir.appendingPathComponent(written).path)") == note, "\(r.stderr)")
        }
        // Without rsvg-convert on the PATH: a clear error and exit 69, whatever is installed.
        let r = try run(Paths.edgeswipectl, ["plot", Paths.demo.path, "--png", "-o", out.path + ".2"], environment: ["PATH": dir.path])
        #expect(r.status == 69)
        #expect(r.stderr.contains("librsvg2-bin"), "\(r.stderr)")
    }

    @Test("bad input: the place, the reason, a non-zero exit, and no plot")
    func badInput() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("x.svg")
        let missing = try run(Paths.edgeswipectl, ["plot", dir.appendingPathComponent("nope.evemu").path, "-o", out.path])
        #expect(missing.status == 66)
        let bad = dir.appendingPathComponent("bad.evemu")
        try "E: 0.000100 0003 0035 10\n".write(to: bad, atomically: true, encoding: .utf8)
        let parsed = try run(Paths.edgeswipectl, ["plot", bad.path, "-o", out.path])
        #expect(parsed.status == 65)
        #expect(parsed.stderr.contains(":1: "), "\(parsed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let unwritable = try run(Paths.edgeswipectl, ["plot", Paths.demo.path, "-o", dir.appendingPathComponent("no/such/dir.svg").path])
        #expect(unwritable.status == 73)
    }

    /// The status `edgeswipectl --help` gives for "the output file could not be written".
    static func documentedOutputStatus(in text: String) -> Int32? {
        guard let range = text.range(of: #"(\d+) the output file could not be written"#, options: .regularExpression) else { return nil }
        return Int32(text[range].prefix { $0.isNumber })
    }

    @Test(
        "an output that cannot be written exits with the status --help and the README give for it",
        arguments: ["/dev/full", "DIR", "DIR/no/such/folder/x.svg"])
    func unwritableOutput(_ output: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let help = try run(Paths.edgeswipectl, ["--help"])
        // Both wrap their lines where they like.
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let helpStatus = try #require(Self.documentedOutputStatus(in: words(help.stdout)), "\(help.stdout)")
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(Self.documentedOutputStatus(in: words(readme)) == helpStatus, "the README's edgeswipectl exit statuses agree with --help")
        let path = output.replacingOccurrences(of: "DIR", with: dir.path)
        let r = try run(Paths.edgeswipectl, ["plot", Paths.demo.path, "-o", path])
        #expect(r.status == helpStatus, "\(path): \(r.stderr)")
        #expect(r.stderr.contains("cannot write the plot"), "\(r.stderr)")
    }

    @Test("replay onto a standard output that cannot be written exits 74, as --help and the README say")
    func unwritableStandardOutput() throws {
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let help = words(try run(Paths.edgeswipectl, ["--help"]).stdout)
        let readme = words(try String(contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8))
        #expect(help.contains("74 standard output could not be written"), "\(help)")
        #expect(readme.contains("74 standard output could not be written"))
        let r = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "'\(Paths.edgeswipectl.path)' replay '\(Paths.demo.path)' --json > /dev/full"])
        #expect(r.status == 74, "\(r.stderr)")
    }

    @Test("plot -o writes a new file and renames it into place: a planted symbolic link is refused and its target untouched; a hard link keeps the old content")
    func outputIsReplacedNotWrittenThrough() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let victim = dir.appendingPathComponent("victim")
        try "IMPORTANT\n".write(to: victim, atomically: false, encoding: .utf8)
        let link = dir.appendingPathComponent("plot.svg")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        let refused = try run(Paths.edgeswipectl, ["plot", Paths.demo.path, "-o", link.path])
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.contains("symbolic link"), "\(refused.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "IMPORTANT\n")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == victim.path, "the link is left as it was")

        // A regular file is replaced by a new one: a second name for the old one still reads the old content.
        let out = dir.appendingPathComponent("out.svg")
        try "old\n".write(to: out, atomically: false, encoding: .utf8)
        let other = dir.appendingPathComponent("other-name")
        try FileManager.default.linkItem(at: out, to: other)
        let written = try run(Paths.edgeswipectl, ["plot", Paths.demo.path, "-o", out.path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try String(contentsOf: out, encoding: .utf8).contains("<svg"))
        #expect(try String(contentsOf: other, encoding: .utf8) == "old\n")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "no temporary file is left: \(left)")
    }
}

private final class ClassCollector: NSObject, XMLParserDelegate {
    var byClass: [String: [[String: String]]] = [:]
    /// The class element whose text is being read (its text goes in its `#text`).
    private var open: (String, Int)?
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        guard let c = attributes["class"] else { return }
        byClass[c, default: []].append(attributes)
        open = (c, byClass[c, default: []].count - 1)
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard let (c, i) = open else { return }
        byClass[c]?[i]["#text", default: ""] += string
    }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { open = nil }
}
