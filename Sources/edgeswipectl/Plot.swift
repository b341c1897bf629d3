import ArgumentParser
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipePlot
import EdgeSwipeSystem
import Foundation
import SystemPackage

/// Replays recordings exactly as `replay` does and draws what was decided, as one SVG (or PNG).
struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay touch recordings offline and plot what the daemon decided, as one SVG.",
        discussion: """
            The replay is `replay`'s own (same files, same configuration, same engine). The SVG has four figures: \
            the touches on each device to scale over its edge zones; percent against time for every transition \
            (threshold, release, the projected percent the decision used, run-out, re-grabs); release velocity \
            against time; and the swipes that were blocked or failed, with the reason. --png converts it with \
            rsvg-convert (Debian: librsvg2-bin); with --png, an output named .svg is written as the same name in .png.
            """)

    @OptionGroup var input: ReplayInput

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the SVG (or the PNG, with --png).", valueName: "file"))
    var output: String

    @Flag(name: .long, help: "Write a PNG instead, through rsvg-convert.")
    var png = false

    func run() throws {
        var replay = try OfflineReplay(input)
        var recorder = PlotRecorder(configuration: replay.settings.engine)
        replay.play(input: { step in
            if case .frame(let frame) = step.input { recorder.record(frame) }
        }) { event in
            recorder.record(event)
        }
        try replay.checkStreams()
        let names = input.files.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        let svg = PlotRenderer(title: "EdgeSwipe: \(names) (configuration: \(input.config ?? "built-in"))").svg(recorder.data)
        if png {
            try writePNG(svg, to: pngOutput())
        } else {
            // As the daemon writes its state file: a new file, then a rename; never through a symbolic link that
            // another user may have planted where the plot goes (a shared /tmp).
            do throws(AtomicFileWriter.ReplaceError) {
                try AtomicFileWriter.replaceFile(at: output, with: Array(svg.utf8), permissions: Self.outputPermissions)
            } catch {
                warn("edgeswipectl: cannot write the plot: \(error)")
                throw ExitCode(CtlExit.cannotCreate)
            }
        }
    }

    /// rw-rw-rw- less the umask, as a file the shell's `>` makes.
    static let outputPermissions: FilePermissions = [.ownerReadWrite, .groupReadWrite, .otherReadWrite]

    /// Where the PNG goes: `-o plot.svg --png` asks for a PNG and names an SVG, so the PNG is written beside it
    /// as `plot.png` (said on standard error) rather than as PNG bytes in a file called `.svg`.
    func pngOutput() -> String {
        let name = output as NSString
        guard name.pathExtension.lowercased() == "svg" else { return output }
        let renamed = name.deletingPathExtension + ".png"
        warn("edgeswipectl: --png: writing \(renamed) (a PNG, not \(output))")
        return renamed
    }

    /// Converts through `rsvg-convert`, fed on standard input, so that no temporary SVG is left behind.
    private func writePNG(_ svg: String, to output: String) throws {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/rsvg-convert" }
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            warn("edgeswipectl: --png needs rsvg-convert, which is not installed (Debian and Ubuntu: apt install librsvg2-bin); without --png the plot is written as SVG")
            throw ExitCode(CtlExit.unavailable)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--format", "png", "--output", output]
        let input = Pipe()
        process.standardInput = input
        do { try process.run() } catch {
            warn("edgeswipectl: cannot run \(tool): \(error.localizedDescription)")
            throw ExitCode(CtlExit.unavailable)
        }
        input.fileHandleForWriting.write(Data(svg.utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            warn("edgeswipectl: rsvg-convert failed (exit \(process.terminationStatus)) writing \(output)")
            throw ExitCode(CtlExit.cannotCreate)
        }
    }
}
