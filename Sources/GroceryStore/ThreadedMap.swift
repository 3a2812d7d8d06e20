import Glibc
import Synchronization

/// Maps an array on a few threads of its own, keeping the order: for work that waits on the
/// disk (10,000 item files whose pages may have left the cache), where requests in flight at
/// once overlap their waits and both cores share the system calls. Threads, not tasks: a
/// blocking read would hold one of the cooperative pool's few threads.
enum ThreadedMap {
    /// `transform` of every element, in order; with an error, the one a sequential map would have
    /// thrown (the first failing element's), and nothing else.
    static func map<Element: Sendable, Mapped: Sendable>(
        _ elements: [Element], threads: Int, minimumPerThread: Int, _ transform: @escaping @Sendable (Element) throws -> Mapped?
    ) throws -> [Mapped] {
        let count = min(threads, elements.count / max(1, minimumPerThread))
        guard count > 1 else { return try elements.compactMap(transform) }
        let per = (elements.count + count - 1) / count
        let slices = Collected<Mapped>(count)
        var threads: [pthread_t] = []
        for index in 0..<count {
            let slice = elements[min(elements.count, index * per)..<min(elements.count, (index + 1) * per)]
            let work = Work { slices.put(index, Result { try slice.compactMap(transform) }) }
            // POSIX threads (Foundation's Thread is not in FoundationEssentials); joined below.
            let context = Unmanaged.passRetained(work).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(&thread, nil, { context in
                Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
            if started == 0 {
                threads.append(thread)
            } else {
                // No thread to be had: this slice on the caller's thread, the result is the same.
                Unmanaged<Work>.fromOpaque(context).release()
                work.body()
            }
        }
        for thread in threads { pthread_join(thread, nil) }
        return try slices.take().flatMap { try $0.get() }
    }

    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Each thread's slice, by index.
    private final class Collected<Mapped: Sendable>: Sendable {
        private let slices: Mutex<[Result<[Mapped], any Error>]>

        init(_ count: Int) { slices = Mutex(Array(repeating: .success([]), count: count)) }

        func put(_ index: Int, _ slice: Result<[Mapped], any Error>) { slices.withLock { $0[index] = slice } }
        func take() -> [Result<[Mapped], any Error>] { slices.withLock { $0 } }
    }
}
