import Foundation
import Glibc

/// A task executor that runs every job on a new thread of its own: a job that blocks (a process
/// wait, a blocking socket read, a poll with a deadline) holds only its own thread. Tests reach it
/// through the ``OwnThreads`` trait.
///
/// A thread start per job is slower than the shared pool, but a test runs a few thousand jobs at
/// most, and what it buys is that no test's blocking can delay another test's awaits.
public final class ThreadPerJobExecutor: TaskExecutor {
    public static let shared = ThreadPerJobExecutor()

    /// Set on every thread it starts (a thread-specific value rather than a name: Foundation's
    /// `Thread.name` does not reach the new thread on Linux, which keeps its creator's name).
    private static let marker: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
        return key
    }()

    /// Whether the calling thread is one this executor started.
    public static var isCurrentThreadOwn: Bool { pthread_getspecific(marker) != nil }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread {
            pthread_setspecific(Self.marker, UnsafeRawPointer(bitPattern: 1))
            job.runSynchronously(on: executor)
        }
    }
}
