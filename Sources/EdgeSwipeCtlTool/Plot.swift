import ArgumentParser
import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipePlot
import EdgeSwipeSystem
import Glibc
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
        let names = input.files.map { FilePath($0).lastComponent?.string ?? $0 }.joined(separator: ", ")
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
        var renamed = FilePath(output)
        guard renamed.extension?.lowercased() == "svg" else { return output }
        renamed.extension = "png"
        warn("edgeswipectl: --png: writing \(renamed.string) (a PNG, not \(output))")
        return renamed.string
    }

    /// Converts through `rsvg-convert`, fed on standard input, so that no temporary SVG is left behind.
    private func writePNG(_ svg: String, to output: String) throws {
        let path = ProcessEnvironment.current()["PATH"] ?? "/usr/bin:/bin"
        let candidates: [String] = path.split(separator: ":").map { "\($0)/rsvg-convert" }
        guard let tool = candidates.first(where: { access($0, X_OK) == 0 }) else {
            warn("edgeswipectl: --png needs rsvg-convert, which is not installed (Debian and Ubuntu: apt install librsvg2-bin); without --png the plot is written as SVG")
            throw ExitCode(CtlExit.unavailable)
        }
        let status: ProcessDescriptor.ExitStatus
        do throws(SystemCallError) {
            let (readEnd, writeEnd): (FileDescriptor, FileDescriptor)
            do { (readEnd, writeEnd) = try FileDescriptor.pipe(options: [.closeOnExec]) } catch { throw SystemCallError("pipe", error) }
            let process: ProcessDescriptor
            do throws(SystemCallError) {
                defer { try? readEnd.close() }
                process = try Spawn.start([tool, "--format", "png", "--output", output], stdin: .descriptor(readEnd))
            } catch {
                try? writeEnd.close()
                throw error
            }
            // A converter that exits early (a full disk) closes the pipe: what it did not read is an EPIPE for the
            // write, not a SIGPIPE that would end edgeswipectl before it says why (its own status does).
            signal(SIGPIPE, SIG_IGN)
            _ = try? writeEnd.writeAll(Array(svg.utf8))
            try? writeEnd.close()
            do { status = try process.reap() } catch { throw SystemCallError("waitpid \(tool)", error) }
        } catch {
            warn("edgeswipectl: cannot run \(tool): \(error)")
            throw ExitCode(CtlExit.unavailable)
        }
        guard status == .exited(0) else {
            warn("edgeswipectl: rsvg-convert failed (\(status)) writing \(output)")
            throw ExitCode(CtlExit.cannotCreate)
        }
    }
}
