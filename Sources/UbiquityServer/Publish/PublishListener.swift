import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The HTTP listener that serves published snapshots (docs/configuration.md, `[publish]`): opens
/// the store (expired and stray snapshots removed), binds `listen`, tells the store its address,
/// serves until shutdown and removes expired snapshots every minute. It runs beside the socket
/// server on NIO's event loops; nothing of it touches the query engine.
struct PublishListener: Service {
    let store: PublishStore
    let address: ListenAddress
    let logger: Logger

    /// Connections served at once; more are closed as they are accepted.
    static let maxConnections = 256
    /// A connection that sends and receives nothing this long is closed.
    static let idleTimeout: TimeAmount = .seconds(30)
    /// How often expired snapshots are looked for, besides at each request for one.
    static let sweepInterval: Duration = .seconds(60)

    func run() async throws {
        let server: any Channel
        do {
            let store = self.store
            try await NIOThreadPool.singleton.runIfActive { try store.open() }
            let open = Counter()
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    guard open.value.add(1, ordering: .relaxed).newValue <= Self.maxConnections else {
                        open.value.subtract(1, ordering: .relaxed)
                        return channel.close()
                    }
                    channel.closeFuture.whenComplete { _ in open.value.subtract(1, ordering: .relaxed) }
                    return channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(IdleStateHandler(allTimeout: Self.idleTimeout))
                        try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                        try pipeline.addHandler(PublishHTTPHandler(store: store))
                    }
                }
                .bind(host: address.host, port: address.port).get()
        } catch {
            store.listenerFailed(error)
            logger.error("the publish listener cannot start", metadata: ["listen": "\(address)", "error": "\(error)"])
            throw error
        }
        let authority = address.authority(port: server.localAddress?.port ?? address.port)
        store.listenerBound(authority: authority)
        logger.info("publish listener bound", metadata: ["url": "http://\(authority)/p/"])
        let store = self.store
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await server.closeFuture.get() }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.sweepInterval)
                        guard !Task.isCancelled else { break }
                        try? await NIOThreadPool.singleton.runIfActive { try store.sweep() }
                    }
                }
                await group.next()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            server.close(promise: nil)
        }
    }

    /// The open connections, shared by every child channel's initializer.
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }
}
