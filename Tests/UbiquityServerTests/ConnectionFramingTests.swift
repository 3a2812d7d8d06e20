import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import UbiquityServer
import UbiquityIndex
import UbiquityJSON
import UbiquityProtocol
import UbiquityTesting

/// The connection's framing and answering, on `NIOAsyncTestingChannel`: the server's own pipeline
/// and session, no socket, bytes in exactly the pieces the test chooses.
@Suite(.ownThreads) struct ConnectionFramingTests {
    static let maxLine = 256
    static let hello = #"{"id":1,"op":"hello","version":1}"#

    /// A connection served by a real `SocketServer` on a testing channel: no containers, or one
    /// (`withContainer`) that holds nothing and that the peer (root) may read.
    struct Connection {
        let channel: NIOAsyncTestingChannel
        let served: Task<Void, Never>
        let source = ScriptedSource()
        let engine: QueryEngine

        init(withContainer: Bool = false) async throws {
            var limits = ServerLimits()
            limits.maxLineBytes = ConnectionFramingTests.maxLine
            let descriptors = withContainer
                ? [ContainerDescriptor(id: try ContainerID("com.example.grocery"), root: "/nonexistent/com.example.grocery")] : []
            let engine = QueryEngine(containers: descriptors, source: source)
            self.engine = engine
            let registry = ContainerRegistry(descriptors.map { ResolvedContainer(descriptor: $0, ownerUID: 0, groupGID: nil, available: true) })
            let context = ServerContext(engine: engine, registry: registry, limits: limits,
                                        logger: Logger(label: "framing") { _ in SwiftLogNoOpLogHandler() },
                                        status: { _ in Daemon.emptyStatus }, itemCounts: { [:] })
            let server = SocketServer(endpoint: .path("/nonexistent/framing.sock"), context: context)
            server.serve(onListener: NIOAsyncTestingChannel())
            let channel = NIOAsyncTestingChannel()
            // Active, as an accepted connection is.
            try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 1))
            let wrapped = try await channel.eventLoop.submit {
                try SocketServer.configure(channel, maxLineBytes: ConnectionFramingTests.maxLine)
            }.get()
            self.channel = channel
            served = Task(executorPreference: ThreadPerJobExecutor.shared) { await server.serve(wrapped, peer: PeerCredentials(pid: 1, uid: 0, gid: 0)) }
        }

        func send(_ text: String) async throws { try await channel.writeInbound(ByteBuffer(string: text)) }

        /// The next line the server wrote, within 10 seconds.
        func line() async throws -> JSONValue {
            let channel = self.channel
            let buffer = try await firstWithin(10) { try await channel.waitForOutboundWrite(as: ByteBuffer.self) }
            guard let buffer else { throw TestDaemonError("the server wrote nothing within 10 s") }
            return try JSONLine.decode(Array(buffer.readableBytesView.prefix { $0 != 0x0A }))
        }

        /// The `event` of every line of the next buffer the server wrote (one write), within 10 seconds.
        func eventsOfOneWrite() async throws -> [String?] {
            let channel = self.channel
            let buffer = try await firstWithin(10) { try await channel.waitForOutboundWrite(as: ByteBuffer.self) }
            guard let buffer else { throw TestDaemonError("the server wrote nothing within 10 s") }
            return try buffer.readableBytesView.split(separator: 0x0A).map { try JSONLine.decode(Array($0))["event"]?.stringValue }
        }
    }

    @Test func aRequestDripFedOneByteAtATimeIsAnswered() async throws {
        let connection = try await Connection()
        for byte in (Self.hello + "\n").utf8 { try await connection.send(String(decoding: [byte], as: UTF8.self)) }
        let answer = try await connection.line()
        #expect(answer["result"]?["server"]?.stringValue == "ubiquityd", "\(answer)")
        try await connection.channel.close()
        await connection.served.value
    }

    @Test func manyRequestsInOneBufferAreAnsweredInOrder() async throws {
        let connection = try await Connection()
        let lines = [Self.hello] + (2...20).map { #"{"id":\#($0),"op":"status"}"# }
        try await connection.send(lines.joined(separator: "\n") + "\n")
        for id in 1...20 {
            let answer = try await connection.line()
            #expect(answer["id"]?.intValue == id, "\(answer)")
        }
        try await connection.channel.close()
        await connection.served.value
    }

    /// The engine hands out one event of a query per pull; the outbox pulls again before it
    /// writes, so a one-shot query's first three events leave in one write (one wake-up of the
    /// event loop and of the peer, not three), and `query.stopped` in the next.
    @Test func aOneShotQuerysFirstEventsLeaveInOneWrite() async throws {
        let connection = try await Connection(withContainer: true)
        try await connection.send(Self.hello + "\n")
        _ = try await connection.line()
        try await connection.send(#"{"id":2,"op":"query.start","predicate":"name LIKE 'Item_*'","live":false}"# + "\n")
        let response = try await connection.line()
        #expect(response["result"]?["query"]?.intValue != nil, "\(response)")
        let events = try await connection.eventsOfOneWrite()
        #expect(events == ["query.gatheringStarted", "query.gatheringProgress", "query.gatheringFinished"])
        #expect(try await connection.eventsOfOneWrite() == ["query.stopped"])
        try await connection.channel.close()
        await connection.served.value
    }

    /// A live query's notifications, like a result set, are written as an answer: the engine's
    /// source is told when their write begins and ends (the watcher's tag pass waits meanwhile).
    @Test func aLiveQuerysNotificationsCountAsAnswering() async throws {
        let connection = try await Connection(withContainer: true)
        // The engine applies what the source sends (the other tests send nothing).
        let engine = connection.engine
        let applying = Task(executorPreference: ThreadPerJobExecutor.shared) { await engine.run() }
        defer { connection.source.finish() }
        let container = try ContainerID("com.example.grocery")
        let directory = FileStat(kind: .directory, size: 4096, modified: 1_000_000_000, created: 1_000_000_000,
                                 changed: 1_000_000_000, mode: 0o755)
        connection.source.send([.stat(container, [], directory), .stat(container, ["Documents"], directory)])
        try await connection.send(Self.hello + "\n")
        _ = try await connection.line()
        try await connection.send(#"{"id":2,"op":"query.start","predicate":"name LIKE 'Item_*'","live":true,"batchingInterval":0}"# + "\n")
        _ = try await connection.line()
        while !(try await connection.eventsOfOneWrite()).contains("query.gatheringFinished") {}
        // The gathering and its answer's write each said so once; each update's write says so once more.
        for n in 1...2 {
            let stat = FileStat(kind: .regular, size: Int64(n), modified: 2_000_000_000, created: 2_000_000_000, changed: 2_000_000_000)
            connection.source.send([.stat(container, ["Documents", "Item_\(n)"], stat)])
            while !(try await connection.eventsOfOneWrite()).contains("query.update") {}
            let source = connection.source
            let settled = try await firstWithin(10) { await source.answeringHistory(reaching: 4 + 2 * n) }
            let history = try #require(settled, "update \(n): \(source.answeringHistory)")
            #expect(history.count == 4 + 2 * n && history.filter { $0 }.count == 2 + n, "update \(n): \(history)")
            #expect(history.suffix(2) == [true, false], "update \(n): \(history)")
        }
        try await connection.channel.close()
        await connection.served.value
        connection.source.finish()
        await applying.value
    }

    @Test(arguments: [true, false])
    func aLineOverTheLimitIsRefusedAndTheConnectionClosed(arrivesWhole: Bool) async throws {
        let connection = try await Connection()
        try await connection.send(Self.hello + "\n")
        _ = try await connection.line()
        let long = #"{"id":2,"op":"status","padding":""# + String(repeating: "x", count: Self.maxLine * 2) + #""}"#
        if arrivesWhole {
            // One read holding the whole line: the decoder's buffer limit never sees it incomplete.
            try await connection.send(long + "\n")
        } else {
            for chunk in stride(from: 0, to: long.utf8.count, by: 64) {
                // The decoder refuses to buffer past the limit: the pipeline reports it to the writer too.
                try? await connection.send(String(decoding: Array(long.utf8)[chunk..<min(chunk + 64, long.utf8.count)], as: UTF8.self))
            }
        }
        let refusal = try await connection.line()
        #expect(refusal["error"]?["code"]?.stringValue == "request.tooLarge", "\(refusal)")
        #expect(refusal["error"]?["limit"]?.intValue == Self.maxLine, "\(refusal)")
        await connection.served.value
        #expect(!connection.channel.isActive, "the connection stays open after a line over the limit")
    }
}
