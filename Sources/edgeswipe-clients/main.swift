import EdgeSwipeCore
import EdgeSwipeCtlTool
import EdgeSwipeSessionTool
import EdgeSwipeSystem
import EdgeSwipeWebTool
import Glibc

// The package's clients in one binary (docs/PACKAGING.md, "What each byte is"): edgeswipectl, edgeswipe-web and
// edgeswipe-session are links to it, and it runs the tool its link is named after. Linked separately, each carried
// its own copy of the Swift runtime, Foundation's essentials, SwiftNIO and ArgumentParser (about 15 MB each of their
// ~21 MB); together they share them. The daemon stays a binary of its own (its resident memory is measured apart).
//
//   edgeswipectl status               # through the link
//   edgeswipe-clients edgeswipectl status
//   edgeswipe-clients --list          # the tools, one a line (the Makefile makes a link for each)
let tools: [(name: String, main: ([String]) async -> Void)] = [
    (CtlTool.name, CtlTool.main), (WebTool.name, WebTool.main), (SessionTool.name, SessionTool.main),
]
let arguments = CommandLine.arguments
let invokedAs = arguments.first.flatMap { $0.split(separator: "/").last.map(String.init) } ?? ""

if let tool = tools.first(where: { $0.name == invokedAs }) {
    await tool.main(Array(arguments.dropFirst()))
} else if arguments.count > 1, let tool = tools.first(where: { $0.name == arguments[1] }) {
    await tool.main(Array(arguments.dropFirst(2)))
} else if arguments.dropFirst().first == "--list" {
    print(tools.map(\.name).joined(separator: "\n"))
} else {
    let unknown = arguments.count > 1 ? "no tool named '\(arguments[1])'; " : ""
    StandardError.print("""
        edgeswipe-clients \(EdgeSwipeVersion.string): \(unknown)run it as \(tools.map(\.name).joined(separator: ", ")) \
        (through a link of that name), or as 'edgeswipe-clients TOOL [ARGUMENTS]'
        """)
    exit(64)
}
