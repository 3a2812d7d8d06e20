import Synchronization

/// The consumers of one kind of notification (a key-value store's external changes, a relational
/// store's imports): each gets its own `AsyncStream`, buffered up to a bound, removed when it ends;
/// once finished, new ones end at once.
final class Subscribers<Element: Sendable>: Sendable {
    private struct State {
        var streams: [Int: AsyncStream<Element>.Continuation] = [:]
        var next = 0
        var finished = false
    }

    private let state = Mutex(State())

    /// A new stream keeping at most `bound` elements its consumer has not read (the newest).
    func stream(buffering bound: Int) -> AsyncStream<Element> {
        let (stream, sink) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(bound))
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            state.next += 1
            state.streams[state.next] = sink
            return state.next
        }
        guard let id else { sink.finish(); return stream }
        sink.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.streams.removeValue(forKey: id) } }
        return stream
    }

    /// Every stream's continuation now, to yield to.
    var continuations: [AsyncStream<Element>.Continuation] { state.withLock { Array($0.streams.values) } }

    /// Ends every stream, and every one asked for from now on.
    func finish() {
        let streams = state.withLock { state in
            state.finished = true
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for stream in streams { stream.finish() }
    }
}
