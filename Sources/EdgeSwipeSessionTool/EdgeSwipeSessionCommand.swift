import EdgeSwipeBus
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
            $XDG_CONFIG_HOME/edgeswipe/session.toml (~/.config/edgeswipe/session.toml), tried before the built-in \
            ones (3-finger swipes left/right: next/previous workspace on sway, Hyprland and niri, the desktop on the \
            right/left on KDE Plasma; a left-edge swipe: alt+Left; on GNOME, with EdgeSwipe's extension, a touchscreen's \
            top edge opens the overview with the finger, and GNOME's own 3-finger swipes stay), which still apply unless \
            the file says defaults = false. SIGHUP reloads the file, keeping the rules in force if it is wrong. --dry-run \
            fires nothing and logs what it would do, while the overlay draws. \
            Exit status: 0 stopped; 1 --check-config found a problem; 64 bad arguments; 78 the rules file is wrong.
            """)

    @Option(name: .long, help: ArgumentHelp("The daemon's socket.", discussion: EdgeSwipeClient.defaultSocketHelp, valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("The rules file.", discussion: "Default: $XDG_CONFIG_HOME/edgeswipe/session.toml, else ~/.config/edgeswipe/session.toml; the built-in rules alone when it does not exist.", valueName: "path"))
    var config: String?

    @Flag(name: .long, help: ArgumentHelp(
        "Fire no effect: log each one it would fire ('would send alt+Left'), and still draw the overlay.",
        discussion: "What the quick start runs on your screen against the demo, so that the demo's swipes never switch your workspaces or type into your windows."))
    var dryRun = false

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
        logger.notice("rules: \(rules.summary(on: desktop))\(rules.file == nil ? " (there is no \(path))" : "")")
        if dryRun { logger.notice("dry run: no effect is fired; each is logged as what it would do") }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let eventLoop = group.next()
        // The compositor is followed in a dry run too (the focused app decides which rules match); only firing stops.
        let compositor = desktop.map { compositorIPC(for: $0, environment: environment, eventLoop: eventLoop, logger: logger) }
        // A dry run sends no key, so it binds no key protocol; the overlay still draws. On GNOME keys go through
        // EdgeSwipe's extension (the session's GNOME backend), not Wayland.
        let sendsKeys = rules.needsKeyboard && !dryRun && desktop != .gnome
        let wayland = Self.waylandThread(for: rules, keys: sendsKeys, environment: environment, logger: logger)
        // Keys go to the Wayland thread whenever there is one, so that a reload may add the first key rule.
        let keys: Result<any KeySender, WaylandError>? = wayland.map { $0.map { $0 as any KeySender } }
        let desktopBus: Result<DesktopBus, Errno>?
        if dryRun {
            desktopBus = nil
        } else {
            do { desktopBus = .success(try DesktopBus(logger: logger)) } catch { desktopBus = .failure(error) }
        }
        let session = Session(
            rules: rules, desktop: desktop, environment: environment, eventLoop: eventLoop, compositor: compositor,
            keys: keys, desktopBus: desktopBus, dryRun: dryRun, logger: logger)
        logger.notice("desktop: \(desktop?.rawValue ?? "unknown (no $SWAYSOCK, $HYPRLAND_INSTANCE_SIGNATURE, $NIRI_SOCKET or known $XDG_CURRENT_DESKTOP)")")
        // What the compositor offers is said by the Wayland thread once it has connected (keys, overlay).
        for problem in Session.problems(of: rules, desktop: desktop, compositor: compositor?.failure, keyboard: sendsKeys ? wayland?.failure : nil) {
            logger.warning("\(problem)")
        }
        Self.sayOverlay(rules.overlay, on: wayland, logger: logger)
        if case .success(let thread)? = wayland { session.observe { thread.handle($0) } }
        Self.followFocus(of: session, compositor: compositor, on: wayland)
        let kwinFocus = Self.followKWinFocus(of: session, desktop: desktop, desktopBus: desktopBus, environment: environment, logger: logger)

        // The default socket is looked at again before each attempt (the user instance's, then the system's): a
        // session that starts before its daemon finds it where it comes up.
        let daemon = DaemonSocket.resolve(explicit: socket, environment: environment)
        let client = EdgeSwipeClient(socket: daemon, eventLoopGroup: group)
        client.observeUnreadableLines { session.unreadable($0, line: $1) }
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
                if case .success(let thread)? = wayland { thread.replace(overlay: r.overlay, keys: r.needsKeyboard && !dryRun && desktop != .gnome) }
                logger.notice("reloaded: rules: \(r.summary(on: desktop))")
                // The Wayland thread is started when the first rules need it: a reload that is the first to need it
                // (keys, with the overlay off) needs a restart.
                let keysProblem = r.needsKeyboard && !dryRun
                    ? (wayland?.failure ?? (wayland == nil ? WaylandError("no key rule or overlay at start-up; restart edgeswipe-session to send keys") : nil)) : nil
                for problem in Session.problems(of: r, desktop: desktop, compositor: compositor?.failure, keyboard: keysProblem) {
                    logger.warning("\(problem)")
                }
            case .failure(let error):
                logger.error("reload refused, keeping the rules in force (\(current.summary(on: desktop))): \(error)")
            }
        }
        // KWin unloads the focus script before the bus thread ends (it runs what was queued first).
        kwinFocus?.stop()
        session.stop()
        await client.close()
        if case .success(let thread)? = wayland {
            thread.stop()
            if rules.overlay.enabled || current.overlay.enabled { logger.notice("overlay: \(thread.overlaySummary)") }
        }
        try? await group.shutdownGracefully()
    }

    /// `$XDG_CONFIG_HOME/edgeswipe/session.toml`, else `~/.config/edgeswipe/session.toml`.
    static func defaultRulesPath(_ environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/edgeswipe/session.toml" }
        return (environment["HOME"] ?? "") + "/.config/edgeswipe/session.toml"
    }

    /// The file's rules, then `desktop`'s built-in ones unless it says `defaults = false`; the built-in rules alone when
    /// the default file does not exist (a file named on the command line must).
    static func load(_ path: String, explicit: Bool, desktop: Desktop?) -> Result<RuleSet, ConfigError> {
        if !explicit, (try? Stat(FilePath(path))) == nil { return .success(.defaults(for: desktop)) }
        do { return .success(try SessionRulesParser.load(path: path).withBuiltIn(for: desktop)) } catch { return .failure(error) }
    }

    /// The session's Wayland thread, started, when a part needs it (rules that send keys, the overlay); it connects
    /// (and reconnects) on its own.
    static func waylandThread(for rules: RuleSet, keys: Bool, environment: [String: String], logger: Logger) -> Result<WaylandThread, WaylandError>? {
        guard keys || rules.overlay.enabled || needsFocus(rules) else { return nil }
        guard !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty else {
            return .failure(WaylandError("$WAYLAND_DISPLAY is not set (not a Wayland session)"))
        }
        do {
            let thread = try WaylandThread(overlay: rules.overlay, keys: keys, logger: logger)
            try thread.start()
            return .success(thread)
        } catch {
            return .failure(error)
        }
    }

    /// The compositor's globals, read once, for `--check-config`.
    static func waylandGlobals(needed: Bool, environment: [String: String]) -> Result<[WaylandGlobal], WaylandError>? {
        guard needed else { return nil }
        guard !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty else {
            return .failure(WaylandError("$WAYLAND_DISPLAY is not set (not a Wayland session)"))
        }
        do { return .success(try WaylandGlobal.read()) } catch { return .failure(error) }
    }

    /// `--check-config`: 0 when the file is right, 1 when not; what cannot run here is said either way.
    func check(_ path: String, environment: [String: String]) -> Int32 {
        let desktop = Desktop.detect(environment: environment)
        let rules: RuleSet
        do { rules = try SessionRulesParser.load(path: path).withBuiltIn(for: desktop) } catch {
            StandardError.print("edgeswipe-session: \(error)")
            return 1
        }
        let own = "\(rules.fileRules.count) rule\(rules.fileRules.count == 1 ? "" : "s")"
        let applying = rules.rules(on: desktop)
        let builtIn = applying.count - rules.fileRules.count
        print(rules.usesDefaults
            ? "\(path): \(own), then \(builtIn) built-in (defaults = false in the file turns them off)"
            : "\(path): \(own); no built-in rules (defaults = false)")
        for rule in applying { print("  \(rule): \(rule.conditionsAndEffect)") }
        if rules.usesDefaults && !applying.isEmpty {
            print("  (for each gesture and phase the first rule that matches fires: the file's before the built-in ones)")
        }
        var keyboardProblem: WaylandError? = nil
        let globals = Self.waylandGlobals(needed: rules.needsKeyboard || rules.overlay.enabled, environment: environment)
        if rules.needsKeyboard {
            switch globals {
            case .failure(let e)?: keyboardProblem = e
            case .success(let list)?: keyboardProblem = WaylandGlobal.keyProblem(in: list)
            case nil: break
            }
        }
        let compositorProblem: CompositorIPCError? = desktop.flatMap { d in
            if case .failure(let e) = compositorIPC(for: d, environment: environment, eventLoop: EmbeddedEventLoopStandIn.loop, logger: Logger(label: "check")) { return e }
            return nil
        }
        let problems = Session.problems(of: rules, desktop: desktop, compositor: compositorProblem, keyboard: keyboardProblem)
        print("this session: \(desktop?.rawValue ?? "unknown desktop")\(problems.isEmpty ? ", every rule can run" : "")")
        for p in problems { print("  note: \(p)") }
        if desktop == .gnome {
            let present: Result<UInt32, BusError>
            do { present = GnomeShell.probe(try SDBus.user()) } catch { present = .failure(error) }
            if case .failure(let error) = present { print("GNOME: EdgeSwipe's extension is not there (\(error)): run `gnome-extensions enable edgeswipe@edgeswipe.invalid`") }
            print("on GNOME, rule by rule:")
            for line in Session.gnomePlan(of: rules.rules(on: .gnome), extensionPresent: (try? present.get()) != nil) { print("  - \(line)") }
        }
        print("overlay: \(Self.overlayStatus(rules.overlay, globals: globals))")
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
