import Synchronization

/// Records the door's waiting calls (`fsync`, the durable replace, a recursive removal) made on a
/// Swift task — where they must never be — while it is installed as ``System/waitRecorder`` for
/// a task tree. A call made on a thread of an `NIOThreadPool` or a thread of its own has no task,
/// so it is never recorded: what a test finds here waited on an actor or the cooperative pool.
public final class WaitRecorder: Sendable {
    private let calls = Mutex<[String]>([])

    public init() {}

    /// What was recorded: `fsync /path`, `replace /path/name`, …, in order.
    public var recorded: [String] { calls.withLock { $0 } }

    func record(_ call: String) { calls.withLock { $0.append(call) } }
}

extension System {
    /// Where the door reports a waiting call made on a task of this task tree (nil: nowhere).
    /// Task-local: a test installs one around the daemon it runs, and calls made by other tests
    /// in the same process are not seen.
    @TaskLocal public static var waitRecorder: WaitRecorder?

    /// Called by each waiting call of the door: records it when a recorder is installed for the
    /// current task. Off any task (a pool's thread) the task-local is nil: nothing is recorded.
    static func noteWait(_ call: String, _ path: String) {
        System.waitRecorder?.record(call + " " + path)
    }
}
