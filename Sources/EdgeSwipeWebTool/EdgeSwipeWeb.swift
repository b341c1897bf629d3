import ArgumentParser
import EdgeSwipeClient
import EdgeSwipeVocabulary
import EdgeSwipeSystem
import EdgeSwipeWeb
import Logging
import SystemPackage

/// `edgeswipe-web`: serves a page that draws the daemon's transitions, from one daemon connection.
struct EdgeSwipeWebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: WebTool.name,
        abstract: "Serve a web page that draws edgeswiped's transitions live, and edgeswipe.js for kiosk pages.",
        discussion: """
            It is one ordinary client of the daemon (the daemon's access rules apply to the user who runs it), \
            whatever the number of tabs. It prints the URL, with a random token, on standard output; every request \
            needs the token (the first page load trades it for a cookie). It listens on 127.0.0.1 unless told \
            otherwise, and is read-only unless started with --control. With EDGESWIPE_WEB_TOKEN set (32 to 256 of \
            A-Z a-z 0-9 - _), that is the token, so that a script can print the URL before the bridge is up. It \
            serves at most 64 tabs and 512 connections (128 from one address); a connection must send its headers \
            within 10 s. \
            Exit status: 0 stopped; 64 bad arguments; 69 the daemon could not be reached; 77 the daemon's access \
            policy refuses this user (or grants no control where --control was asked).
            """,
        version: EdgeSwipeVersion.string)

    @Option(name: .long, help: ArgumentHelp("The daemon's socket.", discussion: EdgeSwipeClient.defaultSocketHelp, valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Where to listen; port 0 picks a free port.", valueName: "host:port"))
    var listen: String = "127.0.0.1:8765"

    @Flag(name: .long, help: "Allow --listen on an address other than loopback (anyone who can reach it and has the token sees the stream).")
    var allowRemote = false

    @Flag(name: .long, help: "Let the page send push, pop, present, dismiss and select-tab (the daemon must grant this user control).")
    var control = false

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "notice"

    func validate() throws {
        guard let (host, port) = Self.split(listen) else {
            throw ValidationError("--listen takes HOST:PORT (for example 127.0.0.1:8765, or [::1]:0), got \(listen)")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--listen: the port must be 0...65535, got \(port)") }
        if !Self.isLoopback(host) && !allowRemote {
            throw ValidationError("--listen \(listen) is not a loopback address: add --allow-remote to serve the stream beyond this machine")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level: unknown level \(logLevel)") }
        if let token = Self.chosenToken, !WebAccess.isAcceptable(token: token) {
            throw ValidationError("\(WebAccess.tokenVariable) must be 32 to 256 characters of A-Z a-z 0-9 - _")
        }
    }

    /// The token a script chose (``WebAccess/tokenVariable``), if any.
    static var chosenToken: String? {
        ProcessEnvironment.current()[WebAccess.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run() async throws {
        let (host, port) = Self.split(listen)!
        let level = Logger.Level(rawValue: logLevel) ?? .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "edgeswipe-web")
        if !Self.isLoopback(host) {
            StandardError.print("edgeswipe-web: warning: listening on \(host), beyond this machine: anyone who can reach it and has the token sees every touch transition\(control ? " and can drive them" : "")")
        }
        // Looked at again before each reconnection: a bridge started with a system daemon finds a user instance
        // started later, and one that outlived its daemon finds the next.
        let daemon = DaemonSocket.resolve(explicit: socket, environment: ProcessEnvironment.current())
        // Every connection is a descriptor: the cap on them must fit under the open-file limit (raised to the hard
        // one, as systemd asks of programs that do not use select), with room for the daemon's connection, the
        // listener and the runtime's own.
        var connections = ConnectionLimits()
        let descriptors = OpenFileLimit.raiseToHardLimit()
        if descriptors > 0 { connections.total = min(connections.total, max(16, descriptors - 64)) }
        let bridge = Bridge(
            options: Bridge.Options(
                socket: daemon, host: host, port: port, control: control, connections: connections, token: Self.chosenToken),
            logger: logger)
        do {
            try await bridge.run { url, _ in
                // The only line on standard output: scripts (and the tests) read the URL from it.
                try? FileDescriptor.standardOutput.writeAll(Array((url + "\n").utf8))
            }
        } catch let error as BridgeError {
            StandardError.print("edgeswipe-web: \(error)")
            throw ExitCode(error.exitCode)
        }
    }

    static func split(_ listen: String) -> (String, Int)? {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else { return nil }
        var host = String(listen[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        return (host, port)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
