import NIOCore

/// Keeps a line the server sends on its own (``ClosingLine``, at shutdown) out of the middle of
/// a line written in pieces (``LineWriter``): such a line waits for the end of the line under way.
///
/// It sits in each connection's pipeline and sees every buffer written: the last byte of the last
/// buffer tells whether the connection is between lines (JSON lines hold no other newline).
final class LineBoundaryHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A line to send between two lines, `\n` included; the event's promise succeeds once it is written.
    struct ClosingLine: Sendable {
        var bytes: [UInt8]
    }

    private var betweenLines = true
    private var waiting: (line: ByteBuffer, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        if let last = buffer.readableBytesView.last { betweenLines = last == 0x0A }
        context.write(data, promise: promise)
        if betweenLines, let waiting {
            self.waiting = nil
            context.writeAndFlush(wrapOutboundOut(waiting.line), promise: waiting.promise)
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let closing = event as? ClosingLine else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        let line = context.channel.allocator.buffer(bytes: closing.bytes)
        if betweenLines {
            context.writeAndFlush(wrapOutboundOut(line), promise: promise)
        } else {
            // A second closing line replaces the first: both say the server is stopping.
            waiting?.promise?.fail(ChannelError.ioOnClosedChannel)
            waiting = (line, promise)
        }
    }
}
