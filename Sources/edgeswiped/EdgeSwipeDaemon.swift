import ArgumentParser
import EdgeSwipeConfig
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeLiveInput
import EdgeSwipeProtocol
import EdgeSwipeServer
import EdgeSwipeSystem
import Glibc
import Logging
import ServiceLifecycle
import UnixSignals

/// sysexits(3) codes: systemd and shell scripts can tell a bad file from a busy socket. The same list is in
/// `--help` and the README.
enum ExitStatus {
    /// `--check-config`: the file was read and is invalid.
    static let invalidConfigCheck: Int32 = 1
    /// A usage error (ArgumentParser's own), also a socket path too long for a Unix socket.
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    /// A file (configuration, recording) cannot be read: missing, unreadable, not a regular file.
    static let noInput: Int32 = 66
    /// The socket is in use by a live daemon, its path is taken by something else or its directory is unsafe,
    /// systemd passed no usable socket, or no input device is available.
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    /// A system call failed: binding in a directory that does not exist or cannot be written, and the like.
    static let osError: Int32 = 71
    static let config: Int32 = 78

    /// The status for a server that could not start.
    static func forServerError(_ error: ServerError) -> Int32 {
        switch error {
        case .socketInUse, .pathOccupied, .notAListeningSocket, .cannotRebind: unavailable
        case .pathTooLong: usage
        case .system: osError
        case .shutDown: software
        }
    }
}

/// `--log-level` values: swift-log's levels.
enum LogLevelOption: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

struct EdgeSwipeDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edgeswiped",
        abstract: "Turns screen-edge swipes into interactive transitions and streams them over a Unix socket.",
        discussion: """
            Reads touchscreens through libinput and touchpads through libevdev (without grabbing them), \
            recognizes swipes that start at a screen edge, drives UIKit-style percent-driven transitions with \
            them, and streams gestures, transition progress, scene geometry, lifecycle events and state to every \
            client of its socket as newline-delimited JSON (see docs/PROTOCOL.md).

            SIGTERM or SIGINT shut down gracefully: running transitions are cancelled and clients get their \
            terminal events and a goodbye. SIGHUP reloads the configuration; a bad file keeps the old one.

            Exit status: 0 clean shutdown; 1 --check-config found the file invalid; 64 usage (also a socket path \
            too long for a Unix socket); 65 a recording could not be parsed; 66 a file (configuration, recording) \
            could not be read, or is not a regular file; 69 the socket is in use, its path is taken or its \
            directory is unsafe, or no input is available; 70 an internal error; 71 a system call failed (e.g. \
            binding in a directory that does not exist); 78 the configuration is invalid.
            """,
        version: EdgeSwipeVersion.string)

    @Option(name: .long, help: ArgumentHelp("Configuration file (TOML).", discussion: "Default: the embedded configuration, which config/default.toml documents.", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Socket path.", discussion: "Default: $XDG_RUNTIME_DIR/edgeswipe.sock, or /run/edgeswipe/edgeswipe.sock when run as root. Ignored under systemd socket activation.", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("libinput seat for the udev backend (default: the configuration's, seat0).", discussion: "A logind seat name: 'seat' followed by letters, digits, '-' or '_'.", valueName: "seat"))
    var seat: String?

    @Option(name: .customLong("device"), help: ArgumentHelp("Read only this event node, through libinput's path backend; repeatable.", valueName: "/dev/input/eventN"))
    var devices: [String] = []

    @Option(name: .long, help: ArgumentHelp("Play a recording (evemu or libinput record) at recorded speed instead of reading devices; repeat to play several at once.", valueName: "file"))
    var replay: [String] = []

    @Option(name: .long, help: ArgumentHelp("The evemu device description for an events-only --replay file.", valueName: "file"))
    var desc: String?

    @Option(name: .long, help: "Replay speed, from 0.01 to 100: 2 plays twice as fast.")
    var speed: Double = 1

    /// A hundredth of real time stretches a one-second swipe to under two minutes; a hundred times squeezes a
    /// 120 Hz stream to a frame every 83 us, about what the input thread can schedule. Past either end a replay
    /// shows nothing a person or a test could use.
    static let speedRange = 0.01...100.0

    @Flag(name: .long, help: ArgumentHelp("Play the --replay recordings again and again.", discussion: "Each pass starts from the initial state once the last one's animations have ended; the recordings' devices are added once, not again on each pass."))
    var loop = false

    @Flag(name: .long, help: ArgumentHelp("Play the --replay recordings one after another, a second apart, instead of at once.", discussion: "scripts/quickstart plays the demo's touchscreen and touchpad recordings so."))
    var inTurn = false

    @Option(name: .long, help: ArgumentHelp("Hold --replay back until this many clients are connected.", valueName: "n"))
    var waitForClients: Int = 0

    // Where the container state is saved (StateStore.swift).
    @Option(name: .long, help: ArgumentHelp("Directory to save the containers' state in, restored at start-up.", discussion: "Default: $STATE_DIRECTORY (systemd's StateDirectory=), else $XDG_STATE_HOME/edgeswipe for a user; without either, nothing is saved.", valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical. debug logs every state machine step.")
    var logLevel: LogLevelOption = .info

    @Option(name: .long, help: ArgumentHelp("Validate a configuration file, print the effective configuration, and exit 0 (valid) or 1 (invalid, with the line and the reason).", valueName: "file"))
    var checkConfig: String?

    @Flag(name: .long, help: "List the touch devices that would be used, and exit.")
    var listDevices = false

    // For the benchmark's comparison of fan-out strategies (docs/PERFORMANCE.md), not for users.
    @Option(name: .long, help: ArgumentHelp("Idle clients written straight from the input thread per batch; the rest through the event loop (0: all).", visibility: .hidden))
    var directWrites: Int?

    func validate() throws {
        guard Self.speedRange.contains(speed) else {
            throw ValidationError("--speed must be between \(Self.speedRange.lowerBound) and \(Int(Self.speedRange.upperBound)) (got \(speed))")
        }
        guard waitForClients >= 0 else { throw ValidationError("--wait-for-clients must not be negative") }
        if let directWrites, directWrites < 0 { throw ValidationError("--direct-writes must not be negative") }
        if !replay.isEmpty && !devices.isEmpty { throw ValidationError("--replay and --device cannot be used together") }
        if desc != nil && replay.isEmpty { throw ValidationError("--desc goes with --replay") }
        if loop && replay.isEmpty { throw ValidationError("--loop goes with --replay") }
        if inTurn && replay.isEmpty { throw ValidationError("--in-turn goes with --replay") }
        // edgeswiped@SEAT.service passes its instance name here and names its socket and state directory after it:
        // an instance that is not a seat stops before it can share another daemon's paths or run without its state.
        if let seat, let problem = DaemonSettings.seatNameProblem(seat) {
            throw ValidationError("--seat '\(seat)' \(problem); the per-seat units pass their instance name, so edgeswiped@\(seat).service cannot run")
        }
    }

    func run() async throws {
        if let checkConfig {
            do {
                let settings = try ConfigParser.load(path: checkConfig)
                for warning in settings.warnings { StandardError.print("edgeswiped: \(warning)") }
                print(settings.renderTOML(), terminator: "")
                return
            } catch {
                StandardError.print("edgeswiped: \(error)")
                throw ExitCode(error.isUnreadable ? ExitStatus.noInput : ExitStatus.invalidConfigCheck)
            }
        }
        // A client that vanishes mid-write must cost an EPIPE, never the process.
        signal(SIGPIPE, SIG_IGN)
        // Two descriptors per client (OpenFileLimit.swift says why): systemd's soft limit of 1024 would end
        // accepting at about 500.
        OpenFileLimit.raiseToHardLimit()
        DaemonLogHandler.bootstrap(level: logLevel.level)
        let logger = Logger(label: "edgeswiped")
        let settings = try loadSettings(logger: logger)

        if listDevices {
            try listTouchDevices(settings: settings, logger: logger)
            return
        }

        let daemon: Daemon
        do {
            daemon = try Daemon(options: self, settings: settings, logger: logger)
        } catch {
            logger.critical("\(error)")
            throw ExitCode(error.exitStatus)
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            logger.error("\(error)")
            throw ExitCode(ExitStatus.software)
        }
        if let status = daemon.failure { throw ExitCode(status) }
    }

    private func loadSettings(logger: Logger) throws -> EdgeSwipeSettings {
        guard let path = config else { return .default }
        do {
            let settings = try ConfigParser.load(path: path)
            for warning in settings.warnings { logger.warning("\(warning)") }
            return settings
        } catch {
            logger.critical("\(error)")
            throw ExitCode(error.isUnreadable ? ExitStatus.noInput : ExitStatus.config)
        }
    }

    private func listTouchDevices(settings: EdgeSwipeSettings, logger: Logger) throws {
        let input: LiveTouchInput
        do {
            input = try LiveTouchInput(
                backend: devices.isEmpty ? .udev(seat: seat ?? settings.daemon.seat) : .paths(devices),
                filter: try settings.devices.filter(), setup: settings.devices.setup(for: settings.engine), logger: logger)
            _ = try input.drain(now: MonotonicClock.now())
        } catch {
            logger.error("\(error)")
            throw ExitCode(ExitStatus.unavailable)
        }
        let found = input.devices
        for d in found {
            let size = d.hasPhysicalSize ? "\(Int(d.size.width.value))x\(Int(d.size.height.value)) mm" : "size unknown"
            print("\(d.path)\t\(d.kind.rawValue)\t\(size)\t\(d.name)")
        }
        if found.isEmpty {
            StandardError.print("edgeswiped: \(input.noTouchDevice.map { "\($0)" } ?? "no readable touch device")")
            throw ExitCode(ExitStatus.unavailable)
        }
    }
}

extension DeviceSelection {
    /// The configuration's `allow` and `deny` lists as the input layer's filter. The configuration keeps them as
    /// the text the user wrote; reading them as rules is the input layer's business, wired here.
    func filter() throws(DeviceFilterError) -> DeviceFilter { try DeviceFilter(parsingAllow: allow, deny: deny) }
}
