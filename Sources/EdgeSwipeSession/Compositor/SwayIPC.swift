import EdgeSwipeProtocol
import EdgeSwipeSessionModel
import Logging
import NIOCore
import NIOPosix

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
                if case .some(let app) = I3IPCFrame.focus(in: frame) { focused(app) }
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
