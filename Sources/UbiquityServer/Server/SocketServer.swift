import CSystemd
import Glibc
import Logging
public import NIOCore
import NIOExtras
public import NIOPosix
import ServiceLifecycle
import Synchronization
import UbiquityIndex
import UbiquityJSON
import UbiquityProtocol

/// The daemon's Unix-socket server: JSON lines in, one response per request and query events
/// out (docs/protocol.md).
///
/// One child task per connection in a discarding task group (NIO's echo-server shape); inside a
/// connection, requests are handled in order by one task and every event it receives (its
/// queries', `document.lockChanged`, `kv.changed`) is written by another (``ConnectionOutbox``),
/// so a query that produces nothing never blocks a request. A subscriber that does not read
/// stalls only its own writes: the engine and the outbox then keep a bounded, coalesced summary
/// for it (guarantee 7 in docs/live-queries.md).
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
    /// Lifecycle, connections and counters: one value, one lock (see ``SocketServerState``).
    private let state = Mutex(SocketServerState())
    /// Counts loop turns: the watchdog only pings while the event loop answers.
    public var eventLoop: any EventLoop { group.next() }

    public init(endpoint: Endpoint, context: ServerContext, group: MultiThreadedEventLoopGroup = .singleton) {
        self.endpoint = endpoint
        self.context = context
        self.group = group
    }

    public var connectionCount: Int { state.withLock { $0.connectionCount } }
    public var liveQueryCount: Int { state.withLock { $0.liveQueryCount } }

    /// Returns once the socket accepts connections (or the server stopped or failed to start).
    public func waitUntilBound() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if state.withLock({ $0.waitForBind(continuation) }) == .resumeNow { continuation.resume() }
        }
    }

    /// Each connection's socket send buffer, asked for (the kernel caps it at
    /// `net.core.wmem_max`): a 15 MB answer then leaves in a few writes instead of ~70 that each
    /// wait for the client to drain 208 KiB, which on a busy machine cost more than encoding it
    /// (1M entries: 750-800 ms -> 430-480 ms to the client). The bytes are the answer's, held
    /// by the daemon until written either way.
    static let sendBufferBytes = 4 << 20

    /// How many bytes written but not yet taken by a connection's socket stop a writer
    /// (``LineWriter``), and how few let it go on. NIO's default (64 / 32 KiB) stopped it after
    /// every piece of a long answer; a few hundred KiB in hand keep the socket busy while the
    /// next pieces are encoded. Per connection, so 256 connections hold at most 256 MiB.
    static let pendingWrites = ChannelOptions.Types.WriteBufferWaterMark(low: 256 << 10, high: 1 << 20)

    // MARK: - Running

    /// Accepts connections until graceful shutdown (SIGTERM) or cancellation; then tells every
    /// subscriber (`server.shuttingDown`), closes the connections and removes the socket file.
    public func run() async throws {
        defer { for waiter in state.withLock({ $0.stopped() }) { waiter.resume() } }
        let maxLine = context.limits.maxLineBytes
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.socketOption(.so_sndbuf), value: SocketServer.sendBufferBytes)
            .childChannelOption(.writeBufferWaterMark, value: SocketServer.pendingWrites)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>> = { channel in
            channel.eventLoop.makeCompletedFuture { try SocketServer.configure(channel, maxLineBytes: maxLine) }
        }
        let listener: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        switch endpoint {
        case .path(let path):
            try SocketPath.prepare(path)
            // Bound beside its path, given its mode, then renamed into place: nobody can connect
            // before the mode is final (and a client's own chmod is never undone).
            let mode: mode_t = geteuid() == 0 ? 0o666 : 0o600
            let staging = path + "~"
            if staging.utf8.count < 108 {
                unlink(staging)
                listener = try await bootstrap.bind(unixDomainSocketPath: staging, childChannelInitializer: initializer)
                chmod(staging, mode)
                guard rename(staging, path) == 0 else {
                    let reason = String(cString: strerror(errno))
                    try? await listener.channel.close()
                    unlink(staging)
                    throw SocketPath.Problem(description: "cannot move the socket into place at '\(path)': \(reason)")
                }
            } else {
                listener = try await bootstrap.bind(unixDomainSocketPath: path, childChannelInitializer: initializer)
                chmod(path, mode)
            }
        case .activated(let fd, _):
            listener = try await bootstrap.bind(fd, childChannelInitializer: initializer)
        }
        let bound = state.withLock { $0.bound(listener: listener.channel) }
        if bound.closeListener { try? await listener.channel.close() }
        for waiter in bound.resume { waiter.resume() }
        context.logger.info("listening", metadata: ["socket": "\(endpoint.path)"])

        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { connectionsGroup in
                do {
                    try await listener.executeThenClose { inbound in
                        for try await connection in inbound {
                            connectionsGroup.addTask { await self.serve(connection, peer: await PeerCredentials.of(connection.channel)) }
                        }
                    }
                } catch {
                    if !state.withLock({ $0.isShuttingDown }) {
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
        guard let shutdown = state.withLock({ $0.shutdown() }) else { return }
        for waiter in shutdown.resume { waiter.resume() }
        shutdown.listener?.close(promise: nil)
        let line = JSONLine.encodeLine(ServerEvent.shuttingDown(reason: reason).json)
        for channel in shutdown.connections {
            // Written straight to the channel (between two lines: ``LineBoundaryHandler``), closed
            // after a second at most: a subscriber that does not read must not hold us up.
            channel.triggerUserOutboundEvent(LineBoundaryHandler.ClosingLine(bytes: line)).whenComplete { _ in channel.close(promise: nil) }
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
    }

    // MARK: - One connection

    /// A connection's pipeline: lines in (at most `maxLineBytes` buffered while one is
    /// incomplete), buffers out, the server's own lines kept between them. Runs on the channel's
    /// event loop.
    static func configure(_ channel: any Channel, maxLineBytes: Int) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: maxLineBytes))
        try channel.pipeline.syncOperations.addHandler(LineBoundaryHandler())
        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
    }

    /// Enters the serving state on `listener` without binding a socket: lets tests drive
    /// connections through ``serve(_:peer:)`` on testing channels.
    func serve(onListener listener: any Channel) {
        let bound = state.withLock { $0.bound(listener: listener) }
        for waiter in bound.resume { waiter.resume() }
    }

    /// Serves one connection whose peer is `peer` (nil: its credentials could not be read).
    func serve(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, peer: PeerCredentials?) async {
        let admission = state.withLock { $0.admit(channel.channel, limit: context.limits.maxConnections) }
        let connectionID: UInt64
        let refusal: ProtocolError?
        switch admission {
        case .admitted(let id):
            connectionID = id
            refusal = peer == nil
                ? ProtocolError(.internal, "the server could not read the peer's credentials (SO_PEERCRED)") : nil
        case .busy(let id):
            connectionID = id
            refusal = ProtocolError(.serverBusy, "the server has \(context.limits.maxConnections) connections, its limit; try again later",
                                    details: ["limit": .integer(Int64(context.limits.maxConnections))])
        case .shuttingDown(let id):
            connectionID = id
            refusal = ProtocolError(.serverShuttingDown, "ubiquityd is stopping")
        }
        var logger = context.logger
        logger[metadataKey: "peer_uid"] = "\(peer?.uid ?? UInt32.max)"
        logger[metadataKey: "connection"] = "\(connectionID)"
        do {
            try await channel.executeThenClose { inbound, outbound in
                let engine = context.engine
                let writer = LineWriter(outbound: outbound) { engine.answering($0) }
                // Without a refusal the peer is known (a missing peer is refused above).
                guard refusal == nil, let peer else {
                    if let refusal { _ = try? await writer.write(Response(id: nil, error: refusal).json) }
                    return
                }
                logger.debug("connected", metadata: ["pid": "\(peer.pid)"])
                let outbox = ConnectionOutbox(engine: context.engine) { delta in
                    self.state.withLock { $0.liveQueriesChanged(by: delta) }
                }
                let session = Session(peer: peer, context: context, outbox: outbox)
                await withDiscardingTaskGroup { writing in
                    writing.addTask { await outbox.run(writer: writer) }
                    await self.readRequests(inbound, session: session, writer: writer, logger: logger)
                    // The client may half-close after its last request and still read events
                    // (`socat -t`): keep forwarding until the channel closes.
                    if !(session.queries.isEmpty && session.documentWatches.isEmpty && session.keyValueSubscriptions.isEmpty) && !self.state.withLock({ $0.isShuttingDown }) {
                        try? await channel.channel.closeFuture.get()
                    }
                    // Closed because the daemon stops: its live queries' answers are remembered
                    // for the next start (``QueryEngine/rememberAtShutdown(_:)``).
                    if self.state.withLock({ $0.isShuttingDown }) { await context.engine.rememberAtShutdown(Array(session.queries.keys)) }
                    await session.releaseAll()
                    await outbox.finish()
                }
            }
        } catch {
            logger.debug("connection ended with an error", metadata: ["error": "\(error)"])
        }
        state.withLock { $0.remove(connection: connectionID) }
        logger.debug("disconnected")
    }

    private func readRequests(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, session: Session, writer: LineWriter, logger: Logger
    ) async {
        do {
            for try await line in inbound {
                // The decoder's buffer limit only fires while a line is incomplete; a longer line
                // that arrived whole in one read must be refused too.
                guard line.readableBytes <= context.limits.maxLineBytes else { throw ByteToMessageDecoderError.PayloadTooLargeError() }
                guard try await answer(line.readableBytesView, session: session, writer: writer) else { return }
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
            _ = try? await answer(error.leftOverBytes.readableBytesView, session: session, writer: writer)
        } catch {
            logger.debug("read ended", metadata: ["error": "\(error)"])
        }
    }

    /// Handles one request line; false when the connection can no longer be written.
    private func answer(_ line: ByteBufferView, session: Session, writer: LineWriter) async throws -> Bool {
        let outcome = await session.handle(line: line)
        do { try await writer.write(lines: [outcome.line]) } catch { return false }
        if let started = outcome.startedQuery {
            let access = QueryAccess(registry: context.registry, peer: session.peer, containers: started.containers)
            await session.outbox.add(started.id, route: ConnectionOutbox.Route(live: started.live, access: access, encoder: started.encoder))
        }
        await outcome.afterResponse?()
        return true
    }
}
