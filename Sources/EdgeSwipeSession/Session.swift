public import EdgeSwipeClient
import EdgeSwipeProtocol
public import EdgeSwipeSessionModel
import EdgeSwipeSystem
public import Logging
public import NIOCore
public import SystemPackage
import NIOConcurrencyHelpers

/// The session client's core: the daemon's stream in, the rules matched, the effects carried out. Everything runs on
/// ``eventLoop`` (the daemon client's and the compositor connections'): a message is matched and its effect's
/// request written in the same turn of the loop that read it, and nothing here waits on another process or thread:
/// key chords and the overlay's observations are handed to the Wayland thread (``WaylandThread``), D-Bus calls to
/// the bus thread.
///
/// Other parts of the session (the overlay) observe the same stream through ``observe(_:)``.
///
/// Its state is the event loop's: every entry point that reads or writes it is on the loop, which ``handle(_:)`` and
/// ``fire(_:)`` check (`preconditionInEventLoop`), hence `@unchecked Sendable`.
public final class Session: @unchecked Sendable {
    public let eventLoop: any EventLoop
    private let logger: Logger
    private let environment: [String: String]
    private var matcher: RuleMatcher
    /// The transitions live rules own (on GNOME: GNOME's animation follows the finger), fed after the matcher.
    private var live: LiveTransitions
    private var app: String?
    private let compositor: Result<any CompositorIPC, CompositorIPCError>?
    private let keys: Result<any KeySender, WaylandError>?
    private let desktopBus: Result<DesktopBus, Errno>?
    /// On GNOME: EdgeSwipe's extension, on the desktop bus's thread.
    private var gnome: GnomeShell?
    /// GNOME's keys backend, while the extension offers keys (it registered, with `keys`).
    private var gnomeKeys: (any KeySender)?
    public let commands: CommandRunner
    /// Rules already told they cannot run here (logged once per rule and cause).
    private var refused: Set<String> = []
    private var observers: [@Sendable (EdgeSwipeClient.Observation) -> Void] = []
    private let unreadableLog = NIOLockedValueBox(LogThrottle(interval: Session.unreadableInterval))
    /// The log throttle of each `changed` rule's firings (``logFiring(_:_:)``), at most this many rules.
    private var changedLog: [String: LogThrottle] = [:]
    static let changedLogLimit = 256
    /// Rules whose held-back firings are to be said (a task is scheduled).
    private var changedFlushes: Set<String> = []
    /// Rules fired since start (what `--check-config` and the tests count).
    public private(set) var fired = 0
    /// `--dry-run`: each firing is logged as what it would do (``Effect/wouldDo``), and nothing is carried out.
    public let dryRun: Bool

    /// The parts a session is made of; tests give fakes.
    public init(
        rules: RuleSet, desktop: Desktop?, environment: [String: String], eventLoop: any EventLoop,
        compositor: Result<any CompositorIPC, CompositorIPCError>?, keys: Result<any KeySender, WaylandError>?,
        desktopBus: Result<DesktopBus, Errno>? = nil, commands: CommandRunner? = nil, dryRun: Bool = false, logger: Logger
    ) {
        self.dryRun = dryRun
        self.desktopBus = desktopBus
        self.live = LiveTransitions(desktop: desktop)
        self.eventLoop = eventLoop
        self.logger = logger
        self.environment = environment
        self.matcher = RuleMatcher(rules: rules, desktop: desktop)
        self.compositor = compositor
        self.keys = keys
        self.commands = commands ?? CommandRunner(logger: logger)
        if case .success(let ipc) = compositor {
            ipc.followFocus { [weak self] app in self?.setFocus(app) }
        }
        // On GNOME the desktop bus's thread also speaks to EdgeSwipe's extension: live rules, keys and focus.
        if desktop == .gnome, case .success(let bus)? = desktopBus {
            gnome = GnomeShell(loop: bus.loop, claims: GnomeClaims.gestures(for: rules)) { [weak self] event in
                guard let self else { return }
                self.eventLoop.execute { self.handle(event) }
            }
        }
    }

    /// What GNOME's extension said; on the event loop.
    func handle(_ event: GnomeShellEvent) {
        switch event {
        case .registered(let capabilities, _):
            live.available = Set(LiveFamily.allCases.filter { capabilities.contains($0.rawValue) })
            gnomeKeys = capabilities.contains("keys") ? gnome : nil
        case .unavailable:
            live.available = []
            gnomeKeys = nil
        case .focus(let new):
            if app != new { logger.debug("focus: \(new ?? "(nothing)")") }
            app = new
        case .settled(let id, let reason):
            if let rule = live.owner(of: id) { logger.notice("\(rule): transition \(id): \(reason); the rule lets it go") }
            perform(live.letGo(id))
        }
    }

    /// Carries out what the live rules decided: GNOME's gesture begun, followed, ended.
    private func perform(_ actions: [LiveTransitions.Action]) {
        guard let gnome else { return }
        for action in actions {
            switch action {
            case .begin(let g):
                fired += 1
                logger.info("\(g.rule): \(g.facts.gestureName) began\(g.app.map { " in \($0)" } ?? "") -> \(g.rule.effect), live")
                gnome.begin(g.transition, kind: g.kind)
            case .update(let id, let percent): gnome.update(id, percent: percent)
            case .end(let id, let commit, let ms): gnome.end(id, commit: commit, durationMS: ms)
            case .goBack(let id): gnome.end(id, commit: false, durationMS: GnomeShell.goBackMS)
            case .log(let line): logger.debug("\(line)")
            }
        }
    }

    /// The focused application from a source other than the compositor's IPC (phoc's foreign toplevels, KWin's focus
    /// script); from any thread.
    public func focused(_ app: String?) {
        eventLoop.execute { self.setFocus(app) }
    }

    /// On the event loop.
    private func setFocus(_ app: String?) {
        eventLoop.preconditionInEventLoop()
        if self.app != app { logger.debug("focus: \(app ?? "(nothing)")") }
        self.app = app
    }

    /// The focused application, as the compositor last said.
    public var focusedApp: String? { app }

    /// What cannot work in this session, rule by rule: said once at start-up (and by `--check-config`).
    public static func problems(of rules: RuleSet, desktop: Desktop?, compositor: CompositorIPCError?, keyboard: WaylandError?) -> [String] {
        var out: [String] = []
        for rule in rules.rules(on: desktop) {
            if let wanted = rule.match.desktop, wanted != desktop {
                out.append("\(rule): only for compositor = \"\(wanted.rawValue)\"; this session is \(desktop?.rawValue ?? "an unknown desktop")")
                continue
            }
            if let why = unavailability(of: rule.effect, desktop: desktop, compositor: compositor, keyboard: keyboard) {
                out.append("\(rule): \(why)")
            }
        }
        return out
    }

    /// What each rule does on GNOME (`--check-config`): live (GNOME's animation follows the finger), at completion,
    /// or cannot run, and why, with EdgeSwipe's extension there or not.
    public static func gnomePlan(of rules: [Rule], extensionPresent: Bool) -> [String] {
        rules.map { rule in
            if let wanted = rule.match.desktop, wanted != .gnome { return "\(rule): not on GNOME (compositor = \"\(wanted.rawValue)\")" }
            if let kind = LiveKind(rule, desktop: .gnome) {
                if extensionPresent { return "\(rule): live: GNOME's \(kind) animation follows the finger, and commits or goes back with the swipe" }
                if case .overview = kind { return "\(rule): at completion (the overview is toggled over D-Bus; live with EdgeSwipe's extension)" }
                return "\(rule): cannot run: workspaces on GNOME need EdgeSwipe's extension"
            }
            switch rule.effect {
            case .key where !extensionPresent: return "\(rule): cannot run: keys on GNOME need EdgeSwipe's extension"
            case .workspace:
                return "\(rule): cannot run: on GNOME a workspace rule drives GNOME's animation, so it must be on = \"completed\""
            case .sway, .hyprland, .niri, .kwinShortcut:
                return "\(rule): cannot run: " + (unavailability(of: rule.effect, desktop: .gnome, compositor: nil, keyboard: nil) ?? "not on GNOME")
            case .key, .command, .gnomeOverview:
                return "\(rule): on \(rule.phase.rawValue)"
            }
        }
    }

    static func unavailability(of effect: Effect, desktop: Desktop?, compositor: CompositorIPCError?, keyboard: WaylandError?) -> String? {
        switch effect {
        case .workspace:
            // On GNOME, EdgeSwipe's extension drives the workspace live; whether it is enabled is known later.
            if desktop == .gnome { return nil }
            guard let desktop, desktop.hasCompositorIPC else {
                return "workspace rules need sway, i3, Hyprland or niri (this session is \(desktop?.rawValue ?? "an unknown desktop"))"
            }
            return compositor.map { "cannot reach \(desktop.rawValue): \($0)" }
        case .sway:
            guard desktop == .sway || desktop == .i3 else { return "needs sway or i3 ($SWAYSOCK is not set)" }
            return compositor.map { "cannot reach \(desktop?.rawValue ?? "sway"): \($0)" }
        case .hyprland:
            guard desktop == .hyprland else { return "needs Hyprland ($HYPRLAND_INSTANCE_SIGNATURE is not set)" }
            return compositor.map { "cannot reach Hyprland: \($0)" }
        case .niri:
            guard desktop == .niri else { return "needs niri ($NIRI_SOCKET is not set)" }
            return compositor.map { "cannot reach niri: \($0)" }
        case .key:
            // On GNOME, keys go through EdgeSwipe's extension (GNOME has no virtual-keyboard protocol).
            if desktop == .gnome { return nil }
            return keyboard.map { "keys cannot be sent: \($0)" }
        case .kwinShortcut:
            return desktop == .kde ? nil : "needs KDE Plasma's KWin ($XDG_CURRENT_DESKTOP names no KDE)"
        case .gnomeOverview:
            return desktop == .gnome ? nil : "needs GNOME Shell ($XDG_CURRENT_DESKTOP names no GNOME)"
        case .command:
            return nil
        }
    }

    /// Stops following the compositor (before the event loop shuts down, so that its closed connections are not
    /// taken for the compositor's).
    public func stop() {
        if case .success(let ipc)? = compositor { ipc.stop() }
        // The bus thread ends after what was queued; GNOME's extension settles our open gestures when we leave.
        if case .success(let bus)? = desktopBus { bus.loop.stop() }
        commands.stop()
    }

    /// A line from the daemon the client could not read and skipped (``EdgeSwipeClient/observeUnreadableLines(_:)``):
    /// logged at most once per ``unreadableInterval``, with how many were skipped meanwhile, since whatever writes
    /// them controls how many come.
    public func unreadable(_ reason: String, line: [UInt8]) {
        let (allowed, held) = unreadableLog.withLockedValue { $0.admit() }
        guard allowed else { return }
        let shown = String(decoding: line.prefix(160), as: UTF8.self)
        logger.warning("daemon: skipped a line it cannot read (\(reason))\(held > 0 ? "; \(held) more skipped since the last said" : ""): \(shown)\(line.count > 160 ? "…" : "")")
    }

    static let unreadableInterval = Duration.seconds(10)

    /// Also hands every observation to `body` (on the event loop, after the rules): how another part of the
    /// session (the overlay) follows the same stream.
    public func observe(_ body: @escaping @Sendable (EdgeSwipeClient.Observation) -> Void) {
        eventLoop.execute { self.observers.append(body) }
    }

    /// New rules, from a reload.
    public func replace(_ rules: RuleSet) {
        eventLoop.execute {
            self.matcher.replace(rules)
            self.gnome?.claim(GnomeClaims.gestures(for: rules))
            self.refused.removeAll()
        }
    }

    /// One observation of the daemon client; on the event loop.
    public func handle(_ observation: EdgeSwipeClient.Observation) {
        eventLoop.preconditionInEventLoop()
        switch observation {
        case .message(let message, _):
            var firings: [Firing] = []
            for action in matcher.handle(message, app: app) {
                switch action {
                case .fire(let firing): firings.append(firing)
                case .warning(let line): logger.warning("\(line)")
                case .trace(let line): logger.trace("\(line)")
                }
            }
            // A transition a live rule owns does not fire again at completion: GNOME is never driven twice for it.
            firings.removeAll { live.suppresses($0) }
            perform(live.handle(message, matcher: matcher, app: app))
            for firing in firings { fire(firing) }
        case .disconnected:
            logger.notice("daemon: connection lost; reconnecting (nothing fires for what it missed)")
            perform(live.streamEnded())
        case .waiting(let socket):
            logger.notice("waiting for a daemon at \(socket)")
        }
        for body in observers { body(observation) }
    }

    /// Says a firing: at most once a second per rule for a `changed` rule, which may fire at every step of every
    /// swipe (hostile-4 s05: ~1.6 MB of log in 7 s), with how many were not said (each one at the debug level);
    /// every other firing, each time.
    private func logFiring(_ rule: Rule, _ gesture: String) {
        guard rule.phase == .changed else {
            logger.info("\(rule): \(gesture) -> \(rule.effect)")
            return
        }
        let key = "\(rule)"
        // One throttle per rule; the rules come from a file, but a long session reloads: the table is kept small.
        if changedLog[key] == nil, changedLog.count >= Self.changedLogLimit { changedLog.removeAll() }
        var throttle = changedLog[key] ?? LogThrottle(interval: .seconds(1))
        let (allowed, held) = throttle.admit()
        changedLog[key] = throttle
        guard allowed else {
            logger.debug("\(rule): \(gesture) -> \(rule.effect)")
            // What was held back is said a second later, should no firing come to say it.
            if changedFlushes.insert(key).inserted {
                eventLoop.scheduleTask(in: .seconds(1)) { [self] in
                    changedFlushes.remove(key)
                    guard var throttle = changedLog[key] else { return }
                    let (allowed, held) = throttle.admit()
                    changedLog[key] = throttle
                    if allowed, held > 0 { logger.info("\(key): \(held) more firings in the last second (a changed rule's are said once a second)") }
                }
            }
            return
        }
        logger.info("\(rule): \(gesture) -> \(rule.effect)\(held > 0 ? " (\(held) more firings since the last line: a changed rule's are said once a second)" : "")")
    }

    /// Carries out `firing`'s effect.
    public func fire(_ firing: Firing) {
        eventLoop.preconditionInEventLoop()
        fired += 1
        let rule = firing.rule
        let gesture = "\(firing.facts.gestureName) \(firing.phase.rawValue)\(firing.app.map { " in \($0)" } ?? "")"
        if dryRun {
            logger.notice("\(rule): \(gesture) -> \(rule.effect.wouldDo)")
            return
        }
        logFiring(rule, gesture)
        switch rule.effect {
        case .workspace where matcher.desktop == .gnome:
            refuse(rule, "workspace rules on GNOME need EdgeSwipe's GNOME Shell extension: run `gnome-extensions enable edgeswipe@edgeswipe.invalid`")
        case .key(let chord) where matcher.desktop == .gnome:
            if let keys = gnomeKeys {
                keys.send(chord, rule: "\(rule)")
            } else {
                refuse(rule, "keys on GNOME need EdgeSwipe's GNOME Shell extension: run `gnome-extensions enable edgeswipe@edgeswipe.invalid`")
            }
        case .workspace, .sway, .hyprland, .niri:
            switch compositor {
            case .success(let ipc)?:
                if let why = Self.unavailability(of: rule.effect, desktop: ipc.desktop, compositor: nil, keyboard: nil) {
                    refuse(rule, why)
                } else {
                    ipc.perform(rule.effect, facts: firing.facts, rule: rule)
                }
            case .failure(let error)?:
                refuse(rule, "cannot act: \(error)")
            case nil:
                refuse(rule, Self.unavailability(of: rule.effect, desktop: nil, compositor: nil, keyboard: nil) ?? "no compositor")
            }
        case .key(let chord):
            switch keys {
            case .success(let sender)?:
                // Handed over: the sender says itself, once, when a chord cannot be pressed.
                sender.send(chord, rule: "\(rule)")
            case .failure(let error)?:
                refuse(rule, "keys cannot be sent: \(error)")
            case nil:
                refuse(rule, "keys cannot be sent: no Wayland connection")
            }
        case .command(let argv, let timeout):
            commands.run("\(rule)", argv: argv, timeout: timeout, environment: commandEnvironment(firing))
        case .kwinShortcut, .gnomeOverview:
            if let why = Self.unavailability(of: rule.effect, desktop: matcher.desktop, compositor: nil, keyboard: nil) {
                refuse(rule, why)
                return
            }
            switch desktopBus {
            case .success(let bus)?: bus.perform(rule.effect, rule: rule)
            case .failure(let error)?: refuse(rule, "D-Bus effects cannot run: cannot start their thread: \(error)")
            case nil: refuse(rule, "D-Bus effects cannot run: no session bus")
            }
        }
    }

    private func refuse(_ rule: Rule, _ why: String) {
        guard refused.insert("\(rule.place) \(why)").inserted else { return }
        logger.error("\(rule): \(why) (said once; the other rules keep working)")
    }

    /// The session's environment plus the event, for a command.
    func commandEnvironment(_ f: Firing) -> [String: String] {
        var env = environment
        let facts = f.facts
        env["EDGESWIPE_RULE"] = f.rule.name
        env["EDGESWIPE_PHASE"] = f.phase.rawValue
        env["EDGESWIPE_TRANSITION"] = String(facts.id)
        env["EDGESWIPE_CONTAINER"] = facts.container
        env["EDGESWIPE_OPERATION"] = facts.operation
        env["EDGESWIPE_FROM"] = facts.from
        env["EDGESWIPE_TO"] = facts.to
        env["EDGESWIPE_GESTURE"] = facts.edge != nil ? "edge" : facts.swipe != nil ? "swipe" : "requested"
        env["EDGESWIPE_EDGE"] = facts.edge?.rawValue ?? ""
        env["EDGESWIPE_DIRECTION"] = facts.swipe?.rawValue ?? ""
        env["EDGESWIPE_FINGERS"] = facts.fingers.map(String.init) ?? ""
        env["EDGESWIPE_DEVICE_KIND"] = facts.deviceKind?.rawValue ?? ""
        env["EDGESWIPE_OUTPUT"] = facts.output ?? ""
        env["EDGESWIPE_PERCENT"] = String(format2: facts.percent)
        env["EDGESWIPE_VELOCITY"] = String(format2: facts.velocity)
        env["EDGESWIPE_APP"] = f.app ?? ""
        env["EDGESWIPE_STEP"] = f.stepDirection.map { $0 > 0 ? "+1" : "-1" } ?? ""
        return env
    }
}

extension String {
    /// `x` with up to four decimals, without Foundation (`0.7`, `1`, `0.3333`). The client reads the stream's
    /// numbers within ±1e9 (``WireRanges``); past ±1e12 (or not finite) it writes the bound, so that the conversion
    /// below never traps whatever it is handed.
    init(format2 x: Double) {
        guard x.isFinite else {
            self = "0"
            return
        }
        let bound = 1e12
        let scaled = (Swift.min(bound, Swift.max(-bound, x)) * 10000).rounded()
        var s = String(Int64(scaled) / 10000)
        var fraction = abs(Int64(scaled) % 10000)
        if scaled < 0 && s == "0" { s = "-0" }
        if fraction == 0 {
            self = s
            return
        }
        var digits = String(fraction)
        while digits.count < 4 { digits = "0" + digits }
        while digits.hasSuffix("0") {
            digits.removeLast()
            fraction /= 10
        }
        self = s + "." + digits
    }
}
