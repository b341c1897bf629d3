import EdgeSwipeServer
import EdgeSwipeSystem
import EdgeSwipeTestSupport
import Foundation
import Glibc
import SystemPackage
import Testing

/// A bound Unix socket (listening, if asked): a stand-in for systemd's sockets.
func makeSocket(_ kind: FileDescriptor.UnixSocketKind, at path: String, listening: Bool) throws -> Int32 {
    try FileDescriptor.boundUnixSocket(kind, at: UnixSocketAddress(path), backlog: listening ? 16 : nil).rawValue
}

@Suite("Socket file and activated sockets")
struct SystemdTests {
    @Test("the socket is created with mode 0660; a stale file is replaced; a live socket and other files are refused")
    func socketFile() async throws {
        let dir = try TempDir()
        let path = dir.file("s.sock")
        // A stale socket: bound, never listened on, closed; the file stays behind.
        close(try makeSocket(.stream, at: path, listening: false))
        #expect(access(path, F_OK) == 0)
        let server = try TestServer.start(TestServer.configuration(path))
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o660)
        let client = try TestClient(path: path)
        client.startReading()
        try await client.wait(for: "hello") { if case .hello = $0 { true } else { false } }

        #expect(throws: ServerError.socketInUse(path: path)) { try TestServer.start(TestServer.configuration(path)) }
        client.close()
        await server.shutdown()
        #expect(access(path, F_OK) != 0)

        let file = dir.file("notes.txt")
        try "keep me".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ServerError.pathOccupied(path: file, what: "a file")) { try TestServer.start(TestServer.configuration(file)) }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
        let long = dir.path + "/" + String(repeating: "x", count: 120)
        #expect(throws: ServerError.pathTooLong(path: long, bytes: long.utf8.count)) { try TestServer.start(TestServer.configuration(long)) }
    }

    @Test("an adopted listening descriptor serves clients and its file is left alone at shutdown")
    func adoptsListeningDescriptor() async throws {
        let dir = try TempDir()
        let path = dir.file("activated.sock")
        let fd = try makeSocket(.stream, at: path, listening: true)
        #expect(FileDescriptor(rawValue: fd).boundUnixPath == path)
        let server = try TestServer.start(ServerConfiguration(listener: .fileDescriptor(fd), serverVersion: "edgeswiped test"))
        #expect(server.socketPath == path)
        #expect(throws: ServerError.self) { try server.rebind() }
        let client = try TestClient(path: path)
        client.startReading()
        try await client.wait(for: "hello") { if case .hello = $0 { true } else { false } }
        client.close()
        await server.shutdown()
        #expect(access(path, F_OK) == 0, "systemd owns the file of an activated socket")
    }

    @Test("after its socket file is deleted, rebind makes a new one; connected clients stay, new ones get in")
    func rebindAfterDeletion() async throws {
        let dir = try TempDir()
        let path = dir.file("s.sock")
        let server = try TestServer.start(TestServer.configuration(path))
        let first = try TestClient(path: path)
        first.startReading()
        try await first.wait(for: "hello") { if case .hello = $0 { true } else { false } }
        #expect(unlink(path) == 0)
        #expect(throws: TestFailure.self) { try TestClient(path: path) }
        try server.rebind()
        let second = try TestClient(path: path)
        second.startReading()
        try await second.wait(for: "hello") { if case .hello = $0 { true } else { false } }
        try first.send(#"{"op":"ping","id":1}"# + "\n")
        try await first.wait(for: "the ping reply") { if case .reply = $0 { true } else { false } }
        await server.shutdown()
        #expect(access(path, F_OK) != 0)
        for c in [first, second] {
            let messages = try await c.wait("goodbye") { _, ended in ended }
            #expect(messages.last?.type == "goodbye")
        }
    }

    @Test("descriptors that are not listening Unix stream sockets are refused with the reason")
    func refusesOtherDescriptors() throws {
        let dir = try TempDir()
        let datagram = try makeSocket(.datagram, at: dir.file("d.sock"), listening: false)
        defer { close(datagram) }
        let idle = try makeSocket(.stream, at: dir.file("i.sock"), listening: false)
        defer { close(idle) }
        let file = open("/dev/null", O_RDONLY)
        defer { close(file) }
        for (fd, reason) in [(datagram, "not a stream socket"), (idle, "not listening"), (file, "not a socket"), (9999, "not an open descriptor")] {
            #expect {
                try TestServer.start(ServerConfiguration(listener: .fileDescriptor(fd), serverVersion: "t"))
            } throws: { error in
                guard case .notAListeningSocket(let f, let r) = error as? ServerError else { return false }
                return f == fd && r.contains(reason)
            }
        }
    }
}
