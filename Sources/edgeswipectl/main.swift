import EdgeSwipeCtlTool

// The tool is the EdgeSwipeCtlTool module, which the multi-call client binary (edgeswipe-clients) links as well.
await CtlTool.main(Array(CommandLine.arguments.dropFirst()))
