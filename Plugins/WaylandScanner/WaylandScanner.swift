import Foundation
import PackagePlugin

/// Generates the glue of the Wayland protocols we describe ourselves (`Sources/<target>/protocols/*.xml`) with
/// `wayland-scanner`, at build time: for each XML, the interface tables (`private-code`, a C source compiled into the
/// target) and the request and event wrappers (`client-header`, in the generated `include/` the target's users see).
///
/// SwiftPM compiles C sources and headers a build-tool plugin generates only in a package whose manifest opts in
/// with `// swift-tools-version: 6.3;(experimentalCGen)`; SwiftPM reads only the `.c` as an output, so one command
/// writes both files, and the header is ready before anything compiles against it.
@main
struct WaylandScanner: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        // A C target's `sourceFiles` lists only its C sources, so the XML is found in its folder.
        let folder = target.directoryURL.appending(path: "protocols")
        let protocols = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "xml" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let scanner = try Self.scanner()
        return protocols.map { xml in
            let name = xml.deletingPathExtension().lastPathComponent
            let code = context.pluginWorkDirectoryURL.appending(path: "\(name)-protocol.c")
            let header = context.pluginWorkDirectoryURL.appending(path: "include/\(name)-client-protocol.h")
            return .buildCommand(
                displayName: "wayland-scanner \(name)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    "-c", #"mkdir -p "$(dirname "$4")" && "$1" private-code "$2" "$3" && "$1" client-header "$2" "$4""#,
                    "wayland-scanner", scanner.path, xml.path, code.path, header.path,
                ],
                inputFiles: [xml],
                outputFiles: [code, header])
        }
    }

    /// `wayland-scanner` from `PATH` (Debian's `libwayland-bin`).
    static func scanner() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map { String($0) } + ["/usr/bin"]
        for folder in folders {
            let candidate = URL(fileURLWithPath: folder).appending(path: "wayland-scanner")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw ScannerMissing()
    }

    struct ScannerMissing: Error, CustomStringConvertible {
        var description: String { "wayland-scanner is not installed (Debian: apt install libwayland-bin)" }
    }
}
