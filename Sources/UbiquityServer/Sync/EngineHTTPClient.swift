import NIOCore
import NIOHTTP1
import NIOPosix

/// One request (`GET`, or `POST` for files on demand) of the sync engine's REST API per
/// connection, on NIO's event loops (never a thread of the cooperative pool waiting on a socket):
/// a long poll of Syncthing's events holds its connection for up to half a minute without holding
/// a thread.
struct EngineHTTPClient: Sendable {
    let address: EngineAddress

    /// The largest answer read (Syncthing's folder list and event pages are far smaller).
    static let maxBodyBytes = 16 << 20
    static let connectTimeout: TimeAmount = .seconds(5)

    struct Response: Sendable {
        var status: Int
        var body: [UInt8]
    }

    /// `GET target` with the API key; the answer, whatever its status. Throws
    /// ``EngineHTTPError`` when nothing answers, or no complete answer comes within `timeout`.
    func get(_ target: String, apiKey: String, timeout: Duration) async throws -> Response {
        try await send(.GET, target, body: nil, apiKey: apiKey, timeout: timeout)
    }

    /// `POST target` with the API key and a JSON body (or none), as ``get(_:apiKey:timeout:)``.
    func post(_ target: String, json body: [UInt8]?, apiKey: String, timeout: Duration) async throws -> Response {
        try await send(.POST, target, body: body, apiKey: apiKey, timeout: timeout)
    }

    private func send(_ method: HTTPMethod, _ target: String, body: [UInt8]?, apiKey: String, timeout: Duration) async throws -> Response {
        let socketAddress: SocketAddress
        do {
            switch address {
            case .unixSocket(let path): socketAddress = try SocketAddress(unixDomainSocketPath: path)
            case .loopback(let listen): socketAddress = try SocketAddress(ipAddress: listen.host, port: listen.port)
            }
        } catch {
            throw EngineHTTPError.unreachable("\(address) is not an address a socket can connect to (\(error))")
        }
        let channel: NIOAsyncChannel<NIOHTTPClientResponseFull, HTTPClientRequestPart>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(Self.connectTimeout)
                .connect(to: socketAddress) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(NIOHTTPClientResponseAggregator(maxContentLength: Self.maxBodyBytes))
                        return try NIOAsyncChannel<NIOHTTPClientResponseFull, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw EngineHTTPError.unreachable("nothing answers at \(address) (\(Self.describe(error)))")
        }
        return try await withThrowingTaskGroup(of: Response.self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
                    head.headers.add(name: "Host", value: "localhost")
                    head.headers.add(name: "X-API-Key", value: apiKey)
                    head.headers.add(name: "Connection", value: "close")
                    if method == .POST {
                        if body != nil { head.headers.add(name: "Content-Type", value: "application/json") }
                        head.headers.add(name: "Content-Length", value: "\((body ?? []).count)")
                    }
                    var parts: [HTTPClientRequestPart] = [.head(head)]
                    if let body, !body.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                    parts.append(.end(nil))
                    // One write: an engine that answers the head at once and closes would otherwise
                    // close the channel under a second write of the end ("I/O on closed channel").
                    try await outbound.write(contentsOf: parts)
                    for try await response in inbound {
                        return Response(status: Int(response.head.status.code), body: response.body.map { Array($0.readableBytesView) } ?? [])
                    }
                    throw EngineHTTPError.unreachable("\(address) closed the connection without an answer to \(method) \(Self.pathOnly(target))")
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw EngineHTTPError.timedOut("no answer to \(method) \(Self.pathOnly(target)) within \(timeout)")
            }
            defer { group.cancelAll() }
            do {
                guard let first = try await group.next() else { throw EngineHTTPError.timedOut("no answer") }
                return first
            } catch {
                // Closed only once the first outcome is taken: closed by the timer, the request's
                // own "closed the connection without an answer" could come first, and a timeout
                // would not read as one. The request then ends, and the group with it.
                try? await channel.channel.close()
                if let error = error as? EngineHTTPError { throw error }
                throw EngineHTTPError.unreachable("\(method) \(Self.pathOnly(target)) at \(address) failed (\(Self.describe(error)))")
            }
        }
    }

    /// The target without its query (which never holds a secret, but keeps the journal short).
    static func pathOnly(_ target: String) -> Substring { target.split(separator: "?", maxSplits: 1).first ?? Substring(target) }

    static func describe(_ error: any Error) -> String {
        if let io = error as? IOError { return io.description }
        return String(describing: error)
    }
}
