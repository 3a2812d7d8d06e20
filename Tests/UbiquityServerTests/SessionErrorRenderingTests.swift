import Glibc
import Logging
import Synchronization
import Testing
import UbiquityIndex
import UbiquityJSON
import UbiquityPredicate
import UbiquityProtocol
@testable import UbiquityServer

/// How a session renders failures: client-facing errors as themselves, anything else as
/// `internal` with a fixed sentence, its details in the log only.
@Suite("Session error rendering")
struct SessionErrorRenderingTests {
    /// Fails every sync with an error that names a path, as a failing watcher would: it must not reach the client.
    struct FailingSource: ChangeSource {
        struct Failure: Error, CustomStringConvertible { var description: String { "openat failed for /secret/path: EACCES" } }
        func batches() -> AsyncStream<ChangeBatch> { AsyncStream { $0.finish() } }
        func sync() async throws -> UInt64 { throw Failure() }
    }

    /// Times out every sync, as a watcher that has fallen behind does (WatcherChangeSource).
    struct TimingOutSource: ChangeSource {
        func batches() -> AsyncStream<ChangeBatch> { AsyncStream { $0.finish() } }
        func sync() async throws -> UInt64 { throw EngineError.syncTimedOut(after: .seconds(10)) }
    }

    /// Keeps every log message with its metadata.
    struct RecordingLogHandler: LogHandler {
        let records: Records
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
            let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            records.lines.withLock { $0.append("\(event.level) \(event.message) \(fields)") }
        }
    }

    final class Records: Sendable { let lines = Mutex<[String]>([]) }

    func session(records: Records, source: some ChangeSource = FailingSource()) throws -> Session {
        let descriptor = ContainerDescriptor(id: try ContainerID("com.example.grocery"), root: "/nonexistent/com.example.grocery")
        let engine = QueryEngine(containers: [descriptor], source: source)
        let logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let context = ServerContext(
            engine: engine, registry: ContainerRegistry([ResolvedContainer(descriptor: descriptor, ownerUID: geteuid(), groupGID: nil, available: true)]),
            limits: ServerLimits(), logger: logger, status: { _ in fatalError("not asked") }, itemCounts: { [:] })
        return Session(peer: PeerCredentials(pid: getpid(), uid: geteuid(), gid: getegid(), groups: []), context: context)
    }

    func answer(_ session: Session, _ line: String) async -> String {
        String(decoding: await session.handle(line: Array(line.utf8)).line.whole().dropLast(), as: UTF8.self)
    }

    @Test("An unexpected error answers internal with the fixed sentence; the journal gets the error, request id and peer uid")
    func unexpectedErrorIsInternal() async throws {
        let records = Records()
        let session = try session(records: records)
        _ = await answer(session, #"{"id":1,"op":"hello","version":1}"#)
        let wire = await answer(session, #"{"id":"r7","op":"query.start","predicate":"TRUEPREDICATE"}"#)
        #expect(wire == #"{"error":{"code":"internal","message":"internal error; see the daemon's journal"},"id":"r7"}"#)
        #expect(!wire.contains("/secret/path"))
        let logged = records.lines.withLock { $0 }.filter { $0.hasPrefix("error ") }
        #expect(logged.count == 1)
        #expect(logged.first?.contains("/secret/path") == true)
        #expect(logged.first?.contains("request=") == true && logged.first?.contains("r7") == true)
        #expect(logged.first?.contains("peer_uid=\(geteuid())") == true)
    }

    @Test("A sync that timed out is answered index.syncTimedOut, and the journal gets a warning with its sentence; other refusals stay info")
    func aTimedOutSyncIsAWarning() async throws {
        let records = Records()
        let session = try session(records: records, source: TimingOutSource())
        _ = await answer(session, #"{"id":1,"op":"hello","version":1}"#)
        let wire = await answer(session, #"{"id":2,"op":"query.start","predicate":"TRUEPREDICATE"}"#)
        #expect(wire.hasPrefix(#"{"error":{"code":"index.syncTimedOut","message":"the daemon could not confirm within 10 s that"#))
        _ = await answer(session, #"{"id":3,"op":"query.stop","query":5}"#)
        let refusals = records.lines.withLock { $0 }.filter { $0.contains("request refused") }
        #expect(refusals.count == 2)
        #expect(refusals.first?.hasPrefix("warning request refused code=index.syncTimedOut peer_uid=\(geteuid()) reason=the daemon could not confirm within 10 s") == true)
        #expect(refusals.last?.hasPrefix("info request refused code=query.unknown peer_uid=") == true)
        #expect(refusals.last?.contains("reason=") == false)
    }

    @Test("Client-facing errors of every layer render as themselves, byte for byte")
    func clientFacingErrorsRenderAsThemselves() async throws {
        let session = try session(records: Records())
        #expect(await answer(session, #"{"id":1,"op":"status"}"#)
            == #"{"error":{"code":"request.helloRequired","message":"send {\"id\":1,\"op\":\"hello\",\"version\":1} first: the first request of a connection must be hello"},"id":1}"#)
        _ = await answer(session, #"{"id":2,"op":"hello","version":1}"#)
        #expect(await answer(session, #"{"id":3,"op":"query.start","predicate":"kMDItemFSName LIKE )"}"#)
            == #"{"error":{"code":"predicate.syntax","message":"predicate error at 19: expected a value after LIKE, found ')'","offset":19},"id":3}"#)
        #expect(await answer(session, #"{"id":4,"op":"query.stop","query":5}"#)
            == #"{"error":{"code":"query.unknown","message":"no query 5 on this connection","query":5},"id":4}"#)
        #expect(await answer(session, #"{"id":5,"op":"status""#)
            == #"{"error":{"code":"request.malformed","message":"\#(try malformedMessage())"},"id":null}"#)
    }

    /// The decoder's own sentence for a truncated line (not restated here).
    func malformedMessage() throws -> String {
        do throws(ProtocolError) { _ = try JSONLine.decode(Array(#"{"id":5,"op":"status""#.utf8)) } catch { return error.message }
        throw CancellationError()
    }
}
