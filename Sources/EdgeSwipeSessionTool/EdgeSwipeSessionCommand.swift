import ArgumentParser
import EdgeSwipeClient
import EdgeSwipeSessionModel
import EdgeSwipeTOML
import EdgeSwipeSession
import EdgeSwipeSystem
import Glibc
import Logging
import NIOCore
import NIOPosix
import SystemPackage
import UnixSignals

/// `edgeswipe-session`: the user's rules, carried out in their graphical session.
struct EdgeSwipeSessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: SessionTool.name,
        abstract: "Turn edgeswiped's decided transitions into workspace switches, keys, D-Bus calls and commands.",
        discussion: """
            Run it in your graphical session (systemctl --user enable --now edgeswipe-session.service). It is an \
            ordinary read-only client of the daemon and reconnects when the daemon restarts. Its rules are in \
            $XDG_CONFIG_HOME/edgeswipe/session.toml (~/.config/edgeswipe/session.toml); with no file it uses the \
            built-in defaults (3-finger swipes left/right: next/previous workspace on sway, Hyprland and niri, the \
            desktop on the right/left on KDE Plasma; a left-edge swipe: alt+Left). SIGHUP reloads the file, \
            keeping the rules in force if it is wrong. \
            Exit status: 0 stopped; 1 --check-config found a problem; 64 bad arguments; 78 the rules file is wrong.
            """)

    @Option(name: .long, help: ArgumentHelp("The daemon's socket.", discussion: EdgeSwipeClient.defaultSocketHelp, valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("The rules file.", discussion: "Default: $XDG_CONFIG_HOME/edgeswipe/session.toml, else ~/.config/edgeswipe/session.toml; the built-in defaults when it does not exist.", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Check a rules file, say what cannot run in this session, and exit.", valueName: "path"))
    var checkConfig: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level: unknown level \(logLevel)") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "edgeswipe-session")
        let environment = ProcessEnvironment.current()

        if let checkConfig {
            throw ExitCode(check(checkConfig, environment: environment))
        }

        // Trapped first: a SIGHUP that comes while the session starts must reload, not end it.
        let signals = await UnixSignalsSequence(trapping: .sighup, .sigterm, .sigint)
        let path = config ?? Self.defaultRulesPath(environment)
        let desktop = Desktop.detect(environment: environment)
        let rules: RuleSet
        switch Self.load(path, explicit: config != nil, desktop: desktop) {
        case .success(let r): rules = r
        case .failure(let error):
            StandardError.print("edgeswipe-session: \(error)")
            throw ExitCode(78)
        }
        logger.notice("rules: \(rules.rules.count) from \(rules.source)")

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let eventLoop = group.next()
        let compositor = desktop.map { compositorIPC(for: $0, environment: environment, eventLoop: eventLoop, logger: logger) }
        let wayland = Self.waylandConnection(
            needed: rules.needsKeyboard || rules.overlay.enabled || Self.needsFocus(rules), environment: environment, logger: logger)
        let keyboard = Self.keyboard(for: rules, on: wayland)
        let desktopBus: Result<DesktopBus, Errno>
        do { desktopBus = .success(try DesktopBus(logger: logger)) } catch { desktopBus = .failure(error) }
        let session = Session(
            rules: rules, desktop: desktop, environment: environment, eventLoop: eventLoop, compositor: compositor,
            keyboard: keyboard, desktopBus: desktopBus, logger: logger)
        logger.notice("desktop: \(desktop?.rawValue ?? "unknown (no $SWAYSOCK, $HYPRLAND_INSTANCE_SIGNATURE, $NIRI_SOCKET or known $XDG_CURRENT_DESKTOP)")")
        for problem in Session.problems(of: rules, desktop: desktop, compositor: compositor?.failure, keyboard: keyboard?.failure) {
            logger.warning("\(problem)")
        }
        let overlay = Self.overlay(rules.overlay, on: wayland, logger: logger)
        if let overlay { session.observe { overlay.handle($0) } }
        let toplevels = Self.foreignToplevels(feeding: session, compositor: compositor, on: wayland, rules: rules, logger: logger)

        // The default socket is looked at again before each attempt (the user instance's, then the system's): a
        // session that starts before its daemon finds it where it comes up.
        let daemon = DaemonSocket.resolve(explicit: socket, environment: environment)
        let client = EdgeSwipeClient(socket: daemon, eventLoopGroup: group)
        client.observe { observation in
            if case .message(.hello(let hello), _) = observation { logger.notice("daemon: connected to \(hello.server) at \(client.socketPath)") }
            session.handle(observation)
        }
        logger.notice("following the daemon at \(daemon)")

        var current = rules
        for await signal in signals {
            guard signal == .sighup else { break }
            switch Self.load(path, explicit: config != nil, desktop: desktop) {
            case .success(let r):
                current = r
                session.replace(r)
                overlay?.replace(r.overlay)
                logger.notice("reloaded: \(r.rules.count) rules from \(r.source)")
                // The keyboard is made at start-up: a reload that adds the first key rule needs a restart.
                let keys = keyboard ?? (r.needsKeyboard ? .failure(WaylandError("no key rule at start-up; restart edgeswipe-session to send keys")) : nil)
                for problem in Session.problems(of: r, desktop: desktop, compositor: compositor?.failure, keyboard: keys?.failure) {
                    logger.warning("\(problem)")
                }
            case .failure(let error):
                logger.error("reload refused, keeping the \(current.rules.count) rules from \(current.source): \(error)")
            }
        }
        withExtendedLifetime(toplevels) {}
        session.stop()
        await client.close()
        if let overlay { logger.notice("overlay: \(overlay.summary)") }
        try? await group.shutdownGracefully()
    }

    /// `$XDG_CONFIG_HOME/edgeswipe/session.toml`, else `~/.config/edgeswipe/session.toml`.
    static func defaultRulesPath(_ environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/edgeswipe/session.toml" }
        return (environment["HOME"] ?? "") + "/.config/edgeswipe/session.toml"
    }

    /// The file's rules; `desktop`'s defaults when the default file does not exist (a file named on the command line
    /// must).
    static func load(_ path: String, explicit: Bool, desktop: Desktop?) -> Result<RuleSet, ConfigError> {
        if !explicit, (try? Stat(FilePath(path))) == nil { return .success(.defaults(for: desktop)) }
        do { return .success(try SessionRulesParser.load(path: path)) } catch { return .failure(error) }
    }

    /// The session's one Wayland connection, when a part needs it (rules that send keys, the overlay), with its
    /// event thread running.
    static func waylandConnection(needed: Bool, environment: [String: String], logger: Logger) -> Result<WaylandConnection, WaylandError>? {
        guard needed else { return nil }
        guard !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty else {
            return .failure(WaylandError("$WAYLAND_DISPLAY is not set (not a Wayland session)"))
        }
        do {
            let connection = try WaylandConnection(logger: logger)
            do { try connection.start() } catch { return .failure(WaylandError("cannot start the Wayland thread: \(error)")) }
            return .success(connection)
        } catch {
            return .failure(error)
        }
    }

    /// The virtual keyboard on `wayland`, when a rule sends keys.
    static func keyboard(for rules: RuleSet, on wayland: Result<WaylandConnection, WaylandError>?) -> Result<VirtualKeyboard, WaylandError>? {
        guard rules.needsKeyboard, let wayland else { return nil }
        switch wayland {
        case .failure(let error): return .failure(error)
        case .success(let connection):
            do { return .success(try VirtualKeyboard(connection: connection)) } catch { return .failure(error) }
        }
    }

    /// `--check-config`: 0 when the file is right, 1 when not; what cannot run here is said either way.
    func check(_ path: String, environment: [String: String]) -> Int32 {
        let rules: RuleSet
        do { rules = try SessionRulesParser.load(path: path) } catch {
            StandardError.print("edgeswipe-session: \(error)")
            return 1
        }
        print("\(path): \(rules.rules.count) rule\(rules.rules.count == 1 ? "" : "s")")
        for rule in rules.rules {
            print("  \(rule): on \(rule.phase.rawValue)\(rule.step.map { " every \($0)" } ?? "") -> \(rule.effect)")
        }
        let desktop = Desktop.detect(environment: environment)
        var keyboardProblem: WaylandError? = nil
        let wayland = Self.waylandConnection(needed: rules.needsKeyboard || rules.overlay.enabled, environment: environment, logger: Logger(label: "check"))
        if case .failure(let e)? = Self.keyboard(for: rules, on: wayland) { keyboardProblem = e }
        let compositorProblem: CompositorIPCError? = desktop.flatMap { d in
            if case .failure(let e) = compositorIPC(for: d, environment: environment, eventLoop: EmbeddedEventLoopStandIn.loop, logger: Logger(label: "check")) { return e }
            return nil
        }
        let problems = Session.problems(of: rules, desktop: desktop, compositor: compositorProblem, keyboard: keyboardProblem)
        print("this session: \(desktop?.rawValue ?? "unknown desktop")\(problems.isEmpty ? ", every rule can run" : "")")
        for p in problems { print("  note: \(p)") }
        print("overlay: \(Self.overlayStatus(rules.overlay, on: wayland))")
        return 0
    }
}

extension Result {
    var failure: Failure? { if case .failure(let f) = self { f } else { nil } }
}

/// An event loop for building (not running) a compositor client in `--check-config`.
enum EmbeddedEventLoopStandIn {
    static let loop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()
}
