import Glibc
import UbiquitySystem

/// Starts the dedicated, detached thread that owns an inotify descriptor and blocks in `poll`.
///
/// A thread of its own rather than a task: the reader blocks in a system call, which must never
/// happen on the cooperative pool, and it must drain the kernel queue even when every task is busy.
enum ReaderThread {
    private final class Box: Sendable {
        let body: @Sendable () -> Void
        init(body: @escaping @Sendable () -> Void) {
            self.body = body
        }
    }

    /// - Parameter body: Runs on the new thread; the thread ends when it returns.
    /// - Throws: ``WatchError`` naming `pthread_create`.
    static func start(_ body: @escaping @Sendable () -> Void) throws(WatchError) {
        let box = Unmanaged.passRetained(Box(body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw WatchError(SystemCallError("pthread_create", errno: result))
        }
        pthread_detach(thread)
    }
}
