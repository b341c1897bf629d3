public import EdgeSwipeClient
public import EdgeSwipeProtocol
import EdgeSwipeSystem
import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
public import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import ServiceLifecycle

/// The page and the module, embedded in the binary (SwiftPM's `embedInCode`), so that the bridge is one file to
/// install and serves exactly the assets it was built with.
public enum WebAssets {
    public static var page: [UInt8] { PackageResources.index_html }
    public static var module: [UInt8] { PackageResources.edgeswipe_js }
    /// The page's own script (a file, not inline, so that the page's CSP can forbid inline scripts).
    public static var pageScript: [UInt8] { PackageResources.page_js }
    /// What each part of the page shows, and where the docs are (the page links to it).
    public static var about: [UInt8] { PackageResources.about_html }
}

/// Why the bridge cannot start.
public enum BridgeError: Error, CustomStringConvertible {
    /// The daemon closed the connection before its `hello`: its access policy does not admit this user.
    case refusedByDaemon(socket: String, uid: UInt32)
    /// No socket file at the path: said as every tool says it (``ClientError/noDaemon(path:leftBehind:)``).
    case noDaemon(socket: String)
    case daemonUnreachable(socket: String, reason: String)
    /// `--control` was asked, and the daemon grants this user read access only.
    case controlNotGranted(socket: String, uid: UInt32)

    public var description: String {
        switch self {
        case .refusedByDaemon(let socket, let uid):
            ClientError.notAdmitted(path: socket, uid: uid).description
        case .noDaemon(let socket):
            ClientError.noDaemon(path: socket, leftBehind: false).description
        case .daemonUnreachable(let socket, let reason):
            "cannot reach the daemon at \(socket): \(reason)"
        case .controlNotGranted(let socket, let uid):
            "\(socket): --control was asked, but the daemon lets uid \(uid) read only (access.control in its configuration)"
        }
    }

    /// The exit status: 77 (`EX_NOPERM`) when access is refused, 69 (`EX_UNAVAILABLE`) when the daemon is not there.
    public var exitCode: Int32 {
        switch self {
        case .refusedByDaemon, .controlNotGranted: 77
        case .noDaemon, .daemonUnreachable: 69
        }
    }
}

/// `edgeswipe-web`: one ordinary client of the daemon, fanned out to browser tabs over HTTP and WebSocket.
public struct Bridge: Sendable {
    public struct Options: Sendable {
        /// Where the daemon is: looked at again before each reconnection (``DaemonSocket``).
        public var socket: DaemonSocket
        public var host: String
        public var port: Int
        /// Whether the page may send push, pop, present, dismiss and select-tab.
        public var control: Bool
        public var limits: OutboxLimits
        /// The caps on connections and tabs, and the deadlines (see ``ConnectionLimits``).
        public var connections: ConnectionLimits
        public var token: String?

        public init(
            socket: DaemonSocket, host: String = "127.0.0.1", port: Int = 0, control: Bool = false, limits: OutboxLimits = TabOutbox.defaultLimits,
            connections: ConnectionLimits = .init(), token: String? = nil
        ) {
            self.socket = socket
            self.host = host
            self.port = port
            self.control = control
            self.limits = limits
            self.connections = connections
            self.token = token
        }
    }

    /// The ops a `--control` page may send; anything else is refused by the bridge before the daemon sees it.
    public static var controlOps: Set<String> { PageRequest.controlOps }

    public let options: Options
    let logger: Logger

    public init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs until cancelled: connects to the daemon (reconnecting when it restarts), serves the page, and calls
    /// `onListening` with the URL (token included) once the port is bound. Throws ``BridgeError`` before serving
    /// anything when the daemon refuses this user (or grants no control where `--control` was asked), or says no
    /// hello within 10 s.
    public func run(onListening: @escaping @Sendable (_ url: String, _ access: WebAccess) -> Void) async throws {
        let control = options.control
        let hub = Hub(limits: options.limits, maxTabs: options.connections.tabs) {
            var w = JSONWriter(capacity: 128)
            w.raw(#"{"type":"bridge","event":"welcome","control":"#)
            w.bool(control)
            w.raw(#","now_us":"#)
            w.integer(MonotonicClock.now().microseconds)
            w.raw("}")
            return w.bytes
        }
        let client = EdgeSwipeClient(
            socket: options.socket,
            configuration: ClientConfiguration(reconnect: ReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(2), maxAttempts: nil)))
        // The access check uses the bridge's one connection: a second, short-lived one would count as a client of
        // the daemon for a moment (and start a replay held for a number of clients too early).
        let first = FirstConnection()
        client.observe { observation in
            first.see(observation)
            switch observation {
            case .message(let message, let line):
                hub.publish(message, line: line)
            case .disconnected:
                var w = JSONWriter(capacity: 96)
                w.raw(#"{"type":"bridge","event":"daemon-disconnected","now_us":"#)
                w.integer(MonotonicClock.now().microseconds)
                w.raw("}")
                hub.daemonDisconnected(w.bytes)
            case .waiting(let socket):
                // Before the first hello, not having a daemon ends the bridge (FirstConnection), said once there.
                if first.hasConnected { self.logger.notice("waiting for a daemon at \(socket)") }
            }
        }
        do {
            try await first.outcome(socket: options.socket, control: control, timeout: .seconds(10))
        } catch {
            await client.close()
            throw error
        }
        // The page interpolates run-outs from their animation spec, so it needs no frames: the cheapest stream.
        try? await client.subscribe(Set(Topic.allCases), ticks: .none)

        let accessBox = AccessBox()
        let router = Router()
        router.middlewares.add(AccessMiddleware(access: accessBox))
        router.get("/") { request, _ -> Response in
            if request.uri.queryParameters["token"] != nil, let access = accessBox.value {
                // The first load: the cookie takes over from the URL, which is cleaned of the token at once.
                var headers = HTTPFields()
                headers[.location] = "/"
                headers[.setCookie] = access.setCookie
                headers[.cacheControl] = "no-store"
                return Response(status: .seeOther, headers: headers)
            }
            return Self.asset(WebAssets.page, type: "text/html; charset=utf-8")
        }
        router.get("/edgeswipe.js") { _, _ in Self.asset(WebAssets.module, type: "text/javascript; charset=utf-8") }
        router.get("/page.js") { _, _ in Self.asset(WebAssets.pageScript, type: "text/javascript; charset=utf-8") }
        router.get("/about") { _, _ in Self.asset(WebAssets.about, type: "text/html; charset=utf-8") }
        router.get("/stream") { _, _ -> Response in
            // Reached only when this is no upgrade at all: a refused upgrade is answered 400 by the WebSocket layer.
            Response(status: .forbidden, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "WebSocket refused\n")))
        }

        let logger = self.logger
        let limits = options.connections
        let table = ConnectionTable(limits: limits)
        let tabRefusals = NIOLockedValueBox(LogThrottle(interval: .seconds(10)))
        // Hummingbird's HTTP/WebSocket channel behind our ConnectionGuard (ConnectionGuard.swift): the caps on
        // connections, the header deadline, masked frames. Text frames must be UTF-8 (RFC 6455: else close 1007),
        // checked by the WebSocket layer before a request reaches the daemon.
        let http = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: TimeAmount(limits.idleTimeout)), ws: .init(validateUTF8: true))
        let server = HTTPServerBuilder { responder in
            GuardedChildChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: http) { request, channel, _ in
                guard request.path?.split(separator: "?").first == "/stream", let access = accessBox.value else { return .dontUpgrade }
                let host = request.authority
                let query = request.path.flatMap { p in p.firstIndex(of: "?").map { String(p[p.index(after: $0)...]) } }
                guard access.allowsHost(host),
                    access.accepts(access.presentedToken(authorization: request.headerFields[.authorization], cookie: request.headerFields[.cookie], query: query)),
                    access.allowsOrigin(request.headerFields[.origin], host: host)
                else {
                    logger.notice("WebSocket refused", metadata: ["origin": "\(request.headerFields[.origin] ?? "none")", "host": "\(host ?? "none")"])
                    return .dontUpgrade
                }
                // Past the cap on tabs: no upgrade (400, before any WebSocket is set up), said at most every 10 s.
                // The place is promised here, so that an upgrade answered before the previous tab was added cannot
                // pass the cap too; it is given back if the connection closes before its tab is served.
                guard let reservation = hub.reserve() else {
                    let (log, held) = tabRefusals.withLockedValue { $0.admit() }
                    if log {
                        logger.notice("refused a tab: \(hub.maxTabs) are open, as many as edgeswipe-web serves", metadata: ["refusals_not_logged": "\(held)"])
                    }
                    return .dontUpgrade
                }
                channel.closeFuture.whenComplete { _ in reservation.release() }
                return .upgrade([:]) { inbound, outbound, _ in
                    try await Self.serveTab(
                        hub: hub, reservation: reservation, client: client, control: control, inbound: inbound, outbound: outbound, logger: logger)
                }
            }, table: table, logger: logger)
        }
        let app = Application(
            router: router,
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let access = WebAccess(token: options.token ?? WebAccess.randomToken(), port: port, listenHost: options.host)
                accessBox.set(access)
                let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
                onListening("http://\(shownHost):\(port)/?token=\(access.token)", access)
            },
            logger: logger
        )
        do {
            // A graceful shutdown (SIGTERM, SIGINT) waits for open connections: the tabs' WebSockets are closed
            // first, so that it does not wait for the pages to leave.
            try await withGracefulShutdownHandler {
                try await app.runService()
            } onGracefulShutdown: {
                hub.closeAll()
            }
        } catch {
            hub.closeAll()
            await client.close()
            throw error
        }
        hub.closeAll()
        await client.close()
    }

    static func asset(_ bytes: [UInt8], type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        headers[.init("Referrer-Policy")!] = "no-referrer"
        headers[.contentSecurityPolicy] = "default-src 'self'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The size past which a backlog's lines start a new frame.
    static let frameBytes = 64 << 10

    /// One tab: its outbox drained into the WebSocket by a task of its own, and its requests read here.
    static func serveTab(
        hub: Hub, reservation: Hub.Reservation, client: EdgeSwipeClient, control: Bool, inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter, logger: Logger
    ) async throws {
        guard let outbox = hub.addTab(reservation) else {
            // The reservation ended before the tab was served (its connection closed): 1013, try again later.
            try await outbound.close(.unknown(1013), reason: "edgeswipe-web: \(hub.maxTabs) tabs are open")
            return
        }
        defer { hub.removeTab(outbox) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while let batch = await outbox.next() {
                    // A backlog goes out as few frames as possible: each text frame carries one or more whole lines,
                    // newline-separated, up to about 64 KiB (one line alone may be longer).
                    var frame = ByteBuffer()
                    for line in batch {
                        if frame.readableBytes > 0 && frame.readableBytes + line.readableBytes >= Self.frameBytes {
                            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: frame)))
                            frame = ByteBuffer()
                        }
                        if frame.readableBytes > 0 { frame.writeInteger(UInt8(ascii: "\n")) }
                        if batch.count == 1 { frame = line } else { frame.writeImmutableBuffer(line) }
                    }
                    if frame.readableBytes > 0 {
                        try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: frame)))
                    }
                }
                // Closed: dropped as too slow, or the bridge is stopping. The page reconnects and catches up. (Not
                // when the tab is being torn down because its reader failed: the WebSocket layer then closes with
                // the reader's code, 1007 for a frame that is not UTF-8, and a close sent from here first would
                // take its place.)
                if !Task.isCancelled {
                    try await outbound.close(.goingAway, reason: "edgeswipe-web: tab dropped or bridge stopping")
                }
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: 16 << 10) {
                    guard case .text(let text) = message else { continue }
                    let answer = await Self.handleRequest(Array(text.utf8), client: client, control: control)
                    _ = outbox.enqueue(ByteBuffer(bytes: answer), key: nil)
                }
            }
            // Whichever ends first (the page went away, or the outbox was closed), the other must end too: the
            // writer waits on the outbox, which only closing it wakes (cancelled first, so that it knows).
            do {
                try await group.next()
            } catch {
                group.cancelAll()
                outbox.close()
                throw error
            }
            group.cancelAll()
            outbox.close()
        }
    }

    /// A page's request, judged by ``PageRequest`` (the protocol's own decoder, the ops a page may send, the
    /// `--control` switch), then forwarded as a daemon request; the answer is a `bridge-reply` or a
    /// `bridge-error` line for that tab only.
    static func handleRequest(_ bytes: [UInt8], client: EdgeSwipeClient, control: Bool) async -> [UInt8] {
        let page: PageRequest
        switch PageRequest.read(bytes, control: control) {
        case .refuse(let answer): return answer
        case .forward(let request): page = request
        }
        do {
            return page.reply(transition: try await client.control(page.request))
        } catch {
            switch error {
            case .server(let code, let message, _): return page.refusal(code: code.rawValue, message: message)
            default: return page.refusal(code: "daemon", message: "\(error)")
            }
        }
    }
}

/// How the daemon answered the bridge's first connection: a `hello` (with the access it grants), or a close
/// before any hello, which is how the daemon refuses a peer its policy does not admit.
final class FirstConnection: Sendable {
    private enum Seen { case nothing, hello(AccessInfo), refused, absent }
    private struct State {
        var seen = Seen.nothing
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = NIOLockedValueBox(State())

    /// Whether the first connection said hello: the bridge serves, and follows the daemon from now on.
    var hasConnected: Bool {
        state.withLockedValue { s in if case .hello = s.seen { true } else { false } }
    }

    func see(_ observation: EdgeSwipeClient.Observation) {
        let waiter = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            guard case .nothing = s.seen else { return nil }
            switch observation {
            case .message(.hello(let hello), _): s.seen = .hello(hello.access)
            case .disconnected: s.seen = .refused
            // Nobody listens (a socket file left by a daemon that stopped): said as when there is no file.
            case .waiting: s.seen = .absent
            case .message: return nil
            }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    func outcome(socket daemon: DaemonSocket, control: Bool, timeout: Duration) async throws(BridgeError) {
        guard daemon.paths.contains(where: { access($0, F_OK) == 0 }) else {
            throw .noDaemon(socket: daemon.description)
        }
        let socket = daemon.current { access($0, F_OK) == 0 }
        let state = self.state
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let ready = state.withLockedValue { s -> Bool in
                        if case .nothing = s.seen { s.waiter = c; return false }
                        return true
                    }
                    if ready { c.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            // The sleeper ends on cancellation; the waiter is woken here if it is still waiting.
            state.withLockedValue { s -> CheckedContinuation<Void, Never>? in defer { s.waiter = nil }; return s.waiter }?.resume()
        }
        let uid = UInt32(getuid())
        switch state.withLockedValue({ $0.seen }) {
        case .hello(let access):
            if control && !access.control { throw .controlNotGranted(socket: socket, uid: uid) }
        case .refused:
            throw .refusedByDaemon(socket: socket, uid: uid)
        case .absent:
            throw .noDaemon(socket: socket)
        case .nothing:
            throw .daemonUnreachable(socket: socket, reason: "no hello within \(timeout) (nothing listening, or not an edgeswiped)")
        }
    }
}

/// The access rules, known once the port is bound (port 0 picks one).
final class AccessBox: Sendable {
    private let box = NIOLockedValueBox<WebAccess?>(nil)
    var value: WebAccess? { box.withLockedValue { $0 } }
    func set(_ access: WebAccess) { box.withLockedValue { $0 = access } }
}

/// Every HTTP request: the `Host` must be the bridge's and the token must be presented, or 403 and no data.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: AccessBox

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let rules = access.value,
            rules.allowsHost(request.head.authority),
            rules.accepts(rules.presentedToken(
                authorization: request.headers[.authorization], cookie: request.headers[.cookie],
                query: request.uri.query))
        else {
            return Response(status: .forbidden, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "403 forbidden: open the URL edgeswipe-web printed, with its token\n")))
        }
        return try await next(request, context)
    }
}
