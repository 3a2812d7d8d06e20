/// Where long background work steps aside for an answer being written: the saved index's restore
/// calls it between stretches of its work (a few thousand slots, a name bucket, a few MiB of
/// checksum or of the file's read), on each of its threads. After a restart the first answer (from the answers the last
/// shutdown remembered, or from the saved index) is written while the restore still runs, and on
/// two cores the restore's three threads took most of the processor from it.
///
/// The daemon passes the watcher's crawl pause (`CrawlPause/waitWhileHeld()`), which every
/// unverified answer holds until it is written, for at most its bound: the restore steps aside
/// exactly when, and as long as, the crawl that checks it does.
public struct StepAside: Sendable {
    private let wait: @Sendable () -> Void

    /// - Parameter wait: returns once the work may go on; called often, so one load when it may.
    public init(_ wait: @escaping @Sendable () -> Void) {
        self.wait = wait
    }

    /// Work that never steps aside (tests, tools).
    public static let never = StepAside {}

    /// How many slots (or children, or ids) a loop of the restore goes through between two looks.
    static let stretch = 4096

    /// Returns once the work may go on.
    public func callAsFunction() { wait() }

    /// Looks at every ``stretch``-th `i` (the first included).
    @inline(__always)
    func every(_ i: Int) {
        if i & (Self.stretch - 1) == 0 { wait() }
    }
}
