import EdgeSwipeProtocol
import NIOCore

/// Frames the server's lines and hands each decoded message to the client, in order, on the event loop.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let client: EdgeSwipeClient
    private var framer: LineFramer

    init(client: EdgeSwipeClient, maxLineBytes: Int) {
        self.client = client
        self.framer = LineFramer(maxLineBytes: maxLineBytes)
    }

    func channelActive(context: ChannelHandlerContext) {
        client.connected(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        client.disconnected(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let channel = context.channel
        buffer.withUnsafeReadableBytes { bytes in
            framer.feed(bytes) { frame in
                switch frame {
                case .line(let line, _):
                    // A line this client cannot decode (a newer server's shape, or numbers out of range) is
                    // skipped, not fatal: the stream stays in sync because framing is by newline.
                    do throws(MessageDecodingError) {
                        let message = try ServerMessage(line: line)
                        client.receive(message, line: line, on: channel)
                    } catch {
                        client.unreadable(error.reason, line: line)
                    }
                case .oversized:
                    break
                }
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
