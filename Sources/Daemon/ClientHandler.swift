import Codes
import NIOCore
import ScannerProtocol

/// One client connection: line framing with a length limit, handing each line to `Delivery`, and
/// the stalled-client rule. Lives on the connection's event loop, which is the delivery's.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let delivery: Delivery
    /// nil until connected, and for a refused connection.
    private var id: Int?
    private var pending: [UInt8] = []
    private var discarding = false

    init(delivery: Delivery) { self.delivery = delivery }

    func channelActive(context: ChannelHandlerContext) {
        // The id is known before anything is written: a write that fails at once closes the
        // channel, and channelInactive must then find the client to remove.
        id = delivery.connect(context.channel)
        if let id { delivery.greet(id) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let id { delivery.disconnect(id, reason: "closed") }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let id else { return }
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        var start = 0
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if discarding {
                discarding = false
                delivery.handle(nil, from: id)
            } else {
                let line = pending + bytes[start..<newline]
                delivery.handle(line.count <= Command.maxLineBytes ? String(decoding: line, as: UTF8.self)[...] : nil, from: id)
            }
            pending.removeAll(keepingCapacity: true)
            start = newline + 1
        }
        if !discarding {
            pending += bytes[start...]
            if pending.count > Command.maxLineBytes {
                // Oversized: forget it now and answer once its newline arrives.
                discarding = true
                pending.removeAll()
            }
        }
    }

    /// The peer closed its end (the channel allows half-closure for this moment): our end is still
    /// open, so its unread count still says whether it read its last lines before it went.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            if let id { delivery.peerClosed(id) }
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if let id { delivery.writabilityChanged(id) }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let id { delivery.disconnect(id, reason: "\(error)") }
        context.close(promise: nil)
    }
}
