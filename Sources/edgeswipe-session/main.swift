import EdgeSwipeSessionTool

// The tool is the EdgeSwipeSessionTool module, which the multi-call client binary (edgeswipe-clients) links as well.
await SessionTool.main(Array(CommandLine.arguments.dropFirst()))
