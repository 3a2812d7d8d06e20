import UbiquityIndex

/// The paths the engine has indexed since the daemon's last full read, per folder, and when (the
/// engine's own time of the `LocalIndexUpdated` that named them). Pure.
///
/// Why: the engine's need lists say nothing of a change it has not indexed yet — Syncthing scans
/// a change seconds later (its watcher waits `fsWatcherDelayS`, 10 s by default). Until then the
/// other devices "need" nothing new, and the item would look held by them. So an item changed
/// after the last full read counts as held by no other device until an index event names it
/// after its change (``ContainerSyncFacts/indexedAt``).
struct IndexedPaths: Sendable {
    /// Paths kept per folder. Past it the folder's paths are forgotten: its items changed since
    /// the last full read count as held by no other device until indexed again — the safe side.
    static let maxPaths = 100_000

    /// Per folder, the paths by their bytes (``ExactName``), with when.
    private(set) var byFolder: [String: [ExactName: Int64]] = [:]

    /// Records the paths the `LocalIndexUpdated` events of `batch` name. An event without a
    /// time of its own counts from `receivedAt`, when the daemon read it (later: still safe).
    mutating func take(_ batch: [EngineEvent], receivedAt: Int64) {
        for event in batch where event.type == "LocalIndexUpdated" {
            guard let folder = event.folder, !event.filenames.isEmpty else { continue }
            let time = event.time ?? receivedAt
            var paths = byFolder[folder, default: [:]]
            for name in event.filenames {
                let path = ExactName(name)
                paths[path] = max(paths[path] ?? .min, time)
            }
            byFolder[folder] = paths.count > Self.maxPaths ? [:] : paths
        }
    }

    func paths(of folder: String) -> [ExactName: Int64] { byFolder[folder] ?? [:] }
}
