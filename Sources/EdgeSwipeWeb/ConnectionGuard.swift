import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore

// The bridge's defences below HTTP, in one handler at the front of every connection's pipeline (it sees the bytes
// as they come off the socket, before Hummingbird's decoders):
//
// - A place for each connection in a table with two caps, on all connections and on those from one address. At a
//   cap the newcomer takes the place of the connection that has been quiet longest (no byte either way), unless it
//   is a tab's WebSocket: half-open connections an attacker parks cost it its places, not the page's. Only when
//   every candidate is a tab (their number has its own cap) is the newcomer refused, with a bare 503 and a close:
//   no parsing, no task, no allocation past the handler.
// - A deadline for the first request's headers: a connection that has not sent them in time is closed. After the
//   first request Hummingbird's own idle timeout takes over (it starts counting only once a request was read).
// - RFC 6455 on the client's frames once the connection is a WebSocket: every frame must be masked (5.1), and
//   nothing may come before the server's handshake answer (4.1). A frame that breaks either is not passed on: the
//   connection is closed with 1002. (Invalid UTF-8 in a text frame, 1007, is the WebSocket layer's check:
//   `validateUTF8`.)

/// The limits on the bridge's connections.
public struct ConnectionLimits: Sendable {
    /// Connections open at once, from everyone.
    public var total: Int
    /// Connections open at once from one address. On loopback every local user is 127.0.0.1: there the total,
    /// the eviction of quiet connections and the header deadline are what hold; this matters with --allow-remote.
    public var perAddress: Int
    /// How long a new connection may take to send its first request's headers.
    public var headerTimeout: Duration
    /// How long a connection may stay idle between requests (keep-alive); WebSockets keep alive with pings.
    public var idleTimeout: Duration
    /// Tabs (WebSockets) at once; past it a new tab's upgrade is refused (400, as every refused upgrade).
    public var tabs: Int

    public init(total: Int = 512, perAddress: Int = 128, headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), tabs: Int = 64) {
        self.total = total
        self.perAddress = perAddress
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.tabs = tabs
    }
}

/// Every open connection of the bridge, for the caps and for choosing whom a newcomer replaces.
final class ConnectionTable: Sendable {
    struct Entry {
        var address: String
        var channel: any Channel
        /// When a byte last went either way (monotonic nanoseconds).
        var lastActive: UInt64
        var isWebSocket = false
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var perAddress: [String: Int] = [:]
        var evicted = 0
        var refused = 0
    }

    enum Admission {
        /// Admitted; `replacing` is closed by the caller (outside the table's lock).
        case admitted(replacing: (any Channel)?)
        case refused
    }

    let limits: ConnectionLimits
    private let state = NIOLockedValueBox(State())

    init(limits: ConnectionLimits) { self.limits = limits }

    var count: Int { state.withLockedValue { $0.entries.count } }
    var evictions: Int { state.withLockedValue { $0.evicted } }

    func admit(_ key: ObjectIdentifier, channel: any Channel, address: String, now: UInt64) -> Admission {
        state.withLockedValue { s in
            var victim: ObjectIdentifier? = nil
            if s.perAddress[address, default: 0] >= limits.perAddress {
                victim = Self.quietest(in: s.entries) { $0.address == address }
                guard victim != nil else { s.refused += 1; return .refused }
            } else if s.entries.count >= limits.total {
                victim = Self.quietest(in: s.entries) { _ in true }
                guard victim != nil else { s.refused += 1; return .refused }
            }
            var replaced: (any Channel)? = nil
            if let victim, let entry = s.entries.removeValue(forKey: victim) {
                s.perAddress[entry.address, default: 1] -= 1
                s.evicted += 1
                replaced = entry.channel
            }
            s.entries[key] = Entry(address: address, channel: channel, lastActive: now)
            s.perAddress[address, default: 0] += 1
            return .admitted(replacing: replaced)
        }
    }

    /// The connection that has been quiet longest among those `matching`, WebSockets excepted.
    private static func quietest(in entries: [ObjectIdentifier: Entry], _ matching: (Entry) -> Bool) -> ObjectIdentifier? {
        var best: (ObjectIdentifier, UInt64)? = nil
        for (key, entry) in entries where !entry.isWebSocket && matching(entry) {
            if best == nil || entry.lastActive < best!.1 { best = (key, entry.lastActive) }
        }
        return best?.0
    }

    func touch(_ key: ObjectIdentifier, now: UInt64) {
        state.withLockedValue { $0.entries[key]?.lastActive = now }
    }

    func markWebSocket(_ key: ObjectIdentifier) {
        state.withLockedValue { $0.entries[key]?.isWebSocket = true }
    }

    func remove(_ key: ObjectIdentifier) {
        state.withLockedValue { s in
            guard let entry = s.entries.removeValue(forKey: key) else { return }
            s.perAddress[entry.address, default: 1] -= 1
            if s.perAddress[entry.address] == 0 { s.perAddress[entry.address] = nil }
        }
    }
}

/// The front of a connection's pipeline: its place in the ``ConnectionTable``, the header deadline, and the
/// client's WebSocket frames checked for masking (see the file's comment).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private enum Phase {
        /// Reading the first request's headers: they end with an empty line (`\r\n` or a bare `\n`), once a
        /// line with something in it has come (empty lines before the request line do not count, RFC 9112 2.2).
        case firstHead(lineLength: Int, started: Bool)
        /// The first request's headers are in; its answer says whether this becomes a WebSocket. `early`: bytes
        /// came after the headers meanwhile (pipelined requests, or frames a client must not send yet).
        case awaitingAnswer(early: Bool)
        /// Plain HTTP from now on: nothing more to watch here.
        case http
        case webSocket(FrameScanner)
        case closed
    }

    private let table: ConnectionTable
    private let logger: Logger
    private var phase = Phase.firstHead(lineLength: 0, started: false)
    private var admitted = false
    private var key: ObjectIdentifier?
    private var deadline: Scheduled<Void>?

    init(table: ConnectionTable, logger: Logger) {
        self.table = table
        self.logger = logger
    }

    /// The whole answer to a connection past the caps, written before any HTTP is parsed.
    static let refusal: String = {
        let body = "edgeswipe-web: too many connections; try again later\n"
        return "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\nRetry-After: 5\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
    }()
    /// A close frame with code 1002 (protocol error), unmasked as a server's frames are.
    static let protocolErrorClose: [UInt8] = [0x88, 0x02, 0x03, 0xEA]
    static let switchingProtocols = Array("HTTP/1.1 101".utf8)

    private static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if !admitted { admit(context) }
        context.fireChannelActive()
    }

    private func admit(_ context: ChannelHandlerContext) {
        admitted = true
        let key = ObjectIdentifier(context.channel)
        self.key = key
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        switch table.admit(key, channel: context.channel, address: address, now: Self.now()) {
        case .admitted(let replaced):
            replaced?.close(promise: nil)
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(table.limits.headerTimeout)) {
                guard case .firstHead = self.phase else { return }
                self.phase = .closed
                context.close(promise: nil)
            }
        case .refused:
            phase = .closed
            self.key = nil
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(string: Self.refusal))), promise: nil)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { release() }

    private func release() {
        deadline?.cancel()
        deadline = nil
        if let key { table.remove(key) }
        key = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let key { table.touch(key, now: Self.now()) }
        let buffer = unwrapInboundIn(data)
        switch phase {
        case .firstHead(var lineLength, var started):
            var end: Int? = nil
            for (i, byte) in buffer.readableBytesView.enumerated() {
                switch byte {
                case UInt8(ascii: "\r"): continue
                case UInt8(ascii: "\n"):
                    if lineLength == 0 && started { end = i + 1 }
                    lineLength = 0
                default:
                    lineLength += 1
                    started = true
                }
                if end != nil { break }
            }
            if let end {
                deadline?.cancel()
                deadline = nil
                phase = .awaitingAnswer(early: end < buffer.readableBytes)
            } else {
                phase = .firstHead(lineLength: lineLength, started: started)
            }
        case .awaitingAnswer:
            phase = .awaitingAnswer(early: true)
        case .http:
            break
        case .webSocket(var scanner):
            if let offset = scanner.firstUnmasked(in: buffer.readableBytesView) {
                if offset > 0, let before = buffer.getSlice(at: buffer.readerIndex, length: offset) {
                    context.fireChannelRead(wrapInboundOut(before))
                }
                failWebSocket(context, "an unmasked frame")
                return
            }
            phase = .webSocket(scanner)
        case .closed:
            return
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if let key { table.touch(key, now: Self.now()) }
        if case .awaitingAnswer(let early) = phase, case .byteBuffer(let buffer) = unwrapOutboundIn(data) {
            if buffer.readableBytesView.starts(with: Self.switchingProtocols) {
                if let key { table.markWebSocket(key) }
                phase = .webSocket(FrameScanner())
                if early {
                    context.write(data, promise: promise)
                    failWebSocket(context, "data before the handshake's answer")
                    return
                }
            } else {
                phase = .http
            }
        }
        context.write(data, promise: promise)
    }

    /// Closes a WebSocket whose client broke RFC 6455, with 1002, passing nothing more on.
    private func failWebSocket(_ context: ChannelHandlerContext, _ what: String) {
        phase = .closed
        logger.notice("closed a WebSocket that sent \(what) (RFC 6455: close 1002)", metadata: ["peer": "\(context.channel.remoteAddress?.description ?? "?")"])
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(ByteBuffer(bytes: Self.protocolErrorClose))), promise: nil)
        context.close(promise: nil)
    }
}

/// Follows the client's WebSocket frames through the byte stream, header by header, skipping payloads, to find
/// the first frame without a mask.
struct FrameScanner {
    private var header: [UInt8] = []
    private var skip: UInt64 = 0

    /// The offset in `bytes` where the first unmasked frame starts (0 when it started in an earlier buffer), or
    /// `nil` when every frame seen so far is masked.
    mutating func firstUnmasked(in bytes: ByteBufferView) -> Int? {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if skip > 0 {
                let take = min(skip, UInt64(bytes.endIndex - i))
                i += Int(take)
                skip -= take
                continue
            }
            header.append(bytes[i])
            i += 1
            guard header.count >= 2 else { continue }
            if header[1] & 0x80 == 0 { return max(0, i - bytes.startIndex - header.count) }
            let length7 = header[1] & 0x7F
            let lengthBytes = length7 == 126 ? 2 : (length7 == 127 ? 8 : 0)
            guard header.count == 2 + lengthBytes + 4 else { continue }
            var length = UInt64(length7)
            if lengthBytes > 0 {
                length = header[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | UInt64($1) }
            }
            header.removeAll(keepingCapacity: true)
            skip = length
        }
        return nil
    }
}

/// Wraps Hummingbird's HTTP/WebSocket child channel with a ``ConnectionGuard`` at the front of each pipeline.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let table: ConnectionTable
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let guardLogger = self.logger
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(table: table, logger: guardLogger), position: .first)
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
