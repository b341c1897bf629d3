import EdgeSwipeProtocol
import EdgeSwipeSystem
public import EdgeSwipeSessionModel
public import Logging
public import NIOCore
import NIOPosix

/// A compositor's IPC, as the session speaks it: requests for rules, and the focused application from its events.
/// Everything runs on the session's event loop; nothing waits for the compositor (a request that gets no answer in
/// ``CompositorRequests/replyTimeout`` is given up with a log line naming the rule).
public protocol CompositorIPC: AnyObject, Sendable {
    var desktop: Desktop { get }
    /// Carries out `effect` (a workspace step, or this compositor's own request) for `rule`; on the event loop.
    func perform(_ effect: Effect, facts: TransitionFacts, rule: Rule)
    /// Starts following focus: `focused` gets the app id (or class) of each newly focused window, on the event loop.
    func followFocus(_ focused: @escaping @Sendable (String?) -> Void)
    func stop()
}

/// The IPC for `desktop` in `environment`, or why there is none (a missing socket variable).
public func compositorIPC(
    for desktop: Desktop, environment: [String: String], eventLoop: any EventLoop, logger: Logger
) -> Result<any CompositorIPC, CompositorIPCError> {
    switch desktop {
    case .sway, .i3:
        let key = desktop == .sway ? "SWAYSOCK" : "I3SOCK"
        guard let path = environment[key], !path.isEmpty else { return .failure(.missing("$\(key) is not set")) }
        return .success(SwayIPC(desktop: desktop, socketPath: path, eventLoop: eventLoop, logger: logger))
    case .hyprland:
        guard let signature = environment["HYPRLAND_INSTANCE_SIGNATURE"], !signature.isEmpty else {
            return .failure(.missing("$HYPRLAND_INSTANCE_SIGNATURE is not set"))
        }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
            return .failure(.missing("$XDG_RUNTIME_DIR is not set (Hyprland's sockets are in $XDG_RUNTIME_DIR/hypr)"))
        }
        let folder = "\(runtime)/hypr/\(signature)"
        return .success(HyprlandIPC(
            requestSocket: "\(folder)/.socket.sock", eventSocket: "\(folder)/.socket2.sock", eventLoop: eventLoop, logger: logger))
    case .niri:
        guard let path = environment["NIRI_SOCKET"], !path.isEmpty else { return .failure(.missing("$NIRI_SOCKET is not set")) }
        return .success(NiriIPC(socketPath: path, eventLoop: eventLoop, logger: logger))
    case .kde, .gnome, .phosh:
        return .failure(.unsupported("\(desktop.rawValue) has no compositor IPC the session speaks (its effects are keys, D-Bus and commands)"))
    }
}

public enum CompositorIPCError: Error, Hashable, Sendable, CustomStringConvertible {
    case missing(String)
    case unsupported(String)
    public var description: String {
        switch self {
        case .missing(let why), .unsupported(let why): why
        }
    }
}

/// One request on a connection of its own (Hyprland's and niri's request sockets): connect, write, read the reply
/// until it is complete or the compositor closes, close. Never held open: an unclosed connection freezes Hyprland.
enum CompositorRequests {
    /// How long a compositor has to answer before the request is given up.
    static let replyTimeout = TimeAmount.seconds(2)
    /// The longest reply read (a garbage flood is cut off here).
    static let maxReplyBytes = 1 << 20

    static func send(
        _ request: [UInt8], to path: String, on eventLoop: any EventLoop, timeout: TimeAmount = replyTimeout,
        isComplete: @escaping @Sendable ([UInt8]) -> Bool
    ) -> EventLoopFuture<[UInt8]> {
        let promise = eventLoop.makePromise(of: [UInt8].self)
        ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(CollectingHandler(promise: promise, isComplete: isComplete))
                }
            }
            .connect(unixDomainSocketPath: path)
            .whenComplete { result in
                switch result {
                case .failure(let error):
                    promise.fail(CompositorRequestError.cannotConnect(path: path, reason: "\(error)"))
                case .success(let channel):
                    var buffer = channel.allocator.buffer(capacity: request.count)
                    buffer.writeBytes(request)
                    channel.writeAndFlush(buffer, promise: nil)
                    let timer = eventLoop.scheduleTask(in: timeout) {
                        promise.fail(CompositorRequestError.noReply(after: timeout))
                        channel.close(promise: nil)
                    }
                    promise.futureResult.whenComplete { _ in
                        timer.cancel()
                        channel.close(promise: nil)
                    }
                }
            }
        return promise.futureResult
    }
}

enum CompositorRequestError: Error, CustomStringConvertible {
    case cannotConnect(path: String, reason: String)
    case noReply(after: TimeAmount)
    case tooLong(Int)
    case closedEarly

    var description: String {
        switch self {
        case .cannotConnect(let path, let reason): "cannot connect to \(path): \(reason)"
        case .noReply(let after): "no answer within \(after.nanoseconds / 1_000_000) ms (the compositor stalls)"
        case .tooLong(let n): "the answer ran past \(n) bytes"
        case .closedEarly: "the compositor closed the connection without answering"
        }
    }
}

/// Gathers a reply; the promise succeeds when `isComplete` says so or the peer closes, and fails on a flood. (The
/// timeout may have failed it first: a promise completed twice keeps its first result.)
final class CollectingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<[UInt8]>
    private let isComplete: ([UInt8]) -> Bool
    private var bytes: [UInt8] = []
    private var done = false

    init(promise: EventLoopPromise<[UInt8]>, isComplete: @escaping ([UInt8]) -> Bool) {
        self.promise = promise
        self.isComplete = isComplete
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        var buffer = unwrapInboundIn(data)
        bytes += buffer.readBytes(length: buffer.readableBytes) ?? []
        if bytes.count > CompositorRequests.maxReplyBytes {
            done = true
            promise.fail(CompositorRequestError.tooLong(CompositorRequests.maxReplyBytes))
        } else if isComplete(bytes) {
            done = true
            promise.succeed(bytes)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        if bytes.isEmpty { promise.fail(CompositorRequestError.closedEarly) } else { promise.succeed(bytes) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// A long-lived connection that delivers what the compositor streams (focus events), reconnecting with a backoff
/// when it closes; the first failure and the recovery are logged once each.
final class EventStreamConnection: @unchecked Sendable {
    private let path: String
    private let name: String
    private let eventLoop: any EventLoop
    private let logger: Logger
    /// The bytes to write once connected (a subscription).
    private let greeting: [UInt8]
    /// Each chunk read, in order, on the event loop; `nil` when the connection closed.
    private let receive: ([UInt8]?) -> Void
    private var channel: (any Channel)?
    private var delay = TimeAmount.milliseconds(500)
    private var failing = false
    private var stopped = false

    init(path: String, name: String, greeting: [UInt8], eventLoop: any EventLoop, logger: Logger, receive: @escaping ([UInt8]?) -> Void) {
        self.path = path
        self.name = name
        self.greeting = greeting
        self.eventLoop = eventLoop
        self.logger = logger
        self.receive = receive
    }

    func start() { eventLoop.execute { self.connect() } }

    func stop() {
        eventLoop.execute {
            self.stopped = true
            self.channel?.close(promise: nil)
        }
    }

    private func connect() {
        guard !stopped else { return }
        ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(StreamHandler(receive: { [self] in self.receive($0) }))
                }
            }
            .connect(unixDomainSocketPath: path)
            .whenComplete { [self] result in
                switch result {
                case .failure(let error):
                    if !failing { logger.warning("\(name): cannot connect to \(path): \(error); retrying") }
                    failing = true
                    retry()
                case .success(let channel):
                    if failing { logger.notice("\(name): connected again") }
                    failing = false
                    delay = .milliseconds(500)
                    self.channel = channel
                    var buffer = channel.allocator.buffer(capacity: greeting.count)
                    buffer.writeBytes(greeting)
                    channel.writeAndFlush(buffer, promise: nil)
                    channel.closeFuture.whenComplete { [self] _ in
                        self.channel = nil
                        receive(nil)
                        guard !stopped else { return }
                        if !failing { logger.warning("\(name): the compositor closed the event connection; reconnecting") }
                        failing = true
                        retry()
                    }
                }
            }
    }

    private func retry() {
        guard !stopped else { return }
        let wait = delay
        delay = min(delay * 2, .seconds(30))
        eventLoop.scheduleTask(in: wait) { [self] in connect() }
    }

    private final class StreamHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let receive: ([UInt8]?) -> Void
        init(receive: @escaping ([UInt8]?) -> Void) { self.receive = receive }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            receive(buffer.readBytes(length: buffer.readableBytes) ?? [])
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}

/// The requests one compositor has in flight, capped, and the complaints about them, throttled: a compositor that
/// stops answering, or a `changed` rule that fires 2,000 times a second, must take neither the session's descriptors
/// (Hyprland and niri: a connection per request) nor its memory (sway: commands queued on the held connection), nor
/// flood its log. On the session's event loop only.
final class RequestGate {
    /// Requests written and not yet answered, failed or timed out, at most.
    static let maxInFlight = 16
    /// How often one complaint (per rule and kind) is said; the ones held back are counted in the next.
    static let complaintInterval = Duration.seconds(10)

    private let name: String
    private let logger: Logger
    private(set) var inFlight = 0
    /// Requests dropped at the cap, all told (for tests).
    private(set) var dropped = 0
    private var complaints: [String: LogThrottle] = [:]

    init(name: String, logger: Logger) {
        self.name = name
        self.logger = logger
    }

    /// Whether `rule`'s request may go now; a request past the cap is dropped and said (throttled).
    func admit(_ rule: Rule) -> Bool {
        guard inFlight < Self.maxInFlight else {
            dropped += 1
            complain(rule, "dropped", "\(rule): \(name) has \(Self.maxInFlight) requests unanswered; dropping this one")
            return false
        }
        inFlight += 1
        return true
    }

    /// An admitted request was answered, failed or timed out.
    func finished() { inFlight = max(0, inFlight - 1) }

    /// Logs `line` for `rule` at most once per ``complaintInterval`` per `kind`, with how many were held back.
    func complain(_ rule: Rule, _ kind: String, _ line: String) {
        let key = "\(rule.place) \(rule.name) \(kind)"
        let (allowed, held) = complaints[key, default: LogThrottle(interval: Self.complaintInterval)].admit()
        guard allowed else { return }
        logger.error("\(line)\(held > 0 ? " (\(held) more like it since the last said)" : "")")
    }
}
