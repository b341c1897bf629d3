import EdgeSwipeConfig
import EdgeSwipeCore
import Foundation
import Testing

@Suite("edgeswiped command line")
struct CommandLineTests {
    @Test("--version prints the version, the same for every tool", arguments: ["edgeswiped", "edgeswipectl", "edgeswipe-web"])
    func version(_ tool: String) throws {
        let r = try run(Paths.products.appendingPathComponent(tool), ["--version"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == EdgeSwipeVersion.string)
    }

    @Test("--check-config accepts the shipped default and prints the effective configuration")
    func checkDefault() throws {
        let r = try run(Paths.edgeswiped, ["--check-config", Paths.packageRoot.appendingPathComponent("config/default.toml").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("[[bindings]]"))
        #expect(r.stdout.contains("tick_hz = 120"))
    }

    @Test("the system service's configuration (scripts/system-config.sh) admits the active session, the daemon's user and the socket's group")
    func checkSystemConfig() throws {
        let made = try run(URL(fileURLWithPath: "/bin/sh"), [Paths.packageRoot.appendingPathComponent("scripts/system-config.sh").path])
        #expect(made.status == 0, "\(made.stderr)")
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try DaemonProcess.writeConfig(made.stdout, in: dir)
        let r = try run(Paths.edgeswiped, ["--check-config", file.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#"read = ["active-session", "owner", "socket-group"]"#), "\(r.stdout)")
        #expect(r.stdout.contains(#"control = ["active-session", "owner", "socket-group"]"#), "\(r.stdout)")
    }

    @Test("--check-config rejects a bad file with the line and the reason, exit 1", arguments: [
        ("[touchscreen]\nedge_zone_mm = 45\n", ":2: 'edge_zone_mm' must be between 0.5 and 30 (got 45)"),
        ("[[bindings]]\nedge = \"left\"\ncontainer = \"shell\"\naction = \"pop\"\n", ":4: a tabs container ('shell') cannot 'pop'"),
        ("[daemon\n", ":1:8: TOML syntax: expected ']' to close the table header"),
        ("[daemon]\nseat = \"..\"\n", ":2: 'seat' is not a seat name: a seat is 'seat' followed by letters, digits, '-' or '_'"),
    ])
    func checkBad(_ text: String, _ expected: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.toml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let r = try run(Paths.edgeswiped, ["--check-config", file.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains(file.path + expected), "\(r.stderr)")
    }

    @Test("a missing configuration file at start-up is a clear error, exit 66")
    func missingConfig() throws {
        let r = try run(Paths.edgeswiped, ["--config", "/nonexistent/edgeswipe.toml", "--socket", "/tmp/never.sock"])
        #expect(r.status == 66)
        #expect(r.stderr.contains("/nonexistent/edgeswipe.toml"))
    }

    @Test("an unknown option is a usage error")
    func usage() throws {
        let r = try run(Paths.edgeswiped, ["--frobnicate"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("frobnicate"))
    }

    /// Every system unit `make install` ships: the single-seat pair and the per-seat templates.
    static let systemUnits = ["edgeswiped.service", "edgeswiped.socket", "edgeswiped@.service", "edgeswiped@.socket"]

    @Test("the systemd units pass systemd-analyze verify", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze is not installed"))
    func unitsVerify() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for unit in Self.systemUnits {
            // As `make install` does: point ExecStart at the binary being tested.
            let text = try String(contentsOf: Paths.packageRoot.appendingPathComponent("systemd/\(unit)"), encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/edgeswiped", with: Paths.edgeswiped.path)
            try text.write(to: dir.appendingPathComponent(unit), atomically: true, encoding: .utf8)
        }
        // A template is verified through an instance of it.
        let r = try run(URL(fileURLWithPath: "/usr/bin/systemd-analyze"), ["verify", "--man=no"]
            + ["edgeswiped.service", "edgeswiped.socket", "edgeswiped@seat1.service", "edgeswiped@seat1.socket"].map { dir.appendingPathComponent($0).path })
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
    }

    /// A per-seat template and the single-seat unit it is made from, with what names the seat in the template.
    struct TemplatePair: Sendable, CustomTestStringConvertible {
        var template: String
        var single: String
        var seatForms: [(template: String, single: String)]
        var testDescription: String { template }
    }

    @Test("the per-seat templates are the single-seat units but for the seat, so the sandbox cannot drift", arguments: [
        TemplatePair(template: "edgeswiped@.service", single: "edgeswiped.service", seatForms: [
            ("Description=EdgeSwipe on %i: ", "Description=EdgeSwipe: "),
            ("edgeswiped@%i.socket", "edgeswiped.socket"),
            (" --seat %i", ""),
            ("StateDirectory=edgeswipe/seat/%i", "StateDirectory=edgeswipe"),
        ]),
        TemplatePair(template: "edgeswiped@.socket", single: "edgeswiped.socket", seatForms: [
            ("Description=EdgeSwipe client socket for %i", "Description=EdgeSwipe client socket"),
            ("ListenStream=/run/edgeswipe/seat/%i.sock", "ListenStream=/run/edgeswipe/edgeswipe.sock"),
        ]),
    ])
    func templatesMatch(_ pair: TemplatePair) throws {
        func directives(_ unit: String) throws -> [String] {
            try String(contentsOf: Paths.packageRoot.appendingPathComponent("systemd/\(unit)"), encoding: .utf8)
                .split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        }
        let template = try directives(pair.template)
        let single = try directives(pair.single)
        for form in pair.seatForms {
            #expect(template.contains { $0.contains(form.template) }, "\(pair.template) has no \(form.template)")
        }
        let unseated = template.map { line in
            pair.seatForms.reduce(line) { $0.replacingOccurrences(of: $1.template, with: $1.single) }
        }
        #expect(unseated == single)
    }

    /// The value of `key=` in a unit file, with the instance name put in for `%i` as systemd does.
    static func directive(_ key: String, inUnit unit: String, instance: String) throws -> String? {
        let text = try String(contentsOf: Paths.packageRoot.appendingPathComponent("systemd/\(unit)"), encoding: .utf8)
        return text.split(separator: "\n").first { $0.hasPrefix(key + "=") }
            .map { String($0.dropFirst(key.count + 1)).replacingOccurrences(of: "%i", with: instance) }
    }

    // Instance names that once collided or escaped: "edgeswipe" listened on the single-seat socket (and removed it at
    // stop); ".." made systemd ignore StateDirectory=, so the state silently went unsaved (hostile-4 s13).
    @Test("a per-seat instance's socket and state directory are apart from the single-seat daemon's, whatever its name",
          arguments: ["seat1", "edgeswipe", "..", "a\\x2fb", "", String(repeating: "x", count: 80)])
    func instancePathsApart(_ instance: String) throws {
        let single = try #require(try Self.directive("ListenStream", inUnit: "edgeswiped.socket", instance: instance))
        let socket = try #require(try Self.directive("ListenStream", inUnit: "edgeswiped@.socket", instance: instance))
        #expect(socket != single)
        #expect(socket == "/run/edgeswipe/seat/\(instance).sock")
        let state = try #require(try Self.directive("StateDirectory", inUnit: "edgeswiped@.service", instance: instance))
        #expect(state == "edgeswipe/seat/\(instance)")
    }

    /// What edgeswiped@NAME.service runs with: the instance name as `--seat`.
    static let notSeats = ["..", "edgeswipe", "", ".", "a/b", "seat/../x", "seat.1", "seat", "Seat1", "séat1", "seat 1",
                           "seat" + String(repeating: "x", count: 252)]

    @Test("the daemon refuses a --seat that is not a logind seat name, naming the instance that cannot run (exit 64)",
          arguments: notSeats)
    func seatRefused(_ seat: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try run(Paths.edgeswiped, ["--seat", seat, "--socket", dir.appendingPathComponent("s.sock").path,
                                           "--state-dir", dir.path])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("--seat '\(seat)' is not a seat name"), "\(r.stderr)")
        #expect(r.stderr.contains("edgeswiped@\(seat).service cannot run"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("s.sock").path), "it bound its socket first")
    }

    @Test("seat names logind accepts pass the daemon's check", arguments: ["seat0", "seat1", "seat-kiosk_2", "seat" + String(repeating: "x", count: 251)])
    func seatAccepted(_ seat: String) throws {
        #expect(DaemonSettings.seatNameProblem(seat) == nil)
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("seat.toml")
        try "[daemon]\nseat = \"\(seat)\"\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try run(Paths.edgeswiped, ["--check-config", file.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("seat = \"\(seat)\""), "\(r.stdout)")
    }
}

@Suite("The multi-call client binary")
struct MultiCallTests {
    static let binary = Paths.products.appendingPathComponent("edgeswipe-clients")

    /// The tools the package installs as links to the multi-call binary: every executable product but the daemon
    /// and the binary itself, found in Package.swift as the Makefile finds them.
    static func clientProducts() throws -> [String] {
        let manifest = try String(contentsOf: Paths.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"^\s*\.executable\(name: "([^"]+)""#, options: .anchorsMatchLines)
        return pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest))
            .compactMap { Range($0.range(at: 1), in: manifest).map { String(manifest[$0]) } }
            .filter { $0 != "edgeswiped" && $0 != "edgeswipe-clients" }
    }

    @Test("--list names every client product, which the Makefile links to it")
    func list() throws {
        let r = try run(Self.binary, ["--list"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").map(String.init) == (try Self.clientProducts()))
    }

    @Test("run through a link, it is the tool the link is named after; the tool's name as its first argument does the same",
          arguments: ["edgeswipectl", "edgeswipe-web", "edgeswipe-session"])
    func dispatch(_ tool: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let link = dir.appendingPathComponent(tool)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: Self.binary)
        let own = try run(Paths.products.appendingPathComponent(tool), ["--help"])
        for r in [try run(link, ["--help"]), try run(Self.binary, [tool, "--help"])] {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == own.stdout, "\(r.stdout)")
            #expect(r.stdout.contains("USAGE: \(tool)"), "\(r.stdout)")
        }
        let bad = try run(link, ["--frobnicate"])
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("frobnicate"), "\(bad.stderr)")
    }

    @Test("run by another name, it says which names it answers to (exit 64)", arguments: [[], ["edgeswiped"], ["status"]])
    func unknown(_ arguments: [String]) throws {
        let r = try run(Self.binary, arguments)
        #expect(r.status == 64)
        #expect(r.stderr.contains("run it as edgeswipectl, edgeswipe-web, edgeswipe-session"), "\(r.stderr)")
        if let name = arguments.first { #expect(r.stderr.contains("no tool named '\(name)'"), "\(r.stderr)") }
    }
}

@Suite("Shell completions")
struct CompletionTests {
    @Test("both tools generate bash, zsh and fish completions", arguments: ["edgeswiped", "edgeswipectl"], ["bash", "zsh", "fish"])
    func completions(_ tool: String, _ shell: String) throws {
        let r = try run(Paths.products.appendingPathComponent(tool), ["--generate-completion-script", shell])
        #expect(r.status == 0)
        #expect(r.stdout.contains(tool))
        #expect(r.stdout.count > 200)
    }
}
