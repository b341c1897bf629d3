/// `edgeswipe-session`'s entry point, which its own executable and the multi-call client binary (`edgeswipe-clients`, what
/// the package installs `edgeswipe-session` as) both call.
public enum SessionTool {
    /// The name the tool is run by: its executable's, or that of the multi-call binary's link.
    public static let name = "edgeswipe-session"

    /// Parses `arguments` (the command line after the program's name) and runs the command; on an error, `--help`
    /// or `--version` it prints and exits the process with the command's status, as ArgumentParser's `main` does.
    public static func main(_ arguments: [String]) async {
        await EdgeSwipeSessionCommand.main(arguments)
    }
}
