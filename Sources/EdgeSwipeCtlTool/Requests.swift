import ArgumentParser
import EdgeSwipeClient
import EdgeSwipeCore
import EdgeSwipeProtocol

/// Connects once (no reconnecting: a command should fail fast and say why).
func connect(_ options: SocketOptions) -> EdgeSwipeClient {
    EdgeSwipeClient(socketPath: options.path, configuration: ClientConfiguration(reconnect: nil, requestTimeout: .seconds(5)))
}

/// Runs a request, turning failures into a message and an exit status.
func perform<T>(_ options: SocketOptions, _ body: (EdgeSwipeClient) async throws(ClientError) -> T) async throws -> T {
    let client = connect(options)
    do {
        return try await body(client)
    } catch {
        switch error {
        case .server:
            warn("edgeswipectl: \(error)")
            throw ExitCode(CtlExit.refused)
        default:
            throw unreachable(options.path, error)
        }
    }
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show containers, running transitions and devices.")
    @OptionGroup var socket: SocketOptions
    @Flag(name: .long, help: "Print the reply as JSON.") var json = false

    func run() async throws {
        if json {
            // The reply line exactly as the daemon sent it.
            let line = try RawConnection.open(socket.path).request(#"{"op":"status","id":"edgeswipectl"}"#, id: "edgeswipectl")
            print(line)
            return
        }
        let status = try await perform(socket) { client throws(ClientError) in try await client.status() }
        print("\(status.server), protocol \(status.protocolVersion)")
        print("containers:")
        for c in status.state.containers { print("  \(c.name) (\(c.kind)): \(c.describe)") }
        if status.state.running.isEmpty {
            print("running: none")
        } else {
            print("running:")
            for r in status.state.running { print("  \(r.id) \(r.operation) in \(r.container): \(r.phase) at \(Int((r.percent * 100).rounded()))%") }
        }
        print("devices:")
        if status.devices.isEmpty { print("  none") }
        for d in status.devices { print("  \(d.id) \(d.kind.rawValue) \"\(d.name)\" \(d.path)") }
    }
}

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the touch devices the daemon reads.")
    @OptionGroup var socket: SocketOptions

    func run() async throws {
        let devices = try await perform(socket) { client throws(ClientError) in try await client.devices() }
        if devices.isEmpty { print("no touch devices") }
        for d in devices {
            // Rotation and output last, so that scripts reading the first four columns keep working.
            let rotation = "\(d.rotation)\(d.autoRotation == true ? " auto" : "")"
            print("\(d.id)\t\(d.kind.rawValue)\t\(d.path)\t\(d.name)\trotation \(rotation)\toutput \(d.output ?? "-")")
        }
    }
}

struct Ping: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check that the daemon answers.")
    @OptionGroup var socket: SocketOptions

    func run() async throws {
        try await perform(socket) { client throws(ClientError) in try await client.ping() }
        print("pong")
    }
}

/// Options shared by the transition requests.
struct TransitionOptions: ParsableArguments {
    @Flag(name: .long, help: "Complete at once instead of animating.") var immediately = false
    var animated: Bool { !immediately }
}

func report(_ id: TransitionID) { print("transition \(id.rawValue) started") }

struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Push a scene onto a navigation stack.")
    @OptionGroup var socket: SocketOptions
    @OptionGroup var transition: TransitionOptions
    @Argument(help: "The navigation container.") var container: String
    @Argument(help: "The scene to push.") var scene: String

    func run() async throws {
        report(try await perform(socket) { c throws(ClientError) in try await c.push(scene, in: container, animated: transition.animated) })
    }
}

struct Pop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pop a navigation stack.")
    @OptionGroup var socket: SocketOptions
    @OptionGroup var transition: TransitionOptions
    @Flag(name: .long, help: "Pop all the way to the root.") var toRoot = false
    @Argument(help: "The navigation container.") var container: String

    func run() async throws {
        let id = try await perform(socket) { c throws(ClientError) in
            toRoot ? try await c.popToRoot(in: container, animated: transition.animated) : try await c.pop(in: container, animated: transition.animated)
        }
        report(id)
    }
}

/// `--style` values.
enum StyleOption: String, ExpressibleByArgument, CaseIterable {
    case fullScreen = "full-screen", custom
    var style: PresentationStyle { self == .custom ? .custom : .fullScreen }
}

extension ContainerInfo {
    var describe: String {
        switch kind {
        case "navigation": return "stack " + (stack ?? []).joined(separator: " > ")
        case "tabs": return "tabs " + (tabs ?? []).enumerated().map { $0.offset == selected ? "[\($0.element)]" : $0.element }.joined(separator: " ")
        case "modal": return "base \(base ?? "?")" + ((presented ?? []).isEmpty ? ", nothing presented" : ", presenting " + (presented ?? []).map { "\($0.scene) (\($0.style.rawValue))" }.joined(separator: " > "))
        default: return "showing \(visible)"
        }
    }
}

struct Present: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Present a scene modally.")
    @OptionGroup var socket: SocketOptions
    @OptionGroup var transition: TransitionOptions
    @Option(name: .long, help: "full-screen or custom.") var style: StyleOption = .fullScreen
    @Argument(help: "The modal container.") var container: String
    @Argument(help: "The scene to present.") var scene: String

    func run() async throws {
        report(try await perform(socket) { c throws(ClientError) in try await c.present(scene, in: container, style: style.style, animated: transition.animated) })
    }
}

struct Dismiss: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Dismiss the topmost presented scene.")
    @OptionGroup var socket: SocketOptions
    @OptionGroup var transition: TransitionOptions
    @Argument(help: "The modal container.") var container: String

    func run() async throws {
        report(try await perform(socket) { c throws(ClientError) in try await c.dismiss(in: container, animated: transition.animated) })
    }
}

struct Tab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Select a tab, by index or by scene.")
    @OptionGroup var socket: SocketOptions
    @OptionGroup var transition: TransitionOptions
    @Argument(help: "The tabs container.") var container: String
    @Argument(help: "A tab index (0 is the first) or the scene of a tab.") var tab: String

    func run() async throws {
        let selection: ControlRequest.TabSelection = Int(tab).map { .index($0) } ?? .scene(tab)
        report(try await perform(socket) { c throws(ClientError) in try await c.selectTab(selection, in: container, animated: transition.animated) })
    }
}

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a child of a custom container.")
    @OptionGroup var socket: SocketOptions
    @OptionGroup var transition: TransitionOptions
    @Argument(help: "The custom container.") var container: String
    @Argument(help: "The child to show.") var child: String

    func run() async throws {
        report(try await perform(socket) { c throws(ClientError) in try await c.show(child, in: container, animated: transition.animated) })
    }
}

struct Rotate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set which way the user sees the touchscreens (from the next touch sequence on).",
        discussion: """
            ROTATION is 0, 90, 180 or 270 degrees clockwise (the output's transform, as the shell applies it), or \
            auto: back to the configuration's (the accelerometer's, for devices with rotation = "auto"). Without \
            --device or --output, every touchscreen turns. Needs control access; remembered across restarts.
            """)
    @OptionGroup var socket: SocketOptions
    @Argument(help: "0, 90, 180, 270 or auto.") var rotation: String
    @Option(name: .long, help: "One device, by its id (see 'edgeswipectl devices').") var device: UInt32?
    @Option(name: .long, help: "The touchscreens of one output (WL_OUTPUT, or the configuration's output).") var output: String?

    func validate() throws {
        if rotation != "auto" && Int(rotation).flatMap(Rotation.init(rawValue:)) == nil {
            throw ValidationError("ROTATION must be 0, 90, 180, 270 or auto (got \(rotation))")
        }
        if device != nil && output != nil { throw ValidationError("give --device or --output, not both") }
    }

    func run() async throws {
        let setting: RotationSetting = Int(rotation).flatMap(Rotation.init(rawValue:)).map { .fixed($0) } ?? .automatic
        let target: RotationTarget = device.map { .device(DeviceID($0)) } ?? output.map { .output($0) } ?? .allTouchscreens
        let result = try await perform(socket) { c throws(ClientError) in try await c.setRotation(setting, on: target) }
        for id in result.applied { print("device \(id.rawValue): rotation \(setting)") }
        for id in result.pending { print("device \(id.rawValue): rotation \(setting) once every finger has lifted") }
    }
}
