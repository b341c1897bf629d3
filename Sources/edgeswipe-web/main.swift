import EdgeSwipeWebTool

// The tool is the EdgeSwipeWebTool module, which the multi-call client binary (edgeswipe-clients) links as well.
await WebTool.main(Array(CommandLine.arguments.dropFirst()))
