import EdgeSwipeBus
import EdgeSwipeConfig
import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeInput
import EdgeSwipeLiveInput
import EdgeSwipeRecordings
import EdgeSwipeSeat
import EdgeSwipeProtocol
import EdgeSwipeServer
import EdgeSwipeSystem
import Glibc
import Logging
import ServiceLifecycle
import Synchronization
import SystemPackage
import UnixSignals

/// Why the daemon could not start, with the exit status that says so.
struct StartupError: Error, CustomStringConvertible {
    var exitStatus: Int32
    var description: String
}

/// The composition root: configuration, input thread, engine, socket server and systemd, run as one
/// swift-service-lifecycle service.
final class Daemon: Service, Sendable {
    private let settings: Mutex<EdgeSwipeSettings>
    private let configPath: String?
    private let input: InputThread
    /// Started in ``run()``, once the signal handlers are in place, so that a client that sees the socket can
    /// rely on SIGTERM and SIGHUP being handled.
    private let server = ServerBox()
    private let serverConfiguration: ServerConfiguration
    private let initialSnapshot: ServerSnapshot
    private let router = RequestRouter()
    private let logger: Logger
    private let exited = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let hasExited = Mutex(false)
    private let failureStatus = Mutex<Int32?>(nil)
    /// State persistence, socket watch, mode checks (DaemonHardening.swift).
    private let hardening: DaemonHardening
    /// What the system bus connection made at start-up follows (a reload cannot add to it).
    private let seatFollows: (sessions: Bool, accelerometer: Bool)

    /// Set when the daemon stopped because something failed rather than because it was asked to.
    var failure: Int32? { failureStatus.withLock { $0 } }

    /// Prepares everything that can fail with a clear exit status (configuration, recordings, devices), without
    /// serving anyone yet.
    init(options: EdgeSwipeDaemon, settings: EdgeSwipeSettings, logger: Logger) throws(StartupError) {
        self.settings = Mutex(settings)
        self.configPath = options.config
        self.logger = logger

        // Hardening: the saved container state replaces the configured initial state; unsafe socket modes refuse.
        let hardening = DaemonHardening(options: options, logger: logger)
        self.hardening = hardening
        // Live touchpads' swipes are libinput's own gestures; a replay's come from the engine's emulation of them.
        let engine = Engine(
            configuration: hardening.initialConfiguration(settings.engine),
            touchpadSwipes: options.replay.isEmpty ? .libinputGestures : .touchFrames)
        let summary = ConfigSummary(configuration: settings.engine, source: options.config ?? "built-in")
        let listener = try Self.listener(options.socket, logger: logger)
        try hardening.checkSocket(listener, admitsActiveSession: settings.access.followsActiveSession)
        var configuration = ServerConfiguration(listener: listener, serverVersion: "edgeswiped \(EdgeSwipeVersion.string)")
        configuration.access = Self.accessPolicy(settings.access)
        // The seat's active user is in no group of ours: a socket the daemon binds itself must let every user reach
        // the credential check (as the system service's socket unit does). Its directory still decides who can.
        if settings.access.followsActiveSession { configuration.socketMode = 0o666 }
        // The seat, through the system bus: who is active on it (for "active-session"), sleep, the accelerometer
        // (for rotation = "auto"). Read before the server starts, so that the first client is judged by it.
        let seat = Self.seatWatcher(options: options, settings: settings, logger: logger)
        seatFollows = (settings.access.followsActiveSession && seat != nil, settings.devices.followsAccelerometer && seat != nil)
        configuration.accessContext = AccessContext(activeSessionUIDs: seat?.activeSession.map { [$0.uid] } ?? [])
        configuration.maxClients = settings.daemon.maxClients
        configuration.maxClientsPerUser = settings.daemon.maxClientsPerUser
        configuration.stallTimeout = .seconds(settings.daemon.stallTimeoutSeconds)
        if let direct = options.directWrites { configuration.directWriteLimit = direct }
        // What a burst of clients allocated stays in glibc's arenas once they have gone, and resident: hand it
        // back (ProcessHeap.swift has the measurement).
        configuration.clientsDeparted = { [logger] in
            let started = MonotonicClock.now()
            let free = ProcessHeap.releaseFreeMemory()
            logger.debug("clients left: returned free heap memory to the system", metadata: [
                "free_bytes": "\(free)", "took_us": "\((MonotonicClock.now() - started).value)",
            ])
        }
        if options.waitForClients > 0 {
            // The replay's gate checks the connection count when the input thread wakes: wake it for each client.
            let router = self.router
            configuration.connectionRegistered = { _ in router.input.withLock { $0 }?.wake() }
        }
        serverConfiguration = configuration
        initialSnapshot = ServerSnapshot(serverVersion: configuration.serverVersion, devices: [], config: summary, state: engine.snapshot)

        let server = self.server
        let sources = [try Self.source(options: options, settings: settings, clients: { server.current?.statistics.connections ?? 0 }, logger: logger)]
        do {
            input = try InputThread(
                engine: engine, sources: sources, rotations: hardening.state?.restoredRotations ?? [], seat: seat,
                barrier: hardening.persistence, logger: Logger(label: "edgeswiped.input"),
                sessionChanged: { session in
                    // On the input thread, before the next batch is published (InputThread.serviceSeat).
                    server.current?.updateAccessContext(
                        AccessContext(activeSessionUIDs: session.map { [$0.uid] } ?? []), revokedReason: .sessionInactive)
                }
            ) { events, generation, rotations in
                server.current?.publish(events)
                // Hardening: the state writer saves the state (and the rotations clients set), off this thread
                hardening.willPublish(events, stateGeneration: generation, rotations: rotations)
            }
        } catch {
            throw StartupError(exitStatus: ExitStatus.osError, description: "\(error)")
        }
        router.input.withLock { $0 = input }
    }

    // MARK: - Start-up helpers

    private static func listener(_ socket: String?, logger: Logger) throws(StartupError) -> ServerConfiguration.Listener {
        do {
            let fds = try ServiceManager.listeningDescriptors()
            if let fd = fds.first {
                logger.info("using the socket systemd passed (fd \(fd))")
                return .fileDescriptor(fd)
            }
        } catch {
            throw StartupError(exitStatus: ExitStatus.unavailable, description: "socket activation: \(error)")
        }
        if let socket { return .path(socket) }
        let environment = ProcessEnvironment.current()
        if getuid() == 0 {
            let directory = "/run/edgeswipe"
            try? FilePath(directory).createDirectories(permissions: FilePermissions(rawValue: 0o750))
            return .path(directory + "/edgeswipe.sock")
        }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
            throw StartupError(exitStatus: ExitStatus.unavailable, description: "XDG_RUNTIME_DIR is not set; pass --socket PATH")
        }
        return .path(runtime + "/edgeswipe.sock")
    }

    /// The configured access lists. All empty: the server's default (our uid and the socket's group may read and
    /// control). Lists that are given are exact, so an administrator can lock even the daemon's own uid out;
    /// empty read lists next to given control lists default to our uid and group. Whoever may control may read.
    /// `read`/`control` keywords add the seat's active session, the daemon's own uid or the socket's group.
    static func accessPolicy(_ access: AccessSettings) -> AccessPolicy? {
        let readGiven = !access.readUIDs.isEmpty || !access.readGIDs.isEmpty || !access.read.isEmpty
        let controlGiven = !access.controlUIDs.isEmpty || !access.controlGIDs.isEmpty || !access.control.isEmpty
        if !readGiven && !controlGiven { return nil }
        func grant(_ uids: [UInt32], _ gids: [UInt32], _ keywords: [AccessKeyword]) -> AccessGrant {
            var g = AccessGrant(uids: Set(uids), gids: Set(gids))
            for keyword in keywords {
                switch keyword {
                case .activeSession: g.activeSession = true
                case .owner: g.uids.insert(UInt32(getuid()))
                case .socketGroup: g.socketGroup = true
                }
            }
            return g
        }
        let control = grant(access.controlUIDs, access.controlGIDs, access.control)
        var read = readGiven
            ? grant(access.readUIDs, access.readGIDs, access.read)
            : AccessGrant(uids: [UInt32(getuid())], gids: [UInt32(getegid())])
        read.uids.formUnion(control.uids)
        read.gids.formUnion(control.gids)
        read.activeSession = read.activeSession || control.activeSession
        read.socketGroup = read.socketGroup || control.socketGroup
        return AccessPolicy(read: read, control: control)
    }

    /// The system bus, for what the configuration follows (the active session, the accelerometer) and, with live
    /// devices, for sleep. `nil` when there is no bus: said once, at the level what is lost deserves.
    private static func seatWatcher(options: EdgeSwipeDaemon, settings: EdgeSwipeSettings, logger: Logger) -> SeatWatcher? {
        let sessions = settings.access.followsActiveSession
        let accelerometer = settings.devices.followsAccelerometer
        let live = options.replay.isEmpty
        guard sessions || accelerometer || live else { return nil }
        let seat = options.seat ?? settings.daemon.seat
        do {
            return try SeatWatcher(
                options: SeatWatcher.Options(seat: seat, followSessions: sessions, followAccelerometer: accelerometer),
                logger: Logger(label: "edgeswiped.seat"))
        } catch {
            if sessions {
                logger.warning("cannot reach the system bus (\(error)): \"active-session\" in [access] admits nobody")
            } else if accelerometer {
                logger.warning("cannot reach the system bus (\(error)): devices with rotation = \"auto\" keep their configured rotation")
            } else {
                logger.info("no system bus (\(error)): gestures in flight are not cancelled before the machine sleeps")
            }
            return nil
        }
    }

    private static func source(
        options: EdgeSwipeDaemon, settings: EdgeSwipeSettings, clients: @escaping () -> Int, logger: Logger
    ) throws(StartupError) -> any InputSource {
        let setup = settings.devices.setup(for: settings.engine)
        if !options.replay.isEmpty {
            var recordings: [Recording] = []
            for path in options.replay {
                guard FilePath(path).isReadable else {
                    throw StartupError(exitStatus: ExitStatus.noInput, description: "\(path): cannot read the recording")
                }
                do {
                    recordings.append(try Recording.load(path: path, descriptionPath: options.desc))
                } catch {
                    throw StartupError(exitStatus: ExitStatus.dataError, description: "\(error)")
                }
            }
            let wanted = options.waitForClients
            // A looped replay keeps its devices from pass to pass (ReplaySource): they are the same devices.
            let source = ReplaySource(
                recordings: recordings,
                options: RecordingPlayer.Options(
                    setup: setup, removeDevicesAtEnd: !options.loop,
                    schedule: options.inTurn ? .aSecondApart : .together),
                speed: options.speed, loop: options.loop,
                gate: { wanted == 0 || clients() >= wanted }, logger: logger)
            if source.devices.isEmpty {
                throw StartupError(exitStatus: ExitStatus.dataError, description: "\(options.replay.joined(separator: ", ")): no touch device to replay")
            }
            return source
        }
        do {
            let live = try LiveTouchInput(
                backend: options.devices.isEmpty ? .udev(seat: options.seat ?? settings.daemon.seat) : .paths(options.devices),
                filter: try settings.devices.filter(), setup: setup, logger: Logger(label: "edgeswiped.libinput"))
            return LiveSource(input: live, logger: logger)
        } catch {
            throw StartupError(exitStatus: ExitStatus.unavailable, description: "\(error)")
        }
    }

    // MARK: - Running

    func run() async throws {
        // Handlers first (ServiceGroup has installed SIGTERM's and SIGINT's before calling us), then the socket.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let server: EdgeSwipeServer
        do {
            server = try EdgeSwipeServer.start(
                configuration: serverConfiguration, snapshot: initialSnapshot, handler: router,
                logger: Logger(label: "edgeswiped.server"))
        } catch {
            failureStatus.withLock { $0 = ExitStatus.forServerError(error) }
            logger.critical("\(error)")
            return
        }
        self.server.set(server)
        // A crash must not leave the socket file it bound behind (CrashCleanup.swift); systemd's is systemd's.
        if case .path(let path) = serverConfiguration.listener { CrashCleanup.install(socketPath: path) }
        do {
            try input.start { [self] in
                hasExited.withLock { $0 = true }
                exited.withLock { $0?.resume(); $0 = nil }
            }
        } catch {
            failureStatus.withLock { $0 = ExitStatus.osError }
            logger.critical("\(error)")
            await server.shutdown(message: "start-up failed")
            return
        }
        // Hardening: a deleted socket file is noticed and bound again. Watched before READY=1, so that a deletion
        // right after it is never missed (HardeningTests deletes the socket as soon as it sees READY=1).
        hardening.watchSocket(server)
        sendNotify(.ready, .status("serving \(server.socketPath ?? "the systemd socket")"))
        logger.info("ready", metadata: ["socket": "\(server.socketPath ?? "systemd")", "version": "\(EdgeSwipeVersion.string)"])

        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.reload(on: hangups, server: server) }
            do {
                if let watchdog = try ServiceManager.watchdog() {
                    group.addTask { await self.feedWatchdog(every: watchdog.pingInterval) }
                }
            } catch {
                logger.error("the watchdog is not fed: \(error)")
            }
            // Stop on SIGTERM/SIGINT (graceful shutdown), or when the input ends (a replay without --loop).
            await withGracefulShutdownHandler {
                await self.inputExited()
            } onGracefulShutdown: {
                self.input.send(.shutdown)
            }
            group.cancelAll()
        }
        // The input thread has cancelled every transition and published the terminal events.
        sendNotify(.stopping)
        hardening.stop()  // Hardening: stop watching before the server removes its socket file
        await server.shutdown(message: "edgeswiped is stopping")
        logger.info("stopped")
    }

    private func inputExited() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let already = hasExited.withLock { $0 }
            if already { continuation.resume(); return }
            exited.withLock { $0 = continuation }
            // The thread may have ended between the check and the store.
            if hasExited.withLock({ $0 }) { exited.withLock { $0?.resume(); $0 = nil } }
        }
    }

    private func reload(on hangups: UnixSignalsSequence, server: EdgeSwipeServer) async {
        for await _ in hangups { reload(server: server) }
    }

    /// SIGHUP: read the file again; a bad file keeps the configuration in force, and everyone is told.
    private func reload(server: EdgeSwipeServer) {
        sendNotify(.reloading)
        defer { sendNotify(.ready) }
        guard let configPath else {
            server.publishConfig(.reloaded, message: "no configuration file: the built-in configuration stays", config: nil)
            return
        }
        do {
            let fresh = try ConfigParser.load(path: configPath)
            for warning in fresh.warnings { logger.warning("\(warning)") }
            settings.withLock { $0 = fresh }
            input.send(.reconfigure(fresh.engine))
            // The new [access] holds for the connections already open too: whoever it no longer admits is told
            // (goodbye "access-revoked") and let go, whoever lost control loses it now.
            server.applyAccessPolicy(Self.accessPolicy(fresh.access))
            if fresh.access.followsActiveSession && !seatFollows.sessions {
                logger.warning("[access] now names \"active-session\", which the daemon did not follow at start-up: it admits nobody until a restart")
            }
            if fresh.devices.followsAccelerometer && !seatFollows.accelerometer {
                logger.warning("[[devices.override]] now has rotation = \"auto\", which the daemon did not follow at start-up: restart to follow the accelerometer")
            }
            server.setClientLimits(
                maxClients: fresh.daemon.maxClients, maxClientsPerUser: fresh.daemon.maxClientsPerUser,
                stallTimeout: .seconds(fresh.daemon.stallTimeoutSeconds))
            server.publishConfig(.reloaded, message: "reloaded \(configPath)", config: ConfigSummary(configuration: fresh.engine, source: configPath))
            logger.info("configuration reloaded", metadata: ["file": "\(configPath)"])
        } catch {
            logger.error("configuration rejected, keeping the old one: \(error)")
            server.publishConfig(.rejected, message: error.description, config: nil)
        }
    }

    private func feedWatchdog(every interval: Duration) async {
        while !Task.isCancelled {
            sendNotify(.watchdog)
            try? await Task.sleep(for: interval)
        }
    }

    /// Tells systemd, when it started the daemon with `Type=notify`; a failure is logged, never fatal.
    private func sendNotify(_ states: NotifyState...) {
        do {
            try ServiceManager.notify(states)
        } catch {
            logger.warning("\(error)")
        }
    }
}

/// The server, once ``Daemon/run()`` has started it; shared with the input thread, which publishes to it.
final class ServerBox: Sendable {
    private let value = Mutex<EdgeSwipeServer?>(nil)
    var current: EdgeSwipeServer? { value.withLock { $0 } }
    func set(_ server: EdgeSwipeServer) { value.withLock { $0 = server } }
}
