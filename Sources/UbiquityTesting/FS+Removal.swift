import Glibc

extension FS {
    /// Blocks until `directory` holds exactly `expected` (its names, in any order), woken by
    /// inotify as entries are removed or added (another thread's, another process's), or fails
    /// after `seconds`.
    ///
    /// - Throws: ``TimedOut`` when it does not within `seconds`.
    public static func waitForNames(in directory: String, toBe expected: Set<String>, within seconds: Double = 10) throws {
        OwnThreads.checkMayBlock("FS.waitForNames")
        let changes = try FileEvents(watching: directory, mask: UInt32(IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM))
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            // Looked at once the watch is in place: a change made before it is seen here.
            if Set(try names(directory)) == expected { return }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw TimedOut(description: "\(directory) did not come to hold \(expected.sorted()) within \(seconds) s") }
            changes.wait(within: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
    }
}
