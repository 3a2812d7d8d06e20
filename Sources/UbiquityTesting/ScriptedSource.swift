public import UbiquityIndex
import Synchronization

/// A change source driven by the test: every ``send(_:notices:)`` is the next numbered batch,
/// and `sync` answers with the last number sent, as the watcher's cookie barrier does. For
/// the engine's pure logic; tests about the watcher use the real one.
public final class ScriptedSource: ChangeSource {
    private let stream: AsyncStream<ChangeBatch>
    private let continuation: AsyncStream<ChangeBatch>.Continuation
    private let sent = Mutex<UInt64>(0)
    private let answeringCalls = Mutex<[Bool]>([])

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: ChangeBatch.self)
    }

    public func batches() -> AsyncStream<ChangeBatch> { stream }
    public func sync() async throws -> UInt64 { sent.withLock { $0 } }

    public func send(_ changes: [FileSystemChange], notices: [ChangeNotice] = []) {
        sent.withLock { sequence in
            sequence += 1
            continuation.yield(ChangeBatch(sequence: sequence, changes: changes, notices: notices))
        }
    }

    /// What the consumer said of its answering (``ChangeSource/answering(_:)``), in order.
    public var answeringHistory: [Bool] { answeringCalls.withLock { $0 } }

    public func answering(_ busy: Bool) { answeringCalls.withLock { $0.append(busy) } }

    /// Ends the stream, so the engine's `run()` returns.
    public func finish() { continuation.finish() }
}
