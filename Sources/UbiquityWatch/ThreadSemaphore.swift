import Glibc

/// A POSIX semaphore at a fixed address (`sem_t` must not move), for a thread of the crawl to
/// sleep on until another posts (``StatHelper``, ``SubtreeHelper``).
///
/// `@unchecked Sendable`: it holds only the semaphore's address, and `sem_wait`/`sem_post` are
/// safe from any thread (POSIX); its owner destroys it after the threads that use it have stopped.
struct ThreadSemaphore: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<sem_t>

    /// nil when `sem_init` fails.
    init?() {
        pointer = .allocate(capacity: 1)
        guard sem_init(pointer, 0, 0) == 0 else {
            pointer.deallocate()
            return nil
        }
    }

    func post() { sem_post(pointer) }

    func wait() {
        while sem_wait(pointer) != 0 && Glibc.errno == EINTR {}
    }

    /// Once no thread uses it any more.
    func destroy() {
        sem_destroy(pointer)
        pointer.deallocate()
    }
}
