import EdgeSwipeProtocol
import EdgeSwipeSessionModel
import Logging
import NIOCore
import NIOPosix

/// The i3 IPC framing sway speaks: `i3-ipc`, the payload's length and the message type (both 32-bit, native byte
/// order), then the payload (JSON, or a command's text).
public enum I3IPCFrame {
    public static let magic: [UInt8] = Array("i3-ipc".utf8)
    public static let headerBytes = 14
    /// Replies and events longer than this are refused (a whole tree is tens of kilobytes).
    public static let maxPayloadBytes = 16 << 20

    public enum MessageType: UInt32, Sendable {
        case runCommand = 0, getWorkspaces = 1, subscribe = 2, getOutputs = 3, getTree = 4
    }
    /// Events have the high bit set.
    public static let eventBit: UInt32 = 0x8000_0000
    public static let workspaceEvent: UInt32 = eventBit | 0
    public static let windowEvent: UInt32 = eventBit | 3

    public static func encode(_ type: MessageType, _ payload: String) -> [UInt8] {
        let body = Array(payload.utf8)
        var out = magic
        withUnsafeBytes(of: UInt32(body.count).littleEndian) { out += $0 }
        withUnsafeBytes(of: type.rawValue.littleEndian) { out += $0 }
        return out + body
    }

    /// A frame read back: its type and payload.
    public struct Frame: Hashable, Sendable {
        public var type: UInt32
        public var payload: [UInt8]
    }

    public struct FramingError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Takes whole frames off the front of `buffer`, leaving a partial one; an error for bytes that are not i3 IPC.
    public static func decode(_ buffer: inout [UInt8]) throws(FramingError) -> [Frame] {
        var frames: [Frame] = []
        var start = 0
        while buffer.count - start >= headerBytes {
            guard Array(buffer[start..<start + 6]) == magic else {
                let shown = buffer[start..<min(buffer.count, start + 12)].map { $0 >= 0x20 && $0 < 0x7f ? String(UnicodeScalar($0)) : "." }.joined()
                throw FramingError(description: "not i3 IPC: a frame starts with '\(shown)', not 'i3-ipc'")
            }
            let length = Int(UInt32(littleEndian: read32(buffer, start + 6)))
            let type = UInt32(littleEndian: read32(buffer, start + 10))
            guard length <= maxPayloadBytes else {
                throw FramingError(description: "a frame of \(length) bytes, over the \(maxPayloadBytes) accepted")
            }
            guard buffer.count - start - headerBytes >= length else { break }
            frames.append(Frame(type: type, payload: Array(buffer[start + headerBytes..<start + headerBytes + length])))
            start += headerBytes + length
        }
        buffer.removeFirst(start)
        return frames
    }

    private static func read32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    /// Sway's answer to `RUN_COMMAND`: one `{"success": …, "error": …}` per command; the errors, or why the reply is
    /// not one.
    public static func commandErrors(_ payload: [UInt8]) -> [String] {
        guard let value = try? JSONValue.parse(payload), case .array(let results) = value else {
            return ["the reply is not a JSON array of results: \(String(decoding: payload.prefix(80), as: UTF8.self))"]
        }
        return results.compactMap { r in
            guard r["success"]?.boolValue == true else { return r["error"]?.stringValue ?? "failed (no reason given)" }
            return nil
        }
    }

    /// The app id (or X11 class) of the focused window in a `GET_TREE` reply or a `window` event's container.
    static func focusedApp(inTree node: JSONValue) -> String? {
        if node["focused"]?.boolValue == true, node["type"]?.stringValue == "con" || node["type"]?.stringValue == "floating_con" {
            return appID(of: node)
        }
        for key in ["nodes", "floating_nodes"] {
            if case .array(let children)? = node[key] {
                for child in children { if let app = focusedApp(inTree: child) { return app } }
            }
        }
        return nil
    }

    static func appID(of container: JSONValue) -> String? {
        container["app_id"]?.stringValue ?? container["window_properties"]?["class"]?.stringValue
    }
}

/// sway (or i3) through `$SWAYSOCK`: one held connection for `RUN_COMMAND`s, answered in order, reopened when the
/// compositor closes it, answers garbage or stalls; and one for `window` events (the focused app).
final class SwayIPC: CompositorIPC, @unchecked Sendable {
    let desktop: Desktop
    private let socketPath: String
    private let eventLoop: any EventLoop
    private let logger: Logger
    private var channel: (any Channel)?
    private var connecting: EventLoopFuture<any Channel>?
    /// Commands written and not yet answered, oldest first, with the timer that gives up on each.
    private var waiting: [(rule: Rule, command: String, timer: Scheduled<Void>)] = []
    private var received: [UInt8] = []
    private var events: EventStreamConnection?

    init(desktop: Desktop, socketPath: String, eventLoop: any EventLoop, logger: Logger) {
        self.desktop = desktop
        self.socketPath = socketPath
        self.eventLoop = eventLoop
        self.logger = logger
    }

    /// The command a workspace rule sends: the gesture's output first, when the daemon knows it.
    static func workspaceCommand(_ step: WorkspaceStep, output: String?) -> String {
        let move = "workspace \(step == .next ? "next_on_output" : "prev_on_output")"
        guard let output else { return move }
        return "focus output \(quoted(output)); \(move)"
    }

    /// A sway command argument in double quotes, its quotes and backslashes escaped.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s {
            if c == "\"" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out + "\""
    }

    func perform(_ effect: Effect, facts: TransitionFacts, rule: Rule) {
        let command: String
        switch effect {
        case .workspace(let step): command = Self.workspaceCommand(step, output: facts.output)
        case .sway(let c): command = c
        case .hyprland, .niri, .key, .command, .kwinShortcut, .gnomeOverview:
            logger.error("\(rule): \(effect) is not a \(desktop.rawValue) request")
            return
        }
        run(command, for: rule)
    }

    /// Writes `command` on the held connection (opened first if needed).
    func run(_ command: String, for rule: Rule) {
        let frame = I3IPCFrame.encode(.runCommand, command)
        if let channel {
            write(frame, command, rule, on: channel)
            return
        }
        let future: EventLoopFuture<any Channel>
        if let connecting { future = connecting } else {
            future = ClientBootstrap(group: eventLoop)
                .channelInitializer { [self] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(FrameReader(owner: self))
                    }
                }
                .connect(unixDomainSocketPath: socketPath)
            connecting = future
            future.whenComplete { [self] result in
                connecting = nil
                if case .success(let c) = result {
                    channel = c
                    c.closeFuture.whenComplete { [self] _ in closed(c, reason: "\(desktop.rawValue) closed the IPC connection") }
                }
            }
        }
        future.whenComplete { [self] result in
            switch result {
            case .success(let c): write(frame, command, rule, on: c)
            case .failure(let error): logger.error("\(rule): cannot reach \(desktop.rawValue) at \(socketPath): \(error)")
            }
        }
    }

    private func write(_ frame: [UInt8], _ command: String, _ rule: Rule, on channel: any Channel) {
        let timer = eventLoop.scheduleTask(in: CompositorRequests.replyTimeout) { [self] in
            logger.error("\(rule): \(desktop.rawValue) did not answer '\(command)' within \(CompositorRequests.replyTimeout.nanoseconds / 1_000_000) ms; reconnecting")
            waiting.removeFirst()
            channel.close(promise: nil)
        }
        waiting.append((rule, command, timer))
        var buffer = channel.allocator.buffer(capacity: frame.count)
        buffer.writeBytes(frame)
        channel.writeAndFlush(buffer, promise: nil)
        logger.debug("\(rule): \(desktop.rawValue) <- \(command)")
    }

    fileprivate func read(_ bytes: [UInt8], on channel: any Channel) {
        received += bytes
        let frames: [I3IPCFrame.Frame]
        do { frames = try I3IPCFrame.decode(&received) } catch {
            let rule = waiting.first.map { "\($0.rule)" } ?? desktop.rawValue
            logger.error("\(rule): \(desktop.rawValue) answered garbage (\(error)); reconnecting")
            channel.close(promise: nil)
            return
        }
        for frame in frames where frame.type & I3IPCFrame.eventBit == 0 {
            guard !waiting.isEmpty else { continue }
            let (rule, command, timer) = waiting.removeFirst()
            timer.cancel()
            let errors = I3IPCFrame.commandErrors(frame.payload)
            if errors.isEmpty { logger.debug("\(rule): \(desktop.rawValue) ran '\(command)'") } else {
                logger.error("\(rule): \(desktop.rawValue) refused '\(command)': \(errors.joined(separator: "; "))")
            }
        }
    }

    private func closed(_ c: any Channel, reason: String) {
        guard channel === c else { return }
        channel = nil
        received.removeAll()
        for (rule, command, timer) in waiting {
            timer.cancel()
            logger.error("\(rule): '\(command)' got no answer: \(reason)")
        }
        waiting.removeAll()
    }

    func followFocus(_ focused: @escaping @Sendable (String?) -> Void) {
        var buffer: [UInt8] = []
        // The tree first (the window focused now), then every focus change.
        let greeting = I3IPCFrame.encode(.getTree, "") + I3IPCFrame.encode(.subscribe, "[\"window\"]")
        let stream = EventStreamConnection(
            path: socketPath, name: "\(desktop.rawValue) window events", greeting: greeting, eventLoop: eventLoop, logger: logger
        ) { [logger, desktop] chunk in
            guard let chunk else {
                buffer.removeAll()
                return
            }
            buffer += chunk
            guard let frames = try? I3IPCFrame.decode(&buffer) else {
                logger.warning("\(desktop.rawValue) window events: not i3 IPC; ignoring what was read")
                buffer.removeAll()
                return
            }
            for frame in frames {
                guard let value = try? JSONValue.parse(frame.payload, maxDepth: 512) else { continue }
                if frame.type == I3IPCFrame.MessageType.getTree.rawValue {
                    focused(I3IPCFrame.focusedApp(inTree: value))
                } else if frame.type == I3IPCFrame.windowEvent, value["change"]?.stringValue == "focus", let container = value["container"] {
                    focused(I3IPCFrame.appID(of: container))
                }
            }
        }
        events = stream
        stream.start()
    }

    func stop() {
        events?.stop()
        eventLoop.execute { self.channel?.close(promise: nil) }
    }

    private final class FrameReader: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let owner: SwayIPC
        init(owner: SwayIPC) { self.owner = owner }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            owner.read(buffer.readBytes(length: buffer.readableBytes) ?? [], on: context.channel)
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}
