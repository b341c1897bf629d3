import Foundation
import Glibc

/// The user a headless desktop (`HeadlessSway`, `HeadlessGnomeShell`) and its clients run as: `nobody` when the tests
/// run as root (sway refuses root, and a desktop session should not be root's), the tests' own user otherwise; and
/// the folder of the desktop's files, which that user may write.
struct DesktopUser {
    static let nobody: uid_t = 65534
    let directory: URL
    /// `setpriv` arguments that drop to `nobody`, when running as root; empty otherwise.
    let dropPrivileges: [String]

    init(directory: URL) {
        self.directory = directory
        dropPrivileges = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "--"] : []
    }

    /// Gives `url` to the user (when running as root).
    func own(_ url: URL) {
        if getuid() == 0 { chown(url.path, Self.nobody, gid_t(Self.nobody)) }
    }

    /// Gives `url` and everything below it to the user (when running as root).
    func ownTree(_ url: URL) {
        own(url)
        guard getuid() == 0, let walker = FileManager.default.enumerator(atPath: url.path) else { return }
        for case let path as String in walker { own(url.appendingPathComponent(path)) }
    }

    /// A file in the directory that the user may write.
    func writableFile(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Paths.emptyFile(url)
        own(url)
        return url
    }

    /// Starts `arguments` as the user with exactly `environment`, in the directory, its output (and errors) to `log`,
    /// or its output to `standardOutput`.
    func launch(
        _ process: Process, _ arguments: [String], environment: [String: String], log: URL, standardInput: Pipe? = nil,
        standardOutput: Pipe? = nil
    ) throws {
        let handle = try FileHandle(forWritingTo: log)
        let command = dropPrivileges + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        process.standardOutput = standardOutput ?? handle
        process.standardError = handle
        if let standardInput { process.standardInput = standardInput }
        process.currentDirectoryURL = directory
        try process.run()
    }
}
