import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SystemPackage

/// One accepted client: its credentials, what it may do, its outbox, and a way to reach its handler on its event
/// loop.
final class Connection: Sendable {
    let id: UInt64
    let peer: PeerCredentials
    /// What the peer may do now: set when it registers, and again whenever the access policy or its inputs change
    /// (``ServerCore/reevaluateAccess(revokedReason:)``).
    let access: NIOLockedValueBox<AccessLevel>
    let channel: any Channel
    let outbox: NIOLockedValueBox<OutboxState>
    let handler: NIOLoopBound<ConnectionHandler>
    /// The fan-out of this connection's event loop: publishing wakes each loop once, not each connection.
    let fanOut: LoopFanOut?

    init(
        id: UInt64, peer: PeerCredentials, access: AccessLevel, channel: any Channel, limits: (messages: Int, bytes: Int),
        directSocket: SystemPackage.FileDescriptor?, handler: ConnectionHandler, fanOut: LoopFanOut?
    ) {
        self.id = id
        self.peer = peer
        self.access = NIOLockedValueBox(access)
        self.channel = channel
        self.outbox = NIOLockedValueBox(OutboxState(maxMessages: limits.messages, maxBytes: limits.bytes, directSocket: directSocket))
        self.handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        self.fanOut = fanOut
    }

    /// Queues the messages of `batch` that this connection subscribes to. Never blocks on the network: it
    /// takes the outbox lock, and wakes the event loop only when the loop is idle.
    func deliver(_ batch: SharedBatch) {
        react(to: outbox.withLockedValue { $0.enqueue(batch) })
    }

    /// Queues the answer to a request the daemon handled (see ``OutboxState/enqueueAnswer(_:)``).
    func deliverAnswer(_ batch: SharedBatch) {
        react(to: outbox.withLockedValue { $0.enqueueAnswer(batch) })
    }

    /// Publishes `batch`: written straight to the socket when the connection is idle and `directly` (one hop),
    /// else queued like ``deliver(_:)``, leaving the wake-up of the event loop to the caller: true when this
    /// connection was added to its loop's fan-out, which must then be woken (``LoopFanOut/wakeIfPending()``).
    func deliverDeferringWake(_ batch: SharedBatch, directly: Bool, scratch: inout [UInt8]) -> Bool {
        let outcome = outbox.withLockedValue { $0.publish(batch, directly: directly, scratch: &scratch) }
        guard case .wake = outcome, let fanOut else {
            react(to: outcome)
            return false
        }
        fanOut.add(self)
        return true
    }

    /// Queues the last message (a goodbye) after what is already queued; the connection closes once it has been
    /// written, or after `timeout`. A connection that is already closing is closed at once when `immediately`.
    func finish(with goodbye: SharedBatch, timeout: Duration, immediately: Bool = false) {
        let outcome = outbox.withLockedValue { $0.enqueueFinal(goodbye) }
        react(to: outcome)
        let channel = self.channel
        if immediately && outcome == .refused {
            channel.close(promise: nil)
            return
        }
        channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) { channel.close(promise: nil) }
    }

    private func react(to outcome: OutboxState.EnqueueOutcome) {
        switch outcome {
        case .queued, .refused, .written:
            break
        case .wake:
            channel.eventLoop.execute { self.handler.value.drain() }
        case .overflowed(let messages, let bytes):
            channel.eventLoop.execute { self.handler.value.cutOff(.backlog(messages: messages, bytes: bytes)) }
        }
    }
}

/// The pipeline handler of one connection: frames and answers requests, and writes the outbox while the channel
/// is writable. Lives on the connection's event loop only.
///
/// Reading follows the writing, the way NIO's own backpressure does: while the connection's answers pile up
/// (replies and errors not yet written, or requests waiting for the daemon), its requests are not read, and NIO
/// is not asked for more bytes; reading resumes when they drain. A client that pipelines requests and reads its
/// answers is therefore never cut off, and one that stops reading stops being read.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Why a connection is cut off.
    enum CutOff {
        /// Its backlog passed the bound.
        case backlog(messages: Int, bytes: Int)
        /// It read nothing for the stall timeout while messages waited.
        case stalled(seconds: Double, messages: Int, bytes: Int)
    }

    private let core: ServerCore
    private let peer: PeerCredentials
    private let id: UInt64
    private var logger: Logger
    private var framer: LineFramer
    private var context: ChannelHandlerContext?
    private var connection: Connection?
    /// The duplicate of the socket the publisher writes to directly, until it is handed to the ``Connection``
    /// (which closes it with the connection); closed here if it never is.
    private var directSocket: SystemPackage.FileDescriptor?
    private var scratch: [QueuedMessage] = []
    private var finished = false

    // Reading, and its backpressure.
    /// Bytes read but not yet framed, kept while reading is paused.
    private var unread: ByteBuffer?
    /// NIO asked to read while reading was paused; passed on when it resumes.
    private var readPending = false
    /// The client has finished sending; handled once `unread` is empty.
    private var inputClosed = false
    private var inputFinished = false
    /// Pending while the channel is unwritable: cuts the connection off when it stays so for the stall timeout.
    private var stallCheck: Scheduled<Void>?
    private var unwritableSince: NIODeadline?
    /// The latest request handed to the daemon: the next one waits for it, so that a connection's requests are
    /// carried out in the order it sent them (two pipelined pushes stack in that order).
    private var lastDaemonRequest: Task<Void, Never>?

    /// Bytes handed to the channel per write: large enough to amortise the syscall, small enough to notice
    /// unwritability soon.
    private static let chunkBytes = 128 * 1024

    init(core: ServerCore, peer: PeerCredentials, id: UInt64, directSocket: SystemPackage.FileDescriptor?) {
        self.core = core
        self.peer = peer
        self.id = id
        self.directSocket = directSocket
        self.framer = LineFramer(maxLineBytes: core.configuration.maxLineBytes)
        var logger = core.logger
        logger[metadataKey: "connection"] = "\(id)"
        logger[metadataKey: "peer"] = "\(peer)"
        self.logger = logger
        core.liveHandlers.withLockedValue { $0 += 1 }
    }

    deinit {
        try? directSocket?.close()
        core.liveHandlers.withLockedValue { $0 -= 1 }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { register(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        register(context)
        context.fireChannelActive()
    }

    private func register(_ context: ChannelHandlerContext) {
        guard connection == nil else { return }
        let c = Connection(
            id: id, peer: peer, access: .none, channel: context.channel,
            limits: (core.configuration.maxQueuedMessages, core.configuration.maxQueuedBytes),
            directSocket: directSocket, handler: self, fanOut: core.fanOut(for: context.eventLoop))
        directSocket = nil
        connection = c
        guard let access = core.register(c) else {
            finished = true
            context.close(promise: nil)
            return
        }
        logger.debug("client connected", metadata: ["access": "\(access)"])
    }

    func channelInactive(context: ChannelHandlerContext) {
        finished = true
        stallCheck?.cancel()
        stallCheck = nil
        var sent: UInt64 = 0
        if let connection {
            sent = connection.outbox.withLockedValue { o -> UInt64 in
                o.close()
                return o.nextSeq - 1
            }
            core.unregister(connection)
        }
        logger.debug("client disconnected", metadata: ["lines_sent": "\(sent)"])
        // The Connection holds this handler (to reach it on its event loop) and this handler holds the
        // Connection: break the cycle, or every closed client's handler, Connection, channel, framer buffer and
        // outbox stay in memory for the life of the daemon. Work already scheduled on the loop holds the
        // Connection itself, and finds `context` nil.
        self.connection = nil
        self.context = nil
        framer = LineFramer(maxLineBytes: core.configuration.maxLineBytes)
        scratch = []
        unread = nil
        lastDaemonRequest = nil
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallCheck?.cancel()
            stallCheck = nil
            unwritableSince = nil
            drain()
        } else {
            watchForStall(context)
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error, closing", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: Writing

    /// Writes queued messages while the channel is writable, numbering them as they go; then reads on, if the
    /// answers have drained.
    func drain() {
        guard let context, let connection, !finished else { return }
        var wrote = false
        var done = false
        while context.channel.isWritable {
            scratch.removeAll(keepingCapacity: true)
            let (remainder, taken) = connection.outbox.withLockedValue { o in
                (o.takeRemainder(), o.take(maxBytes: Self.chunkBytes, into: &scratch))
            }
            done = taken.finished
            if let remainder {
                // What the socket did not take of a direct write goes first: it was written before anything queued.
                var buffer = context.channel.allocator.buffer(capacity: remainder.count)
                buffer.writeBytes(remainder)
                context.write(wrapOutboundOut(buffer), promise: completion(connection, context))
                wrote = true
            }
            guard !scratch.isEmpty else { break }
            var total = 0
            for m in scratch { total += m.byteCount }
            var buffer = context.channel.allocator.buffer(capacity: total)
            var seq = taken.firstSeq
            for m in scratch {
                let message = m.batch.batch.messages[m.index]
                buffer.writeStaticString(message.type.linePrefix)
                JSONWriter.withDecimalDigits(of: seq) { _ = buffer.writeBytes(UnsafeRawBufferPointer($0)) }
                m.batch.batch.withTail(m.index) { _ = buffer.writeBytes($0) }
                seq += 1
            }
            context.write(wrapOutboundOut(buffer), promise: completion(connection, context))
            wrote = true
            if done { break }
        }
        scratch.removeAll(keepingCapacity: scratch.capacity <= 1024)
        if done {
            closeAfterFlush(context)
            return
        }
        if wrote { context.flush() }
        if !context.channel.isWritable { watchForStall(context) }
        resumeReading()
    }

    /// A promise that tells the outbox when a buffer handed to the channel has been written: until then the
    /// publisher queues rather than writes past it.
    private func completion(_ connection: Connection, _ context: ChannelHandlerContext) -> EventLoopPromise<Void> {
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { _ in connection.outbox.withLockedValue { $0.writeCompleted() } }
        return promise
    }

    private func closeAfterFlush(_ context: ChannelHandlerContext) {
        finished = true
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: promise)
        let channel = context.channel
        promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }

    /// Starts the stall clock when the channel has become unwritable: a client whose socket stays full for the
    /// stall timeout has stopped reading, and is let go before its backlog grows to the bound.
    private func watchForStall(_ context: ChannelHandlerContext) {
        guard stallCheck == nil, !finished else { return }
        let since = NIODeadline.now()
        unwritableSince = since
        let timeout = core.registry.withLockedValue { $0.stallTimeout }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        stallCheck = context.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            handler.value.stallTimedOut(since: since, timeout: timeout)
        }
    }

    private func stallTimedOut(since: NIODeadline, timeout: Duration) {
        stallCheck = nil
        guard let context, !context.channel.isWritable, unwritableSince == since else { return }
        let backlog = connection?.outbox.withLockedValue { ($0.liveCount, $0.heldBytes) } ?? (0, 0)
        let (seconds, attoseconds) = timeout.components
        cutOff(.stalled(seconds: Double(seconds) + Double(attoseconds) / 1e18, messages: backlog.0, bytes: backlog.1))
    }

    /// Says goodbye (it gets through if the client ever reads again) and closes: the backlog passed the bound, or
    /// the client read nothing for too long.
    func cutOff(_ why: CutOff) {
        guard let context, !finished else { return }
        let message: String
        switch why {
        case .backlog(let messages, let bytes):
            logger.warning(
                "client too slow, disconnecting",
                metadata: ["backlog_messages": "\(messages)", "backlog_bytes": "\(bytes)"])
            message = "disconnected: \(messages) messages (\(bytes) bytes) were waiting, over the bound of \(core.configuration.maxQueuedMessages) messages or \(core.configuration.maxQueuedBytes) bytes; read faster or subscribe to fewer topics"
        case .stalled(let seconds, let messages, let bytes):
            logger.warning(
                "client too slow, disconnecting: it read nothing for \(seconds) s",
                metadata: ["backlog_messages": "\(messages)", "backlog_bytes": "\(bytes)"])
            message = "disconnected: nothing was read for \(seconds) s while \(messages) messages (\(bytes) bytes) were waiting; read what the server sends"
        }
        core.countCutOff()
        let seq: UInt64 = connection?.outbox.withLockedValue { o -> UInt64 in
            o.close()
            return o.claimSeq()
        } ?? 1
        var batch = EncodedBatch(capacity: 256)
        batch.appendGoodbye(.backlogExceeded, message: message, time: core.configuration.clock())
        var buffer = context.channel.allocator.buffer(capacity: batch.messages[0].maxLineByteCount)
        buffer.writeBytes(batch.line(0, seq: seq))
        let channel = context.channel
        channel.eventLoop.scheduleTask(in: TimeAmount(core.configuration.goodbyeTimeout)) { channel.close(promise: nil) }
        context.write(wrapOutboundOut(buffer), promise: nil)
        closeAfterFlush(context)
    }

    // MARK: Reading

    /// Passes NIO's request for more bytes on only while reading is not paused.
    func read(context: ChannelHandlerContext) {
        if unread != nil || mustPauseReading {
            readPending = true
        } else {
            context.read()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if var pending = unread {
            unread = nil
            pending.writeImmutableBuffer(buffer)
            unread = pending
        } else {
            unread = buffer
        }
        readUnread()
    }

    /// The client has finished sending (socat and most scripts `shutdown(SHUT_WR)` once their requests are
    /// written): a last line without its newline still counts, every request read is answered, and the connection
    /// closes once those answers are written.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let event = event as? ChannelEvent, event == .inputClosed else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        inputClosed = true
        readUnread()
    }

    /// Whether the answers this connection owes have piled up: too many requests wait for the daemon, or too many
    /// answers wait to be written.
    private var mustPauseReading: Bool { answersPiledUp(resumeAtHalf: false) }

    /// Whether too many requests wait for the daemon, or too many answers (by count, or by bytes: a quarter of the
    /// connection's byte bound) wait to be written. `resumeAtHalf` asks whether they are still above half of those
    /// bounds: reading resumes only below, so that it does not flap at the bound.
    private func answersPiledUp(resumeAtHalf: Bool) -> Bool {
        guard let connection else { return false }
        let (inFlight, answers, bytes) = connection.outbox.withLockedValue { ($0.requestsInFlight, $0.answersQueued, $0.answerBytes) }
        let c = core.configuration
        let divisor = resumeAtHalf ? 2 : 1
        return inFlight >= c.maxRequestsInFlight || answers >= max(1, c.maxQueuedAnswers / divisor)
            || bytes >= max(1, c.maxQueuedBytes / 4 / divisor)
    }

    /// Frames and handles the bytes read so far, line by line, until they run out or the answers pile up.
    private func readUnread() {
        guard !finished else {
            unread = nil
            return
        }
        if var pending = unread {
            unread = nil
            let consumed = pending.withUnsafeReadableBytes { bytes in
                framer.feed(bytes, while: { !finished && !mustPauseReading }) { frame in handle(frame) }
            }
            pending.moveReaderIndex(forwardBy: consumed)
            if pending.readableBytes > 0 && !finished { unread = pending }
        }
        guard unread == nil, !finished else { return }
        if inputClosed {
            finishInput()
        }
    }

    /// Reads on after a pause, once the answers have drained below half the bound.
    private func resumeReading() {
        guard let context, !finished, unread != nil || readPending || (inputClosed && !inputFinished) else { return }
        guard !answersPiledUp(resumeAtHalf: true) else { return }
        readUnread()
        if unread == nil && readPending && !finished && !mustPauseReading {
            readPending = false
            context.read()
        }
    }

    private func finishInput() {
        guard !inputFinished, let connection else { return }
        inputFinished = true
        framer.finish { frame in handle(frame) }
        if connection.outbox.withLockedValue({ $0.endInput() }) { drain() }
    }

    private func handle(_ frame: LineFramer.Frame) {
        guard !finished else { return }
        switch frame {
        case .oversized(let number, let limit):
            send(RequestError(
                code: .lineTooLong,
                reason: "line is longer than \(limit) bytes; the rest of it up to the next newline is discarded",
                line: number))
        case .line(let bytes, let number):
            do {
                dispatch(try RequestDecoder.decode(bytes, line: number))
            } catch {
                logger.debug("bad request", metadata: ["error": "\(error)"])
                send(error)
            }
        }
    }

    private func dispatch(_ envelope: RequestEnvelope) {
        guard let connection else { return }
        let request = envelope.request
        let place = (id: envelope.id, op: request.op, line: envelope.line)
        let access = connection.access.withLockedValue { $0 }
        // A connection whose access was revoked is closing: what it still sends is not read.
        guard access > .none else { return }
        if request.requiresControl && access < .control {
            logger.notice("control request refused: read-only peer", metadata: ["op": "\(request.op)"])
            send(RequestError(
                code: .forbidden,
                reason: "uid \(peer.uid) may read but not control; the access policy must grant it control for \(request.op)",
                id: place.id, op: place.op, line: place.line))
            return
        }
        switch request {
        case .ping:
            reply(id: place.id, op: place.op, .empty)
        case .subscribe(let subscription):
            connection.outbox.withLockedValue { $0.filter.subscription = subscription }
            reply(id: place.id, op: place.op, .subscribed(subscription))
        case .daemon(let daemonRequest):
            guard let handler = core.handler else {
                send(RequestError(code: .unavailable, reason: "this server has no request handler", id: place.id, op: place.op, line: place.line))
                return
            }
            // Reading pauses at `maxRequestsInFlight` (see `mustPauseReading`), so this never passes it.
            connection.outbox.withLockedValue { $0.beginRequest() }
            let requestContext = RequestContext(
                peer: peer, access: access, connectionID: id, requestID: place.id, snapshot: core.snapshot())
            let core = self.core
            let previous = lastDaemonRequest
            lastDaemonRequest = Task {
                await previous?.value
                var batch = EncodedBatch(capacity: 512)
                do throws(RequestError) {
                    let result = try await handler.handle(daemonRequest, context: requestContext)
                    batch.appendReply(id: place.id, op: place.op, result: result, time: core.configuration.clock())
                } catch {
                    batch.appendError(error.answering(id: place.id, op: place.op, line: place.line), time: core.configuration.clock())
                }
                connection.deliverAnswer(SharedBatch(batch))
            }
        }
    }

    private func reply(id: RequestID?, op: String, _ result: ReplyResult) {
        var batch = EncodedBatch(capacity: 256)
        batch.appendReply(id: id, op: op, result: result, time: core.configuration.clock())
        connection?.deliver(SharedBatch(batch))
    }

    private func send(_ error: RequestError) {
        var batch = EncodedBatch(capacity: 256)
        batch.appendError(error, time: core.configuration.clock())
        connection?.deliver(SharedBatch(batch))
    }
}
