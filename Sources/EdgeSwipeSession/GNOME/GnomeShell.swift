public import EdgeSwipeBus
public import EdgeSwipeSessionModel
public import EdgeSwipeVocabulary
import Logging

/// What the GNOME backend learnt, handed to the session's event loop (``GnomeShell/init(loop:claims:deliver:)``).
public enum GnomeShellEvent: Hashable, Sendable {
    /// Registered with EdgeSwipe's extension (at start, or again after its `Ready`: a re-enable, the lock screen):
    /// what it offers (`workspace`, `overview`, `keys`, `focused-app`, `claim:NAME`).
    case registered(capabilities: Set<String>, shellVersion: String)
    /// The extension is not there (not enabled, refused us, GNOME Shell left): nothing is live, no keys.
    case unavailable
    /// The focused app (its Wayland app id, else GNOME's desktop id), or `nil` for none.
    case focus(String?)
    /// The shell let go of transition's gesture (its `GestureSettled`, a refused `BeginGesture`): why.
    case settled(transition: UInt64, reason: String)
}

/// The session's GNOME backend: a client of EdgeSwipe's GNOME Shell extension (`org.edgeswipe.Shell1` at
/// `/org/edgeswipe/Shell` on `org.gnome.Shell`, gnome-shell-extension/org.edgeswipe.Shell1.xml), on the bus thread
/// (``BusLoop``). It registers when the extension appears (at start if it is there, on each `Ready`), claims the
/// gestures of GNOME's that the user's live rules own, follows the focused app, drives GNOME's animations for live
/// rules (begin, one update per percent with no reply awaited, end with the daemon's run-out) and sends chords.
///
/// Signals are taken only from the current owner of `org.gnome.Shell`: another client of the bus cannot forge a
/// focus change or a settled gesture. Everything it learns goes to `deliver`, which the session points at its event
/// loop; its own state (``State``) lives on the bus thread.
public final class GnomeShell: Sendable {
    public static let shellName = "org.gnome.Shell"
    public static let path = "/org/edgeswipe/Shell"
    public static let interface = "org.edgeswipe.Shell1"
    /// The API this client speaks (the extension answers its own; additions raise it, breaks rename the interface).
    public static let apiVersion: UInt32 = 1
    /// How long the shell has to answer a call that is answered (Register, BeginGesture, EndGesture, SendChord).
    public static let callTimeout = Microseconds(2_000_000)
    /// How long a gesture whose daemon went away takes to go back.
    public static let goBackMS: UInt32 = 250
    /// The line said once when the extension is not enabled.
    public static let enableHint =
        "EdgeSwipe's GNOME Shell extension is not enabled: run `gnome-extensions enable edgeswipe@edgeswipe.invalid` (on Wayland, log out and in first if GNOME does not list it yet); until then workspace rules cannot run, keys cannot be sent and gnome_overview rules toggle the overview at completion"

    private let loop: BusLoop
    private let claims: [String]
    private let deliver: @Sendable (GnomeShellEvent) -> Void

    static func method(_ member: String) -> BusMethod {
        BusMethod(destination: shellName, path: path, interface: interface, member: member)
    }

    /// Starts following the extension on `loop`'s connection; `claims` are the gestures to claim (``GnomeClaims``).
    public init(loop: BusLoop, claims: [String], deliver: @escaping @Sendable (GnomeShellEvent) -> Void) {
        self.loop = loop
        self.claims = claims
        self.deliver = deliver
        loop.onConnected { [self] context in state(context).connected(context) }
        loop.onDisconnected { [self] context in state(context).lost() }
    }

    /// The backend's state on the bus thread, made at its first use there.
    private func state(_ context: BusContext) -> State {
        context.local(State.self) { State(logger: context.logger, claims: claims, deliver: deliver) }
    }

    /// Begins GNOME's gesture `kind` for `transition`; updates and the end follow in order on the same connection.
    public func begin(_ transition: UInt64, kind: LiveKind, monitor: Int32 = -1) {
        loop.enqueue { [self] context in state(context).begin(transition, kind: kind, monitor: monitor, context) }
    }

    /// The percent (0...1), sent with no reply awaited.
    public func update(_ transition: UInt64, percent: Double) {
        loop.enqueue { [self] context in state(context).update(transition, percent: percent, context) }
    }

    /// The daemon's decision and its run-out.
    public func end(_ transition: UInt64, commit: Bool, durationMS: UInt32) {
        loop.enqueue { [self] context in state(context).end(transition, commit: commit, durationMS: durationMS, context) }
    }

    /// Types `chord` through the shell's virtual keyboard, for `rule` (named in the error line if it fails).
    public func send(_ chord: KeyChord, rule: String) {
        loop.enqueue { [self] context in state(context).send(chord, rule: rule, context) }
    }

    /// New claims (a reload): replaces the last set.
    public func claim(_ gestures: [String]) {
        loop.enqueue { [self] context in
            let s = state(context)
            s.claims = gestures
            s.sendClaims(context)
        }
    }

    /// Whether the extension is there, on `bus` (its `ApiVersion`, within a second): for `--check-config`, which may
    /// wait.
    public static func probe(_ bus: SDBus) -> Result<UInt32, BusError> {
        do {
            let reply = try bus.call(BusMethod.getProperty(shellName, path), values: [.string(interface), .string("ApiVersion")], timeout: Microseconds(1_000_000))
            guard case .uint32(let v)? = reply.body.first?.unwrapped else { return .failure(.reply(call: "\(interface).ApiVersion", problem: "\(reply.body)")) }
            return .success(v)
        } catch {
            return .failure(error)
        }
    }

    /// The extension's names of the modifiers of `chord`, or the first it has no name for (mod2, mod3).
    static func modifierNames(_ chord: KeyChord) -> Result<[String], KeyChordError> {
        var out: [String] = []
        for m in chord.modifiers {
            switch m {
            case .shift, .ctrl, .alt, .super, .altgr: out.append(m.rawValue)
            case .mod2, .mod3: return .failure(KeyChordError("GNOME's keys have no \(m.rawValue) (shift, ctrl, alt, super and altgr only)"))
            }
        }
        return .success(out)
    }

    /// The backend's state, on the bus thread alone (kept by ``BusContext/local(_:make:)``).
    final class State {
        let logger: Logger
        var claims: [String]
        let deliver: @Sendable (GnomeShellEvent) -> Void
        /// The unique name of `org.gnome.Shell`'s owner: the only sender whose signals count.
        var owner: String?
        var registered = false
        var capabilities: Set<String> = []
        var saidNotEnabled = false
        /// Overview gestures waiting for the overview's state to name their kind: the percents and decision that came
        /// meanwhile, sent after the begin.
        var resolving: [UInt64: (percent: Double?, end: (Bool, UInt32)?)] = [:]

        init(logger: Logger, claims: [String], deliver: @escaping @Sendable (GnomeShellEvent) -> Void) {
            self.logger = logger
            self.claims = claims
            self.deliver = deliver
        }

        func connected(_ context: BusContext) {
            do {
                try context.addMatch(
                    "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(GnomeShell.shellName)'"
                ) { [unowned self] m in
                    guard m.sender == "org.freedesktop.DBus", case .string(let new)? = m.body.last else { return }
                    self.ownerChanged(new.isEmpty ? nil : new, context)
                }
                try context.addMatch("type='signal',interface='\(GnomeShell.interface)',path='\(GnomeShell.path)'") { [unowned self] m in
                    self.signal(m, context)
                }
            } catch {
                logger.error("GNOME: cannot follow EdgeSwipe's extension: \(error)")
                return
            }
            context.callAsync(
                BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetNameOwner"),
                values: [.string(GnomeShell.shellName)], timeout: GnomeShell.callTimeout
            ) { [unowned self] result in
                if case .success(let m) = result, case .string(let name)? = m.body.first { self.ownerChanged(name, context) } else { self.ownerChanged(nil, context) }
            }
        }

        func lost() {
            owner = nil
            resolving = [:]
            if registered { deliver(.unavailable) }
            registered = false
        }

        private func ownerChanged(_ new: String?, _ context: BusContext) {
            guard new != owner || new == nil else { return }
            owner = new
            if registered {
                registered = false
                resolving = [:]
                deliver(.unavailable)
            }
            if new != nil { register(context) } else { logger.notice("GNOME: GNOME Shell is not on the session bus") }
        }

        private func signal(_ m: BusMessage, _ context: BusContext) {
            guard let sender = m.sender, sender == owner else {
                logger.debug("GNOME: a \(m.member ?? "?") signal from \(m.sender ?? "nobody"), not GNOME Shell: ignored")
                return
            }
            switch (m.member, m.body) {
            case ("Ready", _):
                logger.info("GNOME: EdgeSwipe's extension is ready; registering")
                registered = false
                register(context)
            case ("FocusedAppChanged", let body):
                guard registered else { return }
                deliver(.focus(Self.app(body)))
            case ("GestureSettled", let body):
                guard registered, body.count == 2, case .uint64(let id) = body[0], case .string(let reason) = body[1] else { return }
                deliver(.settled(transition: id, reason: "GNOME Shell settled it (\(reason))"))
            default:
                return
            }
        }

        /// The app from `(app_id, desktop_id)`: the Wayland app id, as on the other desktops, else the desktop id.
        static func app(_ body: [BusValue]) -> String? {
            let fields: [BusValue] = if body.count == 1, case .structure(let f) = body[0] { f } else { body }
            guard fields.count == 2, case .string(let appID) = fields[0], case .string(let desktopID) = fields[1] else { return nil }
            let app = appID.isEmpty ? desktopID : appID
            return app.isEmpty ? nil : app
        }

        private func register(_ context: BusContext) {
            context.callAsync(GnomeShell.method("Register"), values: [.uint32(GnomeShell.apiVersion)], timeout: GnomeShell.callTimeout) {
                [unowned self] result in
                switch result {
                case .success(let m):
                    guard m.body.count == 3, case .uint32(let api) = m.body[0], case .string(let version) = m.body[1],
                        let caps = m.body[2].stringArray
                    else {
                        logger.error("GNOME: Register answered \(m.body), not (u, s, as): the extension does not speak API \(GnomeShell.apiVersion)")
                        return
                    }
                    registered = true
                    capabilities = Set(caps)
                    saidNotEnabled = false
                    logger.notice("GNOME: registered with EdgeSwipe's extension (API \(api), GNOME Shell \(version)): \(caps.joined(separator: ", "))")
                    deliver(.registered(capabilities: capabilities, shellVersion: version))
                    sendClaims(context)
                    readFocus(context)
                case .failure(let error):
                    switch error.remoteName {
                    case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownObject",
                        "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.ServiceUnknown":
                        if !saidNotEnabled { logger.notice("\(GnomeShell.enableHint)") }
                        saidNotEnabled = true
                    default:
                        logger.error("GNOME: EdgeSwipe's extension refused to register this session: \(error)")
                    }
                    deliver(.unavailable)
                }
            }
        }

        func sendClaims(_ context: BusContext) {
            guard registered else { return }
            let offered = claims.filter { capabilities.contains("claim:\($0)") }
            for missing in claims where !offered.contains(missing) {
                logger.notice("GNOME: this GNOME cannot hand over its \(missing) gesture: both GNOME and a rule may act on it")
            }
            context.callAsync(
                GnomeShell.method("ClaimGestures"), values: [.array(offered.map(BusValue.string))], signature: "as", timeout: GnomeShell.callTimeout
            ) { [unowned self] result in
                switch result {
                case .success(let m): logger.info("GNOME: GNOME's own gestures now off: \(m.body.first?.stringArray?.joined(separator: ", ") ?? "none")")
                case .failure(let error): logger.error("GNOME: ClaimGestures \(offered) failed: \(error)")
                }
            }
        }

        private func readFocus(_ context: BusContext) {
            guard capabilities.contains("focused-app") else { return }
            context.callAsync(
                BusMethod.getProperty(GnomeShell.shellName, GnomeShell.path), values: [.string(GnomeShell.interface), .string("FocusedApp")],
                timeout: GnomeShell.callTimeout
            ) { [unowned self] result in
                guard case .success(let m) = result, let value = m.body.first?.unwrapped else { return }
                deliver(.focus(Self.app([value])))
            }
        }

        func begin(_ id: UInt64, kind: LiveKind, monitor: Int32, _ context: BusContext) {
            guard registered else {
                deliver(.settled(transition: id, reason: "EdgeSwipe's extension is not registered"))
                return
            }
            if let name = kind.gnomeKind {
                sendBegin(id, name: name, monitor: monitor, context)
                return
            }
            // A toggle: show or hide, from the overview's state now. The percents that come meanwhile wait.
            resolving[id] = (nil, nil)
            context.callAsync(
                BusMethod.getProperty(GnomeShell.shellName, "/org/gnome/Shell"), values: [.string("org.gnome.Shell"), .string("OverviewActive")],
                timeout: GnomeShell.callTimeout
            ) { [unowned self] result in
                guard let waiting = resolving.removeValue(forKey: id) else { return }
                let shown: Bool = if case .success(let m) = result, case .bool(let b)? = m.body.first?.unwrapped { b } else { false }
                sendBegin(id, name: shown ? "overview-hide" : "overview-show", monitor: monitor, context)
                if let p = waiting.percent { update(id, percent: p, context) }
                if let (commit, ms) = waiting.end { end(id, commit: commit, durationMS: ms, context) }
            }
        }

        private func sendBegin(_ id: UInt64, name: String, monitor: Int32, _ context: BusContext) {
            context.callAsync(
                GnomeShell.method("BeginGesture"), values: [.uint64(id), .string(name), .int32(monitor)], timeout: GnomeShell.callTimeout
            ) { [unowned self] result in
                if case .failure(let error) = result {
                    deliver(.settled(transition: id, reason: "GNOME Shell refused to begin \(name): \(error)"))
                }
            }
        }

        func update(_ id: UInt64, percent: Double, _ context: BusContext) {
            if resolving[id] != nil {
                resolving[id]?.percent = percent
                return
            }
            do { try context.send(GnomeShell.method("UpdateGesture"), values: [.uint64(id), .double(percent)]) } catch {
                deliver(.settled(transition: id, reason: "UpdateGesture could not be sent: \(error)"))
            }
        }

        func end(_ id: UInt64, commit: Bool, durationMS: UInt32, _ context: BusContext) {
            if resolving[id] != nil {
                resolving[id]?.end = (commit, durationMS)
                return
            }
            context.callAsync(
                GnomeShell.method("EndGesture"), values: [.uint64(id), .bool(commit), .uint32(durationMS)], timeout: GnomeShell.callTimeout
            ) { [unowned self] result in
                // After a settle the shell knows the transition no more: that answer is expected, and was said.
                if case .failure(let error) = result, error.remoteName != "org.edgeswipe.Shell1.Error.UnknownTransition" {
                    logger.notice("GNOME: EndGesture for transition \(id) failed: \(error)")
                }
            }
        }

        func send(_ chord: KeyChord, rule: String, _ context: BusContext) {
            guard registered, capabilities.contains("keys") else {
                logger.error("\(rule): cannot send \(chord): EdgeSwipe's GNOME Shell extension is not registered")
                return
            }
            let modifiers: [String]
            switch GnomeShell.modifierNames(chord) {
            case .success(let names): modifiers = names
            case .failure(let error):
                logger.error("\(rule): cannot send \(chord): \(error)")
                return
            }
            context.callAsync(
                GnomeShell.method("SendChord"), values: [.array(modifiers.map(BusValue.string)), .uint32(chord.keysym)], signature: "asu",
                timeout: GnomeShell.callTimeout
            ) { [logger] result in
                if case .failure(let error) = result { logger.error("\(rule): GNOME Shell did not send \(chord): \(error)") }
            }
        }
    }
}
