import Foundation
import Testing

/// Paths of the package and of the binaries `swift build` made for this test run.
enum Paths {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The folder holding the test bundle also holds the products (`edgeswiped`, `edgeswipectl`).
    static let products: URL = {
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("edgeswiped").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }()
    static let edgeswiped = products.appendingPathComponent("edgeswiped")
    static let edgeswipectl = products.appendingPathComponent("edgeswipectl")
    static let edgeswipeWeb = products.appendingPathComponent("edgeswipe-web")
    static let edgeswipeSession = products.appendingPathComponent("edgeswipe-session")
    /// The web tests' Python helpers.
    static let webHelpers = packageRoot.appendingPathComponent("Tests/edgeswipedTests/Web")
    static let shared = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    static var sharedRecordings: URL { shared.appendingPathComponent("recordings") }
    static var haveShared: Bool { FileManager.default.fileExists(atPath: sharedRecordings.path) }
    static let demo = packageRoot.appendingPathComponent("demo/edgeswipe-demo.evemu")
    /// The demo's 3-finger touchpad swipes, which the quick start plays after `demo`, `--in-turn`.
    static let touchpadDemo = packageRoot.appendingPathComponent("demo/edgeswipe-touchpad-demo.evemu")

    /// Creates an empty file at `url` (or empties it), for a subprocess's output; throws when it cannot, rather than
    /// leaving the subprocess to fail on a file that is not there.
    static func emptyFile(_ url: URL) throws {
        try Data().write(to: url)
    }

    /// A fresh temporary directory, short enough for a Unix socket path (108 bytes).
    static func tempDirectory() throws -> URL {
        let base = URL(fileURLWithPath: "/tmp").appendingPathComponent("es-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        return base
    }
}

/// A finished subprocess.
struct Finished: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a real subprocess to completion, with a timeout so a hung child fails the test instead of CI.
func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil, timeoutSeconds: Double = 60) throws -> Finished {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes while the child runs so a full pipe never blocks it.
    let outData = Mutex(Data()), errData = Mutex(Data())
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { let d = out.fileHandleForReading.readDataToEndOfFile(); outData.withLock { $0 = d }; group.leave() }
    group.enter()
    DispatchQueue.global().async { let d = err.fileHandleForReading.readDataToEndOfFile(); errData.withLock { $0 = d }; group.leave() }
    if group.wait(timeout: .now() + timeoutSeconds) == .timedOut {
        process.terminate()
        throw SubprocessTimeout(command: ([executable.path] + arguments).joined(separator: " "))
    }
    process.waitUntilExit()
    return Finished(
        status: process.terminationStatus,
        stdout: String(decoding: outData.withLock { $0 }, as: UTF8.self),
        stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
}

struct SubprocessTimeout: Error, CustomStringConvertible {
    var command: String
    var description: String { "timed out: \(command)" }
}

import Synchronization

/// Results written from concurrent readers, one slot each, behind a lock.
final class LockedSlots<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Element]

    init(count: Int, initial: Element) { slots = Array(repeating: initial, count: count) }

    subscript(index: Int) -> Element {
        get { lock.withLock { slots[index] } }
        set { lock.withLock { slots[index] = newValue } }
    }

    var values: [Element] { lock.withLock { slots } }
}
