import CSystemd
import Glibc
import Logging
public import NIOCore
import NIOExtras
public import NIOPosix
import ServiceLifecycle
import Synchronization
import UbiquityIndex
import UbiquityPredicate
import UbiquityProtocol

/// The daemon's Unix-socket server: JSON lines in, one response per request and query events
/// out (docs/protocol.md).
///
/// One child task per connection in a discarding task group (NIO's echo-server shape); inside a
/// connection, requests are handled in order by one task and each live query's events are
/// forwarded by a task of their own, so a query that produces nothing never blocks a request.
/// A subscriber that does not read stalls only its own writes: the engine then keeps a bounded,
/// coalesced summary for it (guarantee 7 in docs/live-queries.md).
public final class SocketServer: Sendable {
    /// Where clients connect.
    public enum Endpoint: Sendable, Hashable {
        /// Bind this path (its directory is created and must be ours).
        case path(String)
        /// A listening socket passed by systemd (`LISTEN_FDS`); `path` is what status reports.
        case activated(fd: Int32, path: String)

        public var path: String {
            switch self {
            case .path(let p), .activated(_, let p): p
            }
        }
    }

    public let endpoint: Endpoint
    private let context: ServerContext
    private let group: MultiThreadedEventLoopGroup
    private let connections = Mutex<[UInt64: any Channel]>([:])
    private let nextConnectionID = Atomic<UInt64>(1)
    private let liveQueries = Atomic<Int>(0)
    private let serverChannel = Mutex<(any Channel)?>(nil)
    private let shuttingDown = Atomic<Bool>(false)
    private let bound = Mutex<[CheckedContinuation<Void, Never>]?>([])
    /// Counts loop turns: the watchdog only pings while the event loop answers.
    public var eventLoop: any EventLoop { group.next() }

    public init(endpoint: Endpoint, context: ServerContext, group: MultiThreadedEventLoopGroup = .singleton) {
        self.endpoint = endpoint
        self.context = context
        self.group = group
    }

    public var connectionCount: Int { connections.withLock { $0.count } }
    public var liveQueryCount: Int { liveQueries.load(ordering: .relaxed) }

    /// Returns once the socket accepts connections (or the server failed to start).
    public func waitUntilBound() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = bound.withLock { waiters -> Bool in
                guard waiters != nil else { return true }
                waiters!.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func markBound() {
        let waiters = bound.withLock { w -> [CheckedContinuation<Void, Never>] in
            defer { w = nil }
            return w ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - Running

    /// Accepts connections until graceful shutdown (SIGTERM) or cancellation; then tells every
    /// subscriber (`server.shuttingDown`), closes the connections and removes the socket file.
    public func run() async throws {
        defer { markBound() }
        let maxLine = context.limits.maxLineBytes
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>> = { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: maxLine))
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
        let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        switch endpoint {
        case .path(let path):
            try SocketPath.prepare(path)
            listener = try await bootstrap.bind(unixDomainSocketPath: path, childChannelInitializer: initializer)
            chmod(path, geteuid() == 0 ? 0o666 : 0o600)
        case .activated(let fd, _):
            listener = try await bootstrap.bind(fd, childChannelInitializer: initializer)
        }
        serverChannel.withLock { $0 = listener.channel }
        markBound()
        context.logger.info("listening", metadata: ["socket": "\(endpoint.path)"])

        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { connectionsGroup in
                do {
                    try await listener.executeThenClose { inbound in
                        for try await connection in inbound {
                            connectionsGroup.addTask { await self.serve(connection) }
                        }
                    }
                } catch {
                    if !shuttingDown.load(ordering: .relaxed) {
                        context.logger.error("accept loop ended", metadata: ["error": "\(error)"])
                    }
                }
            }
        } onGracefulShutdown: {
            self.shutdown(reason: "ubiquityd is stopping")
        }
        if case .path(let path) = endpoint { unlink(path) }
        context.logger.info("socket closed", metadata: ["socket": "\(endpoint.path)"])
    }

    /// Stops accepting, tells every connection why, and closes them.
    public func shutdown(reason: String) {
        guard !shuttingDown.exchange(true, ordering: .relaxed) else { return }
        serverChannel.withLock { $0?.close(promise: nil) }
        let line = JSONLine.encodeLine(ServerEvent.shuttingDown(reason: reason).json)
        for channel in connections.withLock({ Array($0.values) }) {
            // Written straight to the channel: a subscriber that does not read must not hold us up.
            channel.writeAndFlush(ByteBuffer(bytes: line)).whenComplete { _ in channel.close(promise: nil) }
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
    }

    // MARK: - One connection

    private func serve(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let connectionID = nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue
        let peer = PeerCredentials.of(channel.channel)
        var logger = context.logger
        logger[metadataKey: "peer_uid"] = "\(peer?.uid ?? UInt32.max)"
        logger[metadataKey: "connection"] = "\(connectionID)"

        let admitted = connections.withLock { list -> Bool in
            guard list.count < context.limits.maxConnections, !shuttingDown.load(ordering: .relaxed) else { return false }
            list[connectionID] = channel.channel
            return true
        }
        do {
            try await channel.executeThenClose { inbound, outbound in
                let writer = LineWriter(outbound: outbound)
                guard admitted, let peer else {
                    let error = peer == nil
                        ? ProtocolError(.internal, "the server could not read the peer's credentials (SO_PEERCRED)")
                        : shuttingDown.load(ordering: .relaxed)
                            ? ProtocolError(.serverShuttingDown, "ubiquityd is stopping")
                            : ProtocolError(.serverBusy, "the server has \(context.limits.maxConnections) connections, its limit; try again later",
                                            details: ["limit": .integer(Int64(context.limits.maxConnections))])
                    _ = try? await writer.write(Response(id: nil, error: error).json)
                    return
                }
                logger.debug("connected", metadata: ["pid": "\(peer.pid)"])
                let session = Session(peer: peer, context: context)
                await withDiscardingTaskGroup { forwarders in
                    await self.readRequests(inbound, session: session, writer: writer, forwarders: &forwarders, logger: logger)
                    // The client may half-close after its last request and still read events
                    // (`socat -t`): keep forwarding until the channel closes.
                    if !session.queries.isEmpty && !shuttingDown.load(ordering: .relaxed) {
                        try? await channel.channel.closeFuture.get()
                    }
                    await session.releaseAll()
                }
            }
        } catch {
            logger.debug("connection ended with an error", metadata: ["error": "\(error)"])
        }
        _ = connections.withLock { $0.removeValue(forKey: connectionID) }
        logger.debug("disconnected")
    }

    private func readRequests(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, session: Session, writer: LineWriter,
        forwarders: inout DiscardingTaskGroup, logger: Logger
    ) async {
        do {
            for try await line in inbound {
                // The decoder's buffer limit only fires while a line is incomplete; a longer line
                // that arrived whole in one read must be refused too.
                guard line.readableBytes <= context.limits.maxLineBytes else { throw ByteToMessageDecoderError.PayloadTooLargeError() }
                guard try await answer(line.readableBytesView, session: session, writer: writer, forwarders: &forwarders) else { return }
            }
        } catch is ByteToMessageDecoderError.PayloadTooLargeError {
            let limit = context.limits.maxLineBytes
            logger.notice("request too large; closing the connection", metadata: ["limit": "\(limit)"])
            _ = try? await writer.write(Response(id: nil, error: ProtocolError(.requestTooLarge,
                "a request line is longer than \(limit) bytes; the connection is closed",
                details: ["limit": .integer(Int64(limit))])).json)
            writer.outbound.finish()
        } catch let error as NIOExtrasErrors.LeftOverBytesError {
            // The last line had no newline before the client half-closed: answer it anyway.
            _ = try? await answer(error.leftOverBytes.readableBytesView, session: session, writer: writer, forwarders: &forwarders)
        } catch {
            logger.debug("read ended", metadata: ["error": "\(error)"])
        }
    }

    /// Handles one request line; false when the connection can no longer be written.
    private func answer(_ line: ByteBufferView, session: Session, writer: LineWriter,
                        forwarders: inout DiscardingTaskGroup) async throws -> Bool {
        let outcome = await session.handle(line: line)
        do { try await writer.write(outcome.response.json) } catch { return false }
        if let (id, live) = outcome.startedQuery {
            let engine = context.engine
            forwarders.addTask {
                if live { self.liveQueries.add(1, ordering: .relaxed) }
                defer { if live { self.liveQueries.subtract(1, ordering: .relaxed) } }
                await SocketServer.forward(engine.events(id), query: Int(id), live: live, to: writer)
            }
        }
        return true
    }

    /// A line at least this long (about 8,000 results) is followed by `malloc_trim` (a few ms).
    static let trimMemoryAfterLineBytes = 1 << 20

    /// Writes a query's events until it stops or the connection cannot be written.
    private static func forward(_ events: QueryEvents, query: Int, live: Bool, to writer: LineWriter) async {
        do {
            var iterator = events.makeAsyncIterator()
            while true {
                let written: Int
                do {
                    guard let event = await iterator.next() else { break }
                    written = try await writer.write(WireTranslation.event(event, query: query).json)
                }
                // The event's results, their JSON tree and line are freed by now. A big answer
                // (100k results) leaves hundreds of MiB free in glibc's arenas; give them back.
                if written >= trimMemoryAfterLineBytes { malloc_trim(0) }
            }
            if !live {
                try await writer.write(ServerEvent.stopped(query: query, reason: "gathering finished and the query is not live").json)
            }
        } catch {
            // The peer is gone; the session releases its queries.
        }
    }
}

/// Writes whole lines; many tasks may write, each line stays whole.
struct LineWriter: Sendable {
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// - Returns: The bytes written, newline included.
    @discardableResult
    func write(_ json: JSONValue) async throws -> Int {
        let line = JSONLine.encodeLine(json)
        try await outbound.write(ByteBuffer(bytes: line))
        return line.count
    }
}

extension PeerCredentials {
    /// `SO_PEERCRED` of an accepted Unix-socket channel.
    static func of(_ channel: any Channel) -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let future: EventLoopFuture<KernelPeerCredentials> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        guard let credentials = try? future.wait() else { return nil }
        // More groups than the buffer holds (ERANGE): only the primary gid counts, which can
        // narrow access but never widen it.
        let groups: EventLoopFuture<KernelPeerGroups> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: KernelPeerGroups.option))
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid,
                               groups: (try? groups.wait())?.groups ?? [])
    }
}

/// `struct ucred` (pid_t, uid_t, gid_t) — Glibc hides it behind _GNU_SOURCE; same layout.
struct KernelPeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
