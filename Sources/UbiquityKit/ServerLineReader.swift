import NIOCore

/// The connection's inbound handler: reads in, lines and arriving items out (``ServerLineSplitter``). A line cut
/// short by the daemon closing, or one longer than the limit, fails the connection with an error
/// that says so.
final class ServerLineReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ServerInput

    private var splitter: ServerLineSplitter
    /// Set once a line could not be read: nothing after it is.
    private var failed = false
    private var lines: [ServerInput] = []

    init(maxLineBytes: Int) {
        splitter = ServerLineSplitter(maxLineBytes: maxLineBytes)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        var failure: UbiquityKitError?
        do {
            try splitter.split(unwrapInboundIn(data), into: &lines)
        } catch {
            failure = error
        }
        // Lines completed before a failure are read all the same: a response in the same read
        // as the start of a line too long still answers its request.
        for line in lines { context.fireChannelRead(wrapInboundOut(line)) }
        lines.removeAll(keepingCapacity: true)
        if let failure {
            failed = true
            context.fireErrorCaught(failure)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        endOfInput(context: context)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { endOfInput(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    /// The daemon closed: a line it had started is lost, and the reader is told why.
    private func endOfInput(context: ChannelHandlerContext) {
        guard !failed, splitter.pendingBytes > 0 else { return }
        failed = true
        context.fireErrorCaught(UbiquityKitError.disconnected(
            reason: "ubiquityd closed the connection in the middle of a line (\(splitter.pendingBytes) bytes without their end)"))
    }
}
