import Logging
import NIOCore
import NIOEmbedded
@testable import EdgeSwipeWeb
import Testing

/// The bridge's front handler on an `EmbeddedChannel`: time is advanced by hand, bytes are fed and read back.
@Suite("connection guard")
struct ConnectionGuardTests {
    static let logger = Logger(label: "test.web") { _ in SwiftLogNoOpLogHandler() }

    /// A connection through a guard, active, with `limits`.
    static func channel(_ table: ConnectionTable) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: ConnectionGuard(table: table, logger: logger))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static func bytes(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    /// A client's frame: opcode text, masked unless `masked` is false, `length` payload bytes.
    static func frame(length: Int, masked: Bool = true) -> [UInt8] {
        var out: [UInt8] = [0x81]
        let bit: UInt8 = masked ? 0x80 : 0
        if length < 126 {
            out.append(bit | UInt8(length))
        } else if length < 65536 {
            out += [bit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            out.append(bit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((length >> shift) & 0xFF)) }
        }
        if masked { out += [1, 2, 3, 4] }
        return out + [UInt8](repeating: 0x61, count: length)
    }

    @Test(
        "the frame scanner follows frames across buffers, whatever their length, and finds the first unmasked one",
        arguments: [([5, 200, 70_000], 1), ([5, 200, 70_000], 7), ([0, 125, 126, 65_535, 65_536], 1000)])
    func scanner(_ lengths: [Int], _ chunk: Int) {
        var stream: [UInt8] = []
        for length in lengths { stream += Self.frame(length: length) }
        let unmaskedAt = stream.count
        stream += Self.frame(length: 3, masked: false)
        var scanner = FrameScanner()
        var found: Int? = nil
        var offset = 0
        while offset < stream.count && found == nil {
            let piece = ByteBuffer(bytes: stream[offset..<min(stream.count, offset + chunk)])
            if let at = scanner.firstUnmasked(in: piece.readableBytesView) { found = offset + at }
            offset += chunk
        }
        // Found in the buffer that holds its second header byte, at the offset where its header began (the start
        // of that buffer when the header began in the one before).
        #expect(found == unmaskedAt || found == unmaskedAt + 1, "found at \(String(describing: found)), frame at \(unmaskedAt)")
    }

    @Test("a connection that has not sent its request's headers by the deadline is closed; one that has is not")
    func headerDeadline() throws {
        let table = ConnectionTable(limits: ConnectionLimits(headerTimeout: .seconds(10)))
        let slow = try Self.channel(table)
        try slow.writeInbound(Self.bytes("GET / HTTP/1.1\r\nHost: x\r\nX-a: "))
        let done = try Self.channel(table)
        // Empty lines before the request line do not end anything (RFC 9112 2.2); a bare LF ends a line.
        try done.writeInbound(Self.bytes("\r\n"))
        try done.writeInbound(Self.bytes("GET / HTTP/1.1\nHost: x\n\n"))
        #expect(table.count == 2)
        slow.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(slow.isActive)
        slow.embeddedEventLoop.advanceTime(by: .seconds(2))
        done.embeddedEventLoop.advanceTime(by: .seconds(11))
        #expect(!slow.isActive, "closed at the deadline")
        #expect(done.isActive, "its headers came in time")
        #expect(table.count == 1)
        _ = try? done.finish()
    }

    @Test("once upgraded, a masked frame passes and an unmasked one is answered with close 1002 and not passed on")
    func masking() throws {
        let table = ConnectionTable(limits: ConnectionLimits())
        let channel = try Self.channel(table)
        try channel.writeInbound(Self.bytes("GET /stream HTTP/1.1\r\nUpgrade: websocket\r\n\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self) != nil)
        try channel.writeOutbound(IOData.byteBuffer(Self.bytes("HTTP/1.1 101 Switching Protocols\r\n\r\n")))
        _ = try channel.readOutbound(as: IOData.self)
        try channel.writeInbound(ByteBuffer(bytes: Self.frame(length: 10)))
        #expect(try channel.readInbound(as: ByteBuffer.self)?.readableBytes == 16)
        try? channel.writeInbound(ByteBuffer(bytes: Self.frame(length: 10) + Self.frame(length: 3, masked: false)))
        #expect(try channel.readInbound(as: ByteBuffer.self)?.readableBytes == 16, "only the masked frame before it")
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        guard case .byteBuffer(let close)? = try channel.readOutbound(as: IOData.self) else {
            Issue.record("no close frame")
            return
        }
        #expect(Array(close.readableBytesView) == [0x88, 0x02, 0x03, 0xEA])
        #expect(!channel.isActive)
    }

    @Test("frames sent before the upgrade's answer close the WebSocket with 1002")
    func dataBeforeTheAnswer() throws {
        let table = ConnectionTable(limits: ConnectionLimits())
        let channel = try Self.channel(table)
        try channel.writeInbound(Self.bytes("GET /stream HTTP/1.1\r\nUpgrade: websocket\r\n\r\n"))
        try channel.writeInbound(ByteBuffer(bytes: Self.frame(length: 4)))
        try? channel.writeOutbound(IOData.byteBuffer(Self.bytes("HTTP/1.1 101 Switching Protocols\r\n\r\n")))
        #expect(!channel.isActive)
    }

    @Test("at a cap the quietest connection makes room, tabs excepted; when only tabs are left the newcomer gets 503")
    func caps() throws {
        let table = ConnectionTable(limits: ConnectionLimits(total: 2, perAddress: 2))
        let quiet = try Self.channel(table)
        let busy = try Self.channel(table)
        try busy.writeInbound(Self.bytes("G"))
        let third = try Self.channel(table)
        #expect(!quiet.isActive, "the quietest was closed")
        #expect(busy.isActive && third.isActive)
        // Both left are tabs now: nothing can make room.
        for tab in [busy, third] {
            try tab.writeInbound(Self.bytes("GET /stream HTTP/1.1\r\n\r\n"))
            try tab.writeOutbound(IOData.byteBuffer(Self.bytes("HTTP/1.1 101 Switching Protocols\r\n\r\n")))
        }
        let refused = EmbeddedChannel(handler: ConnectionGuard(table: table, logger: Self.logger))
        try refused.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        guard case .byteBuffer(let answer)? = try refused.readOutbound(as: IOData.self) else {
            Issue.record("no answer")
            return
        }
        #expect(String(buffer: answer).hasPrefix("HTTP/1.1 503 "))
        #expect(!refused.isActive)
        #expect(busy.isActive && third.isActive)
        #expect(table.count == 2)
    }
}
