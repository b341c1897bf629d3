import Foundation
import Testing

@Suite("Package layout")
struct PackageLayoutTests {
    /// Benchmarks/ is a package of its own that builds the root's modules from the same folders (the workloads are
    /// no product of the root): each library module it declares must be a link to the root's folder of that name.
    @Test("Benchmarks/ builds each module it declares from a link to the root's folder of that name")
    func benchmarkLinks() throws {
        let root = Paths.packageRoot
        let manifest = try String(contentsOf: root.appendingPathComponent("Benchmarks/Package.swift"), encoding: .utf8)
        let declared = try Manifest(manifest).targets.map(\.name)
        #expect(Set(declared) == [
            "CInput", "CYAML", "CSystemCalls", "EdgeSwipeVocabulary", "EdgeSwipeCore", "EdgeSwipeFingerScript", "EdgeSwipeSystem",
            "EdgeSwipeInput", "EdgeSwipeRecordings", "EdgeSwipeProtocol", "EdgeSwipeEngineWire", "EdgeSwipeBenchSupport",
            "EdgeSwipeBenchmarks",
        ])
        let linked = root.appendingPathComponent("Benchmarks/Sources")
        let libraries = declared.filter { $0 != "EdgeSwipeBenchmarks" }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: linked.path)) == Set(libraries))
        for name in libraries {
            let destination = try FileManager.default.destinationOfSymbolicLink(atPath: linked.appendingPathComponent(name).path)
            #expect(destination == "../../Sources/\(name)", "Benchmarks/Sources/\(name) -> \(destination)")
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources/\(name)").path, isDirectory: &isDirectory)
            #expect(exists && isDirectory.boolValue, "Sources/\(name) is not a folder of the root package")
        }
    }

    /// A link planted in a fake root's /etc/systemd before `postrm purge`, and whether the purge must take it.
    struct PlantedLink: Sendable, CustomTestStringConvertible {
        var path: String
        var target: String
        var removed: Bool
        var testDescription: String { "\(path) -> \(target)" }
    }

    /// Every unit the package ships (systemd/, systemd/user/, as the Makefile finds them) and an instance of each
    /// template, enabled and then left dangling by the purge: each link must go. Beside them, what is not the
    /// package's: each must stay (hostile-4 s13 saw the old `find -name 'edgeswiped*'` take the administrator's
    /// edgeswiped-exporter.service).
    static func plantedLinks() throws -> [PlantedLink] {
        func units(_ folder: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: Paths.packageRoot.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".service") || $0.hasSuffix(".socket") }.sorted()
        }
        var links: [PlantedLink] = []
        for (folder, etc, lib) in [("systemd", "etc/systemd/system", "/lib/systemd/system"), ("systemd/user", "etc/systemd/user", "/usr/lib/systemd/user")] {
            for unit in try units(folder) {
                let wants = unit.hasSuffix(".socket") ? "sockets.target.wants" : "default.target.wants"
                let named = unit.replacingOccurrences(of: "@.", with: "@seat1.")
                links.append(PlantedLink(path: "\(etc)/\(wants)/\(named)", target: "\(lib)/\(unit)", removed: true))
            }
        }
        #expect(links.count >= 7, "the units in systemd/ and systemd/user/: \(links)")
        links += [
            PlantedLink(path: "etc/systemd/system/edgeswiped.service", target: "../../../lib/systemd/system/edgeswiped.service", removed: true),
            // The administrator's: another unit whose name only starts like ours, dangling too.
            PlantedLink(path: "etc/systemd/system/edgeswiped-exporter.service", target: "/opt/not-mounted/edgeswiped-exporter.service", removed: false),
            PlantedLink(path: "etc/systemd/system/multi-user.target.wants/edgeswiped-exporter.service", target: "/opt/not-mounted/edgeswiped-exporter.service", removed: false),
            PlantedLink(path: "etc/systemd/user/default.target.wants/edgeswipe-tray.service", target: "/opt/not-mounted/edgeswipe-tray.service", removed: false),
            // Their own edgeswiped.service, a link to a file that is still there (in the fake root), and a mask.
            PlantedLink(path: "etc/systemd/system/multi-user.target.wants/edgeswiped.service", target: "/opt/mine/edgeswiped.service", removed: false),
            PlantedLink(path: "etc/systemd/system/edgeswiped-web.service", target: "/dev/null", removed: false),
            PlantedLink(path: "etc/systemd/system/edgeswiped@seat2.service", target: "/dev/null", removed: false),
        ]
        return links
    }

    @Test("postrm purge removes the package's own units' dangling links and nothing else (offline, in a fake root)")
    func purgeTakesOnlyItsOwnLinks() throws {
        let root = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let fm = FileManager.default
        let links = try Self.plantedLinks()
        for link in links {
            let at = root.appendingPathComponent(link.path)
            try fm.createDirectory(at: at.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.createSymbolicLink(atPath: at.path, withDestinationPath: link.target)
        }
        // What stays beside the links: the file one of them points at (DPKG_ROOT is where an absolute target is
        // looked up), a drop-in, and what a planted link in the state directory points at.
        try fm.createDirectory(at: root.appendingPathComponent("opt/mine"), withIntermediateDirectories: true)
        try "[Service]\n".write(to: root.appendingPathComponent("opt/mine/edgeswiped.service"), atomically: true, encoding: .utf8)
        try fm.createDirectory(at: root.appendingPathComponent("etc/systemd/system/edgeswiped.service.d"), withIntermediateDirectories: true)
        try "[Service]\n".write(to: root.appendingPathComponent("etc/systemd/system/edgeswiped.service.d/override.conf"), atomically: true, encoding: .utf8)
        try fm.createDirectory(at: root.appendingPathComponent("outside"), withIntermediateDirectories: true)
        try "keep".write(to: root.appendingPathComponent("outside/precious"), atomically: true, encoding: .utf8)
        try fm.createDirectory(at: root.appendingPathComponent("var/lib/edgeswipe/seat/seat1"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("var/lib/edgeswipe/seat/seat1/outside").path,
                                  withDestinationPath: root.appendingPathComponent("outside").path)

        let r = try run(URL(fileURLWithPath: "/bin/sh"), [Paths.packageRoot.appendingPathComponent("debian/edgeswipe.postrm").path, "purge"],
                        environment: ["DPKG_ROOT": root.path, "PATH": "/usr/bin:/bin"])
        #expect(r.status == 0, "\(r.stderr)")
        for link in links {
            let there = (try? fm.destinationOfSymbolicLink(atPath: root.appendingPathComponent(link.path).path)) != nil
            #expect(there == !link.removed, "\(link.path) -> \(link.target): \(there ? "still there" : "removed")")
        }
        #expect(fm.fileExists(atPath: root.appendingPathComponent("etc/systemd/system/edgeswiped.service.d/override.conf").path))
        #expect(fm.fileExists(atPath: root.appendingPathComponent("opt/mine/edgeswiped.service").path))
        #expect(!fm.fileExists(atPath: root.appendingPathComponent("var/lib/edgeswipe").path), "the state directory stayed")
        #expect((try? String(contentsOf: root.appendingPathComponent("outside/precious"), encoding: .utf8)) == "keep")
    }

    /// What links all of Foundation brings ICU with it (34 MB of data, and FoundationInternationalization): the
    /// clients once weighed 65-71 MB each for a `String(format:)`, a `Process` and Hummingbird's default traits.
    static let internationalization = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"]

    @Test("no tool links all of Foundation, and with it ICU: FoundationEssentials at most",
          arguments: ["edgeswiped", "edgeswipectl", "edgeswipe-web", "edgeswipe-session", "edgeswipe-clients"])
    func noInternationalization(_ product: String) throws {
        let binary = Paths.products.appendingPathComponent(product)
        let dynamic = try run(URL(fileURLWithPath: "/usr/bin/readelf"), ["-d", "-W", binary.path])
        #expect(dynamic.status == 0, "\(dynamic.stderr)")
        let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        if needed.contains(where: { $0.contains("libswiftCore.so") }) {
            // Linked against the toolchain's shared runtime (swift build's default): the libraries it loads.
            for library in Self.internationalization {
                #expect(!needed.contains { $0.contains("[\(library)]") }, "\(product) needs \(library)")
            }
        } else {
            // The runtime linked in (make's build): ICU's data and Foundation's types would be symbols of the binary.
            let symbols = try run(URL(fileURLWithPath: "/usr/bin/nm"), ["--defined-only", binary.path], timeoutSeconds: 120)
            #expect(symbols.status == 0, "\(symbols.stderr)")
            #expect(!symbols.stdout.contains("icudt"), "\(product) holds ICU's data")
            #expect(!symbols.stdout.contains("$s30FoundationInternationalization"), "\(product) holds FoundationInternationalization")
        }
    }

    /// The device libraries (libinput, libevdev, libudev, and through libinput's libwacom GLib) are the daemon's:
    /// the clients replay recordings and draw, but open no device. Linked into the multi-call binary they cost
    /// each client ~0.7 ms of start-up and the session 1.6 MB at rest; cairo's set cost 1.4 ms (docs/PACKAGING.md,
    /// "What each byte is").
    @Test("only the daemon links libinput, libevdev and libudev, and nothing links cairo (the overlay loads it)",
          arguments: [("edgeswiped", true), ("edgeswipectl", false), ("edgeswipe-web", false), ("edgeswipe-session", false), ("edgeswipe-clients", false)])
    func deviceLibraries(_ product: String, _ links: Bool) throws {
        let dynamic = try run(URL(fileURLWithPath: "/usr/bin/readelf"), ["-d", "-W", Paths.products.appendingPathComponent(product).path])
        #expect(dynamic.status == 0, "\(dynamic.stderr)")
        let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        for library in ["libinput.so", "libevdev.so", "libudev.so"] {
            #expect(needed.contains { $0.contains("[\(library)") } == links, "\(product) and \(library)")
        }
        // cairo is the overlay's, loaded when it starts (Sources/CCairo): no client pays for it at its start.
        #expect(!needed.contains { $0.contains("[libcairo.so") }, "\(product) links cairo")
    }

    /// What the toolchain brings, which no manifest declares.
    static let toolchainModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationXML", "FoundationNetworking", "Glibc", "Dispatch", "Synchronization",
        "Testing", "XCTest", "_Concurrency",
    ]

    /// Every module a target's Swift files import is one `Package.swift` lists among its dependencies (a target's own
    /// C modules included), so that no target builds by luck of another's dependencies.
    @Test("every target declares each module its sources import")
    func importsAreDeclared() throws {
        let root = Paths.packageRoot
        let manifest = try Manifest(String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8))
        #expect(manifest.targets.count > 30)
        for target in manifest.targets where target.kind != "systemLibrary" && target.kind != "plugin" {
            let imported = try Self.imports(under: root.appendingPathComponent(target.path))
            let undeclared = imported.subtracting(target.dependencies).subtracting(Self.toolchainModules).subtracting([target.name])
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared.sorted()) without declaring them")
        }
    }

    /// The client side never links the engine: the wire's words are the vocabulary's, and what turns engine events
    /// into messages is the daemon's side (EdgeSwipeEngineWire).
    @Test("the client modules and their executables depend on nothing that reaches EdgeSwipeCore", arguments: [
        "EdgeSwipeProtocol", "EdgeSwipeClient", "EdgeSwipeWeb", "EdgeSwipeWebTool", "edgeswipe-web", "EdgeSwipeSessionModel",
        "EdgeSwipeSession", "EdgeSwipeSessionTool", "edgeswipe-session",
    ])
    func clientsWithoutTheEngine(_ client: String) throws {
        let manifest = try Manifest(String(contentsOf: Paths.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8))
        let byName = Dictionary(manifest.targets.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var reached: Set<String> = []
        var pending = [client]
        while let name = pending.popLast() {
            for dependency in byName[name]?.dependencies ?? [] where byName[dependency] != nil && reached.insert(dependency).inserted {
                pending.append(dependency)
            }
        }
        #expect(byName[client] != nil)
        #expect(!reached.contains("EdgeSwipeCore"), "\(client) reaches the core through \(reached.sorted())")
    }

    /// The modules the Swift files under `folder` import (`import X`, with any access level or `@testable`).
    static func imports(under folder: URL) throws -> Set<String> {
        let pattern = try NSRegularExpression(
            pattern: #"^\s*(?:@testable\s+|@_exported\s+)?(?:public\s+|package\s+|internal\s+)?import\s+([A-Za-z_][A-Za-z0-9_]*)\s*$"#,
            options: .anchorsMatchLines)
        var out: Set<String> = []
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return out }
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let r = Range(m.range(at: 1), in: text) { out.insert(String(text[r])) }
            }
        }
        return out
    }
}

/// The targets a `Package.swift` declares, read from its text: each `.target(`, `.executableTarget(`, `.testTarget(`,
/// `.systemLibrary(` or `.plugin(` call, its `name`, the modules its `dependencies` list (a target by name, a
/// product by its name, which is its module's here), and its folder (`path`, else `Sources/` or `Tests/` and the name).
struct Manifest {
    struct Target {
        var kind: String
        var name: String
        var dependencies: Set<String>
        var path: String
    }

    var targets: [Target] = []

    init(_ text: String) throws {
        let call = try NSRegularExpression(pattern: #"\.(target|executableTarget|testTarget|systemLibrary|plugin)\(\s*name:\s*"([^"]+)""#)
        let product = try NSRegularExpression(pattern: #"\.product\(\s*name:\s*"([^"]+)"[^)]*\)"#)
        let quoted = try NSRegularExpression(pattern: #""([^"]+)""#)
        let path = try NSRegularExpression(pattern: #"path:\s*"([^"]+)""#)
        let chars = Array(text.utf16)
        for m in call.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let kindRange = Range(m.range(at: 1), in: text), let nameRange = Range(m.range(at: 2), in: text) else { continue }
            let kind = String(text[kindRange])
            let name = String(text[nameRange])
            // The call's arguments: from its "(" (the match's first) to the one that closes it.
            let matched = Array((text as NSString).substring(with: m.range).utf16)
            guard let paren = matched.firstIndex(of: 40) else { continue }
            let body = Self.balanced(chars, from: m.range.location + paren + 1, open: 40, close: 41)
            // `.plugin(name:, package:)` in a target's `plugins` uses another package's plugin; a declaration has a
            // capability.
            if kind == "plugin" && !body.contains("capability:") { continue }
            var dependencies: Set<String> = []
            if let list = body.range(of: "dependencies:").map({ body[$0.upperBound...] }), let bracket = list.firstIndex(of: "[") {
                let listChars = Array(String(list[bracket...]).utf16)
                let items = Self.balanced(listChars, from: 1, open: 91, close: 93)
                for p in product.matches(in: items, range: NSRange(items.startIndex..., in: items)) {
                    if let r = Range(p.range(at: 1), in: items) { dependencies.insert(String(items[r])) }
                }
                let names = product.stringByReplacingMatches(in: items, range: NSRange(items.startIndex..., in: items), withTemplate: "")
                for q in quoted.matches(in: names, range: NSRange(names.startIndex..., in: names)) {
                    if let r = Range(q.range(at: 1), in: names) { dependencies.insert(String(names[r])) }
                }
            }
            let folder =
                path.firstMatch(in: body, range: NSRange(body.startIndex..., in: body)).flatMap { Range($0.range(at: 1), in: body) }
                .map { String(body[$0]) } ?? (kind == "testTarget" ? "Tests/\(name)" : kind == "plugin" ? "Plugins/\(name)" : "Sources/\(name)")
            targets.append(Target(kind: kind, name: name, dependencies: dependencies, path: folder))
        }
    }

    /// The text from `start` up to the `close` that balances the `open` before it.
    static func balanced(_ chars: [UInt16], from start: Int, open: UInt16, close: UInt16) -> String {
        var depth = 1
        var i = start
        while i < chars.count {
            if chars[i] == open { depth += 1 } else if chars[i] == close { depth -= 1; if depth == 0 { break } }
            i += 1
        }
        return String(decoding: chars[start..<min(i, chars.count)], as: UTF16.self)
    }
}
