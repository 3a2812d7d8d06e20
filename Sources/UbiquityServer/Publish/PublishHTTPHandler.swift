import NIOCore
import NIOHTTP1
import NIOPosix
import UbiquityProtocol

/// One HTTP/1 connection of the publish listener: `GET` or `HEAD /p/<token>` answers the snapshot
/// (200), an unknown or revoked token 404, an expired one 410 (and its file is removed); any other
/// path 404, any other method 405. No listing, no other resource.
///
/// Bounded: NIO's decoder refuses a header block over 80 KiB (400); more than ``maxHeaders``
/// header fields answer 431 and a body over ``maxBodyBytes`` 413, both closing the connection. A
/// file is opened on NIO's thread pool and sent with `sendfile` (a `FileRegion`), so the event
/// loop never waits for the disk, and the query engine never sees this listener at all.
final class PublishHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let maxHeaders = 64
    static let maxBodyBytes = 8 << 10

    private let store: PublishStore
    private var head: HTTPRequestHead?
    private var bodyBytes = 0
    /// The version the current request spoke, answered in kind (HTTP/1.0 or 1.1).
    private var version: HTTPVersion = .http1_1
    /// Set once a response closed the connection: nothing more is read.
    private var closing = false

    init(store: PublishStore) { self.store = store }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
            bodyBytes = 0
            version = request.version
            if request.headers.count > Self.maxHeaders {
                refuse(context, .requestHeaderFieldsTooLarge, "more than \(Self.maxHeaders) header fields\n", keepAlive: false)
            }
        case .body(let bytes):
            bodyBytes += bytes.readableBytes
            if bodyBytes > Self.maxBodyBytes {
                refuse(context, .payloadTooLarge, "a request body of more than \(Self.maxBodyBytes) bytes\n", keepAlive: false)
            }
        case .end:
            guard let request = head else { return }
            head = nil
            answer(context, request)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) } else { context.fireUserInboundEventTriggered(event) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    private func answer(_ context: ChannelHandlerContext, _ request: HTTPRequestHead) {
        let keepAlive = request.isKeepAlive
        guard request.method == .GET || request.method == .HEAD else {
            var headers = HTTPHeaders()
            headers.add(name: "Allow", value: "GET, HEAD")
            return refuse(context, .methodNotAllowed, "only GET and HEAD are served\n", keepAlive: keepAlive, headers: headers, head: false)
        }
        let isHead = request.method == .HEAD
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path.hasPrefix("/p/"), PublishTokenFormat.isWellFormed(path.dropFirst(3)) else {
            return refuse(context, .notFound, "not found\n", keepAlive: keepAlive, head: isHead)
        }
        switch store.lookup(String(path.dropFirst(3))) {
        case .unknown:
            refuse(context, .notFound, "not found\n", keepAlive: keepAlive, head: isHead)
        case .expired(let snapshot):
            let store = self.store
            NIOThreadPool.singleton.submit { _ in try? store.discard([snapshot]) }
            refuse(context, .gone, "this link has expired\n", keepAlive: keepAlive, head: isHead)
        case .serve(let snapshot):
            serve(context, snapshot, keepAlive: keepAlive, head: isHead)
        }
    }

    private func serve(_ context: ChannelHandlerContext, _ snapshot: PublishedSnapshot, keepAlive: Bool, head isHead: Bool) {
        let opening = NonBlockingFileIO(threadPool: .singleton).openFile(_deprecatedPath: store.filePath(of: snapshot), eventLoop: context.eventLoop)
        opening.assumeIsolated().whenComplete { result in
            guard case .success(let (handle, region)) = result else {
                // Revoked or expired meanwhile: its file is gone.
                return self.refuse(context, .notFound, "not found\n", keepAlive: keepAlive, head: isHead)
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/octet-stream")
            headers.add(name: "Content-Length", value: String(region.readableBytes))
            headers.add(name: "Content-Disposition", value: ContentDisposition.attachment(named: snapshot.name))
            headers.add(name: "Cache-Control", value: "no-store")
            headers.add(name: "X-Content-Type-Options", value: "nosniff")
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            context.write(self.wrapOutboundOut(.head(HTTPResponseHead(version: self.version, status: .ok, headers: headers))), promise: nil)
            if !isHead { context.write(self.wrapOutboundOut(.body(.fileRegion(region))), promise: nil) }
            let done = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
            done.assumeIsolated().whenComplete { _ in
                try? handle.close()
                if !keepAlive { context.close(promise: nil) }
            }
        }
    }

    private func refuse(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ text: String, keepAlive: Bool,
                        headers extra: HTTPHeaders = HTTPHeaders(), head isHead: Bool = false) {
        var headers = extra
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        headers.add(name: "Cache-Control", value: "no-store")
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
            closing = true
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        if !isHead { context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))), promise: nil) }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive { done.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
    }
}
