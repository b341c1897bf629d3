import Foundation
import Testing

@Suite("Package layout")
struct PackageLayoutTests {
    /// Benchmarks/ is a package of its own that builds the root's modules from the same folders (the workloads are
    /// no product of the root): each library module it declares must be a link to the root's folder of that name.
    @Test("Benchmarks/ builds each module it declares from a link to the root's folder of that name")
    func benchmarkLinks() throws {
        let root = Paths.packageRoot
        let manifest = try String(contentsOf: root.appendingPathComponent("Benchmarks/Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\.(?:target|systemLibrary)\(\s*name:\s*"([^"]+)""#)
        let declared = pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).compactMap {
            Range($0.range(at: 1), in: manifest).map { String(manifest[$0]) }
        }
        #expect(Set(declared) == [
            "CInput", "CYAML", "CSystemCalls", "EdgeSwipeVocabulary", "EdgeSwipeCore", "EdgeSwipeFingerScript", "EdgeSwipeSystem",
            "EdgeSwipeInput", "EdgeSwipeRecordings", "EdgeSwipeProtocol", "EdgeSwipeEngineWire", "EdgeSwipeBenchSupport",
        ])
        let linked = root.appendingPathComponent("Benchmarks/Sources")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: linked.path)) == Set(declared))
        for name in declared {
            let destination = try FileManager.default.destinationOfSymbolicLink(atPath: linked.appendingPathComponent(name).path)
            #expect(destination == "../../Sources/\(name)", "Benchmarks/Sources/\(name) -> \(destination)")
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources/\(name)").path, isDirectory: &isDirectory)
            #expect(exists && isDirectory.boolValue, "Sources/\(name) is not a folder of the root package")
        }
    }
}
