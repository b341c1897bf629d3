import Foundation
import Glibc
import Testing

/// What an adversarial probe of a release build found: hostile local clients and clumsy operators, each failure
/// reproduced against the real daemon as a subprocess, the way the probe did it.
@Suite("Hostile clients and unlucky operators", .serialized)
struct ProbeTests {
    static let socat = "/usr/bin/socat"
    static var haveSocat: Bool { FileManager.default.isExecutableFile(atPath: socat) }

    /// `printf LINES | socat - UNIX-CONNECT:PATH`: the way scripts send requests. socat half-closes the connection
    /// (`shutdown(SHUT_WR)`) when its input ends and prints what comes back until the daemon closes.
    static func socatSend(_ lines: [String], to path: String) throws -> [[String: Any]] {
        let payload = lines.map { $0 + "\\n" }.joined().replacingOccurrences(of: "%", with: "%%")
        let done = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "printf '\(payload)' | \(socat) -t 10 - UNIX-CONNECT:\(path)"], timeoutSeconds: 30)
        return done.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    // MARK: - Half-closed connections

    @Test("socat: a request from a half-closed connection gets its answer before the daemon closes", .enabled(if: haveSocat, "socat is not installed"))
    func socatHalfClose() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let pushed = try Self.socatSend([#"{"op":"push","id":5,"container":"app","scene":"x","animated":false}"#], to: daemon.socketPath)
        #expect(pushed.first?.type == "hello")
        let answers = pushed.filter { $0.type == "reply" || $0.type == "error" }
        #expect(answers.count == 1 && answers.first?.type == "reply" && answers.first?["id"] as? Int == 5, "\(pushed.map(\.type))")
        let pinged = try Self.socatSend([#"{"op":"ping","id":1}"#], to: daemon.socketPath)
        #expect(pinged.map(\.type) == ["hello", "reply"], "\(pinged)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    @Test("shutdown(SHUT_WR) after pipelined requests: each gets exactly one answer, then the daemon closes")
    func shutdownWriteSide() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        let requests = [
            #"{"op":"ping","id":1}"#, #"{"op":"status","id":2}"#, #"{"op":"select-tab","id":3,"container":"shell","index":2,"animated":false}"#,
            #"{"op":"devices","id":4}"#, "not json", #"{"op":"push","id":6,"container":"app","scene":"y"}"#,
        ]
        client.sendRaw(Array(requests.map { $0 + "\n" }.joined().utf8))
        // A last request without its newline: the end of the stream ends it.
        client.sendRaw(Array(#"{"op":"ping","id":7}"#.utf8))
        shutdown(client.fd, Int32(SHUT_WR))
        let rest = client.messages(until: { _ in false }, timeoutSeconds: 20)
        #expect(client.closedByPeer, "the daemon closes once everything is answered")
        let answers = rest.filter { $0.type == "reply" || $0.type == "error" }
        let ids = answers.map { ($0["id"] as? Int).map(String.init) ?? "-" }
        #expect(ids.sorted() == ["-", "1", "2", "3", "4", "6", "7"], "\(answers)")
        #expect(answers.first { $0["id"] as? Int == 3 }?.type == "reply")
        #expect(rest.contains { $0.type == "transition" && $0["phase"] as? String == "completed" }, "the events up to the last answer still stream")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }
}
