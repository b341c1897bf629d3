import ArgumentParser
import EdgeSwipeClient
import EdgeSwipeCore
import EdgeSwipeSystem
import SystemPackage

struct EdgeSwipeCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CtlTool.name,
        abstract: "Watch and drive edgeswiped, and replay touch recordings offline.",
        discussion: """
            Exit status: 0 success; 1 the daemon refused a request (the error is printed); 64 a usage error; 65 a \
            recording could not be parsed; 66 a file could not be read; 69 the daemon could not be reached (or a \
            tool it needs is missing); 73 the output file could not be written (plot -o); 74 standard output could \
            not be written (replay); 77 the daemon's access policy does not admit this user.
            """,
        version: EdgeSwipeVersion.string,
        subcommands: [
            Monitor.self, Status.self, Devices.self, Ping.self, Push.self, Pop.self, Present.self, Dismiss.self,
            Tab.self, Show.self, Rotate.self, Replay.self, Plot.self,
        ])
}

/// `--socket`, on every subcommand that talks to the daemon.
struct SocketOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The daemon's socket.", discussion: EdgeSwipeClient.defaultSocketHelp, valueName: "path"))
    var socket: String?

    /// Where the daemon is: what a follower (the monitor) looks at again before each reconnection.
    var daemon: DaemonSocket { DaemonSocket.resolve(explicit: socket, environment: ProcessEnvironment.current()) }

    /// The path a one-shot command connects to: the default resolved now.
    var path: String { daemon.current { (try? Stat(FilePath($0))) != nil } }
}

enum CtlExit {
    static let refused: Int32 = 1
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    /// The output file could not be written, whatever the reason (sysexits' `EX_CANTCREAT`): `plot -o`.
    static let cannotCreate: Int32 = 73
    /// Standard output could not be written (`EX_IOERR`): `replay`.
    static let ioError: Int32 = 74
    /// The daemon does not admit this user (`EX_NOPERM`, as edgeswipe-web says it).
    static let notAdmitted: Int32 = 77
}

/// Says why the daemon at `path` could not be reached (and, when nobody listens there, what to do), and returns
/// the exit status to throw. The connection errors name the path themselves; the rest are about it.
func unreachable(_ path: String, _ error: any Error) -> ExitCode {
    switch error as? ClientError {
    case .notAdmitted?:
        warn("edgeswipectl: \(error)")
        return ExitCode(CtlExit.notAdmitted)
    case .noDaemon?, .connectionFailed?: warn("edgeswipectl: \(error)")
    case .disconnected?, .timedOut?, .server?, .unexpectedReply?, .closed?, .consumerTooSlow?, nil: warn("edgeswipectl: \(path): \(error)")
    }
    return ExitCode(CtlExit.unavailable)
}

/// Writes a line to standard error.
func warn(_ message: String) {
    StandardError.print(message)
}
