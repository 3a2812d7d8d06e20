import FoundationEssentials
import NIOCore
import NIOExtras
import NIOPosix
import Synchronization
public import UbiquityProtocol

/// One connection to `ubiquityd` over its Unix socket, speaking UbiquityProtocol.
///
/// Connecting sends `hello` for you; afterwards requests may be sent from any task, concurrently.
/// Responses are matched to their request by id; events are routed to the query that asked for
/// them, in the order the daemon sent them. When the connection drops, or the daemon announces
/// `server.shuttingDown`, every pending request and every query ends with a ``UbiquityKitError``.
///
/// ```swift
/// let connection = try await UbiquityConnection.connect()          // the default socket path
/// print(connection.hello.version)                                   // the daemon's version
/// let list = try await connection.containers()                      // typed helpers...
/// let status = try await connection.send(Status())                 // ...or any operation
/// let query = MetadataQuery(connection: connection, predicateFormat: "name LIKE 'Item_*'")
/// for try await note in try await query.start() { print(note, query.resultCount) }
/// await connection.close()
/// ```
public final class UbiquityConnection: Sendable {
    /// The socket this connection was made to.
    public let socketPath: String
    /// The daemon's answer to `hello`: its version, protocol version and limits.
    public let hello: HelloResult

    private let router: Router
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let channel: any Channel

    /// The daemon's socket for this user: `WireProtocol.defaultSocketPath` for the effective uid
    /// and the process environment (`$XDG_RUNTIME_DIR/ubiquity/ubiquityd.sock`, or
    /// `/run/ubiquity/ubiquityd.sock` for root).
    public static var defaultSocketPath: String {
        WireProtocol.defaultSocketPath(uid: geteuid(), environment: ProcessInfo.processInfo.environment)
    }

    /// The longest line accepted from the daemon, by default: 256 MiB.
    ///
    /// A line from the daemon may be far longer than a request: `gatheringFinished` of a large
    /// container is one line (about 120 bytes per result with the default attributes, so a
    /// million results fit). A longer line closes the connection with
    /// ``UbiquityKitError/responseTooLarge(limit:)``; pass a larger `maxLineBytes` to
    /// ``connect(to:clientName:maxLineBytes:helloTimeout:)`` for bigger answers.
    public static let defaultMaxLineBytes = 256 << 20

    /// How long `connect` waits for the answer to `hello`: long enough for a socket-activated
    /// daemon to crawl a large container first, short enough that a client never hangs on a
    /// daemon that accepted the connection and then failed.
    public static let defaultHelloTimeout: Duration = .seconds(30)

    private init(socketPath: String, hello: HelloResult, router: Router,
                 outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, channel: any Channel) {
        self.socketPath = socketPath
        self.hello = hello
        self.router = router
        self.outbound = outbound
        self.channel = channel
    }

    deinit {
        // Dropping the last reference closes the socket; the reader then fails what is left.
        channel.close(promise: nil)
    }

    /// Every read from the socket is into a buffer of 256 KiB. A 100k-item answer is a line of
    /// 20–30 MB, and each read goes through the pipeline once. NIO reuses a read's buffer once
    /// nothing else holds it (its pool keeps a few). Its adaptive sizes (up to 1 MiB here) grew
    /// the buffers by reallocating and copying them, and each new buffer, while older ones were
    /// still held by results on their way to the reader, was fresh memory to fault in: about
    /// 1,300 more page faults and 5–7 ms more for `ubiq query --json` of 100k results. 128 KiB
    /// saved a few more faults and lost as much in reads; 512 KiB faulted more. A result kept
    /// keeps its read's buffer (EncodedItems); the daemon's answers fill them (71–73 of the 76
    /// reads of a 19 MB answer were whole).
    static let reads = FixedSizeRecvByteBufferAllocator(capacity: 256 << 10)

    /// Connects to the daemon and says `hello`.
    ///
    /// - Parameters:
    ///   - socketPath: The daemon's socket (default: ``defaultSocketPath``).
    ///   - clientName: Shown in the daemon's log, e.g. `ubiq` or `grocery`.
    ///   - maxLineBytes: The longest line accepted from the daemon (``defaultMaxLineBytes``).
    ///   - helloTimeout: How long the daemon may take to answer `hello` (``defaultHelloTimeout``);
    ///     a daemon started by socket activation answers once it has crawled its containers.
    /// - Throws: ``UbiquityKitError/daemonNotRunning(socketPath:)`` when nothing listens there,
    ///   ``UbiquityKitError/permissionDenied(socketPath:)`` when the socket is not ours,
    ///   ``UbiquityKitError/untrustedServer(socketPath:uid:)`` when the process behind the socket
    ///   is not one this user can trust (see ``ServerTrust``),
    ///   ``ProtocolError`` when the daemon refuses `hello` (another protocol version),
    ///   ``UbiquityKitError/noAnswer(socketPath:seconds:)`` when nothing answers `hello` in time.
    public static func connect(to socketPath: String = defaultSocketPath, clientName: String? = nil,
                               maxLineBytes: Int = defaultMaxLineBytes,
                               helloTimeout: Duration = defaultHelloTimeout) async throws -> UbiquityConnection {
        let asyncChannel: NIOAsyncChannel<ServerInput, ByteBuffer>
        do {
            asyncChannel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.recvAllocator, value: UbiquityConnection.reads)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ServerLineReader(maxLineBytes: maxLineBytes))
                        return try NIOAsyncChannel<ServerInput, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw connectError(error, socketPath: socketPath)
        }
        // Before a byte is sent: anyone can bind a socket where a daemon is expected (say under
        // /tmp when XDG_RUNTIME_DIR is unset), so ask the kernel who is listening.
        do {
            try await ServerTrust.check(asyncChannel.channel, socketPath: socketPath)
        } catch {
            try? await asyncChannel.channel.close()
            throw error
        }

        let router = Router()
        // The channel is read by one task for its whole life; it hands the writer out first.
        let (writers, writerSlot) = AsyncStream.makeStream(of: NIOAsyncChannelOutboundWriter<ByteBuffer>.self)
        Task {
            do {
                try await asyncChannel.executeThenClose { inbound, outbound in
                    writerSlot.yield(outbound)
                    writerSlot.finish()
                    for try await input in inbound {
                        guard router.receive(input) else { break }
                    }
                }
                router.fail(.disconnected(reason: router.closeReason ?? "ubiquityd closed the connection"))
            } catch let error as UbiquityKitError {
                writerSlot.finish()     // a line too long, or cut short by the daemon's closing (ServerLineReader)
                router.fail(router.closeReason.map { .disconnected(reason: $0) } ?? error)
            } catch {
                writerSlot.finish()
                router.fail(.disconnected(reason: router.closeReason ?? "\(error)"))
            }
        }
        var iterator = writers.makeAsyncIterator()
        guard let writer = await iterator.next() else {
            throw UbiquityKitError.disconnected(reason: "the connection closed before hello")
        }
        let channel = asyncChannel.channel
        let helloResult: HelloResult
        // Closing the channel on the deadline fails the pending hello; the error then says why.
        let deadline = Task {
            try await Task.sleep(for: helloTimeout)
            router.closeReason = "no answer to hello"
            try? await channel.close()
        }
        do {
            helloResult = try await router.send(Hello(client: clientName), writer: writer, eventLoop: channel.eventLoop)
            deadline.cancel()
        } catch {
            deadline.cancel()
            let timedOut = router.closeReason == "no answer to hello"
            router.closeReason = "hello failed"
            try? await channel.close()
            if timedOut {
                throw UbiquityKitError.noAnswer(socketPath: socketPath, seconds: Int(helloTimeout.components.seconds))
            }
            throw error
        }
        return UbiquityConnection(socketPath: socketPath, hello: helloResult, router: router,
                                  outbound: writer, channel: channel)
    }

    /// Runs `body` with a fresh connection and closes it afterwards, also when `body` throws.
    public static func withConnection<T: Sendable>(
        to socketPath: String = defaultSocketPath, clientName: String? = nil,
        helloTimeout: Duration = defaultHelloTimeout,
        _ body: (UbiquityConnection) async throws -> T
    ) async throws -> T {
        let connection = try await connect(to: socketPath, clientName: clientName, helloTimeout: helloTimeout)
        do {
            let result = try await body(connection)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Sends one request (any operation of ``Operations/all``) and returns its typed `result`.
    ///
    /// Events of a query started this way are dropped: start queries with ``MetadataQuery`` instead.
    ///
    /// - Throws: ``ProtocolError`` when the daemon answers with an error (its `code` is the
    ///   documented wire string) or with a result that is not the operation's,
    ///   ``UbiquityKitError/disconnected(reason:)`` when the connection is lost first.
    @discardableResult
    public func send<Operation: ProtocolOperation>(_ operation: Operation) async throws -> Operation.Result {
        try await router.send(operation, writer: outbound, eventLoop: channel.eventLoop)
    }

    /// Starts a query whose events go to `handler`, in order, on the connection's reader task.
    /// The handler is registered before the next line is read, so no event can be missed; it
    /// receives a failure (and nothing after it) when the connection ends.
    ///
    /// - Parameter results: takes the query's gathered results as they arrive, before its
    ///   `query.gatheringFinished`, which then holds only the results after them.
    func startQuery(_ parameters: QueryParameters, results: Router.ResultsHandler? = nil,
                    handler: @escaping Router.EventHandler) async throws -> Int {
        try await router.send(QueryStart(parameters), writer: outbound, eventLoop: channel.eventLoop) {
            .query($0.query, handler, results)
        }.query
    }

    /// Sends `document.watch`; its `document.lockChanged` events go to `handler` (registered before
    /// the next line is read).
    func watchDocument(_ path: String, handler: @escaping Router.EventHandler) async throws -> DocumentWatch.Result {
        try await router.send(DocumentWatch(path: path), writer: outbound, eventLoop: channel.eventLoop) {
            .watch($0.watch, handler)
        }
    }

    /// Sends `kv.subscribe`; the store's `kv.changed` events go to `handler` (registered before the
    /// next line is read).
    func subscribeKeyValue(container: String?, handler: @escaping Router.KeyValueHandler) async throws -> KVSubscribe.Result {
        try await router.send(KVSubscribe(container: container), writer: outbound, eventLoop: channel.eventLoop) {
            .keyValue($0.store, handler)
        }
    }

    /// Sends `kv.unsubscribe` and stops routing the subscription's events.
    func unsubscribeKeyValue(_ store: Int) async throws {
        router.setKeyValueHandler(nil, store: store)
        try await send(KVUnsubscribe(store: store))
    }

    /// A number for a store's subscriber to its `store.changed` events, unique on this connection.
    func nextStoreSubscriber() -> Int { router.nextSubscriber() }

    /// Sends `store.open`; the store's `store.changed` events go to `handler` as `subscriber`
    /// (registered before the next line is read).
    func openStore(_ open: StoreOpen, subscriber: Int, handler: @escaping Router.StoreChangeHandler) async throws -> StoreDescription {
        try await router.send(open, writer: outbound, eventLoop: channel.eventLoop) { result in
            .store(handle: result.handle ?? -1, subscriber: subscriber, handler)
        }
    }

    /// Stops routing `store.changed` events of `handle` to `subscriber` (the daemon's subscription
    /// lasts as long as the connection: there is no operation that ends it).
    func stopStoreNotifications(handle: Int, subscriber: Int) {
        router.removeStoreHandler(handle: handle, subscriber: subscriber)
    }

    /// Sends `store.watch`; the live fetch's events go to `handler` (registered before the next
    /// line is read). Returns the watch number.
    func watchStore(_ watch: StoreWatch, handler: @escaping Router.LiveFetchHandler) async throws -> Int {
        try await router.send(watch, writer: outbound, eventLoop: channel.eventLoop) { .liveFetch($0.watch, handler) }.watch
    }

    /// Stops routing live fetch `watch`'s events and sends `store.unwatch`.
    func unwatchStore(_ watch: Int) async throws {
        router.removeLiveFetchHandler(watch: watch)
        try await send(StoreUnwatch(watch: watch))
    }

    /// Sends `document.unwatch` and stops routing the watch's events.
    func unwatchDocument(_ watch: Int) async throws {
        router.setWatchHandler(nil, watch: watch)
        try await send(DocumentUnwatch(watch: watch))
    }

    /// Stops routing events to a query's handler (after `query.stop`, events already on the way are dropped).
    func removeHandler(query: Int) {
        router.removeHandler(query: query)
    }

    /// Closes the connection. Pending requests and running queries end with
    /// ``UbiquityKitError/disconnected(reason:)``. Closing twice is harmless.
    public func close() async {
        router.closeReason = router.closeReason ?? "the client closed the connection"
        try? await channel.close()
    }

    // MARK: Typed helpers

    // Not inlined: inlined into `UbiquityContainer.containers(socketPath:)`, it crashed Swift
    // 6.3.1's optimizer (signal 11 in LLVM's coroutine splitting, `emitSetAndGetSwiftErrorValueAround`).
    /// `containers.list`: the containers this user may read.
    @inline(never)
    public func containers() async throws -> [ContainerInfo] {
        try await send(ContainersList()).containers
    }

    /// `container.url`: a container's directory; the daemon creates `Documents/` in it on demand.
    /// - Parameter container: A container id, or nil for the first container this user may read.
    public func containerURL(_ container: String? = nil) async throws -> ContainerURLResult {
        try await send(ContainerURL(container: container))
    }

    /// `status`: the daemon's health (items, watches, overflows, degraded conditions...).
    public func status() async throws -> StatusResult {
        try await send(Status())
    }

    /// Turns NIO's connect failure into a sentence that says whether the daemon runs at all.
    static func connectError(_ error: any Error, socketPath: String) -> UbiquityKitError {
        if let io = error as? IOError {
            switch io.errnoCode {
            case ENOENT, ECONNREFUSED, ENOTDIR: return .daemonNotRunning(socketPath: socketPath)
            case EACCES, EPERM: return .permissionDenied(socketPath: socketPath)
            default: return .connectFailed(socketPath: socketPath, reason: String(cString: strerror(io.errnoCode)))
            }
        }
        if case SocketAddressError.unixDomainSocketPathTooLong = error {
            return .connectFailed(socketPath: socketPath,
                                  reason: "the path is longer than the 107 bytes a Unix socket path may have")
        }
        return .connectFailed(socketPath: socketPath, reason: "\(error)")
    }
}
