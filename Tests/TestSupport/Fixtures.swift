public import Foundation

/// Where the shared real-world recordings live: `../shared/recordings` beside the package root.
public enum Fixtures {
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let recordingsFolder: String = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/recordings").standardizedFileURL.path

    /// Whether the recordings are present (they are not part of the package).
    public static var recordingsAvailable: Bool {
        FileManager.default.fileExists(atPath: recordingsFolder + "/INDEX.md")
    }

    public static func recording(_ relativePath: String) -> String { recordingsFolder + "/" + relativePath }

    /// Every recording (not the `.desc` descriptions), relative to the folder, sorted.
    public static var allRecordings: [String] {
        guard let walker = FileManager.default.enumerator(atPath: recordingsFolder) else { return [] }
        var result: [String] = []
        while let path = walker.nextObject() as? String {
            if path.hasSuffix(".events") || path.hasSuffix(".evemu") || path.hasSuffix(".yaml") { result.append(path) }
        }
        return result.sorted()
    }

    public static var allDescriptions: [String] {
        guard let walker = FileManager.default.enumerator(atPath: recordingsFolder) else { return [] }
        var result: [String] = []
        while let path = walker.nextObject() as? String {
            if path.hasSuffix(".desc") { result.append(path) }
        }
        return result.sorted()
    }

    public static func demoPath() -> String { packageRoot.appendingPathComponent("demo/edgeswipe-demo.evemu").path }
}
