import Glibc

/// One piece of work on a POSIX thread of its own while the caller's thread does another, then
/// joined: a restore builds the name index on the machine's other core while it derives flags,
/// conflict counts and package totals (the two read the same columns and write nothing in common).
/// A thread, not a task: a restore runs before the daemon's tasks and computes for tenths of a
/// second, which would hold one of the cooperative pool's few threads as long.
enum SideThread {
    /// Runs `side` on a new thread and `main` on this one; returns (or throws) once both are
    /// done. Without a thread to be had (`pthread_create` fails), `side` runs after `main`, here.
    ///
    /// `side` is not checked as `Sendable`: the caller promises that it shares nothing mutable
    /// with `main` (what it reads, neither writes; what it writes, `main` does not touch) until
    /// this returns.
    static func run<T, Failure: Error>(_ side: @escaping () -> Void, while main: () throws(Failure) -> T) throws(Failure) -> T {
        let work = Work(side)
        let context = Unmanaged.passRetained(work).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context) == 0
        if !started { Unmanaged<Work>.fromOpaque(context).release() }
        defer {
            if started { pthread_join(thread, nil) } else { work.body() }
        }
        return try main()
    }

    /// The side's closure, handed to the new thread. Unchecked: see ``run(_:while:)``.
    private final class Work: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
}
