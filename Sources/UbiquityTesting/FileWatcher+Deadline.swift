public import UbiquityWatch

extension FileWatcher {
    /// Waits until the reader publishes a status for which `condition` holds — what it saw, such
    /// as an overflow or tags held back, which no batch announces — woken by the publication
    /// itself (``statusReached(_:)``), never by looking again after a pause.
    ///
    /// - Throws: ``TimedOut`` naming `what` when no such status comes within `seconds` (or the
    ///   watcher stopped first).
    public func waitForStatus(_ what: String, within seconds: Double = 10,
                              _ condition: @escaping @Sendable (WatchStatus) -> Bool) async throws {
        let reached = try await firstWithin(seconds) { () -> Bool in
            await self.statusReached(condition)
            return true
        }
        guard reached == true, condition(status) else {
            throw TimedOut(description: "no watcher status where \(what) within \(seconds) s: \(status)")
        }
    }
}
