import Foundation
import Glibc
import Testing

/// A real `edgeswipe-web` subprocess; the URL it prints is read from its standard output.
final class BridgeProcess {
    let process = Process()
    let url: URL
    let token: String
    let port: Int
    private let errURL: URL

    init(socket: String, directory: URL, arguments: [String] = [], launcher: [String] = []) throws {
        let outURL = directory.appendingPathComponent("web-\(UInt32.random(in: 0...UInt32.max)).out")
        errURL = outURL.appendingPathExtension("err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let command = [Paths.edgeswipeWeb.path, "--socket", socket, "--listen", "127.0.0.1:0"] + arguments
        process.executableURL = URL(fileURLWithPath: launcher.first ?? command[0])
        process.arguments = launcher.isEmpty ? Array(command.dropFirst()) : Array(launcher.dropFirst()) + command
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        var line: String? = nil
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning || line == nil {
            let text = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
            if let first = text.split(separator: "\n").first, text.contains("\n") { line = String(first); break }
            if !process.isRunning { break }
            usleep(20_000)
        }
        guard let line, let url = URL(string: line), let port = url.port, let token = url.query?.split(separator: "=").last else {
            process.terminate()
            throw DaemonTestError("edgeswipe-web printed no URL: \((try? String(contentsOf: errURL, encoding: .utf8)) ?? "")")
        }
        self.url = url
        self.port = port
        self.token = String(token)
    }

    var stderr: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

/// An HTTP answer: status, headers (lower-cased names) and body.
struct HTTPAnswer {
    var status: Int
    var headers: [String: String]
    var body: Data
}

/// A plain HTTP/1.1 GET over a socket, so that the test controls every header (Host included) and follows no
/// redirect.
func httpGet(port: Int, path: String, headers: [String: String] = [:]) throws -> HTTPAnswer {
    let fd = try connectLoopback(port: port)
    defer { close(fd) }
    var request = "GET \(path) HTTP/1.1\r\nConnection: close\r\n"
    var all = headers
    if all["Host"] == nil { all["Host"] = "127.0.0.1:\(port)" }
    for (k, v) in all { request += "\(k): \(v)\r\n" }
    request += "\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 65536)
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    while true {
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { break }
        data.append(contentsOf: chunk[0..<n])
    }
    guard let split = data.range(of: Data("\r\n\r\n".utf8)) else { throw DaemonTestError("no HTTP answer") }
    let head = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
    let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
    var fields: [String: String] = [:]
    for line in head.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return HTTPAnswer(status: status, headers: fields, body: data[split.upperBound...])
}

/// A TCP socket connected to 127.0.0.1:`port`; the caller closes it.
func connectLoopback(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw DaemonTestError("socket: \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        let code = errno
        close(fd)
        throw DaemonTestError("connect: \(code)")
    }
    return fd
}

/// Runs the WebSocket probe (Web/wsprobe.py): the upgrade's status line, then the frames.
func wsProbe(
    port: Int, token: String?, origin: String? = nil, host: String? = nil, send: [String] = [], sendBytes: [[UInt8]] = [], unmasked: Bool = false,
    until: [String] = [], count: Int = 0, timeout: Double = 20
) throws -> [String] {
    var arguments = [Paths.webHelpers.appendingPathComponent("wsprobe.py").path, "--port", "\(port)", "--timeout", "\(timeout)"]
    if let token { arguments += ["--token", token] }
    if let origin { arguments += ["--origin", origin] }
    if let host { arguments += ["--host-header", host] }
    for s in send { arguments += ["--send", s] }
    for b in sendBytes { arguments += ["--send-hex", b.map { String(format: "%02x", $0) }.joined()] }
    if unmasked { arguments.append("--unmasked") }
    for u in until { arguments += ["--until", u] }
    if count > 0 { arguments += ["--count", "\(count)"] }
    let r = try run(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments, timeoutSeconds: timeout + 20)
    #expect(r.status == 0, "\(r.stderr)")
    return r.stdout.split(separator: "\n").map(String.init)
}

func jsonObject(_ line: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
}

/// A TCP connection to the bridge that starts a request and never finishes its headers (a slowloris client).
final class HalfOpenConnection {
    let fd: Int32

    init(port: Int) throws {
        fd = try connectLoopback(port: port)
        let start = "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-a: "
        _ = start.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    deinit { close(fd) }

    /// Whether the bridge has closed it (end of stream, or a reset), without waiting.
    var isClosedByPeer: Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) || p.revents & Int16(POLLHUP | POLLERR) != 0
    }
}
