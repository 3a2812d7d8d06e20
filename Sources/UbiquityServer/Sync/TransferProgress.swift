import UbiquityIndex

/// The transfers in flight as the engine's progress events tell them, per folder: this device's
/// downloads (Syncthing's `DownloadProgress`: bytes done of the file's size) and the other
/// devices' downloads of files from here (`RemoteDownloadProgress`: blocks each holds, measured
/// against the file's block count, asked once per file). Pure: events in, per-path percentages out,
/// paths keyed by their bytes (``ExactName``), as ``ContainerSyncFacts`` keys them.
///
/// Syncthing reports both about every `progressUpdateIntervalS` (5 s by default) and only for
/// files of at least `tempIndexMinBlocks` (10) blocks; each event holds the whole state it speaks
/// for (every download in progress here; every file one device is fetching in one folder), so a
/// file left out of the next event is no longer in flight.
///
/// Progress is forgotten when the item is current (``retain(folder:localNeed:remoteNeed:)``
/// with the need lists read after the event; `ItemFinished` for a download here), when the
/// device fetching it disconnects or is paused, and on an engine restart or lost events (the
/// caller starts a new value).
///
/// ```
/// events:   ItemStarted   DownloadProgress 12%   DownloadProgress 55%   ItemFinished
/// here:     isDownloading percentDownloaded 12   percentDownloaded 55   forgotten → current, 100
/// ```
struct TransferProgress: Sendable, Hashable {
    /// Files kept per folder (downloads) and per folder and device (uploads); past it the rest of
    /// that event is left out (those files show 0 until their progress fits again).
    static let maxFiles = 10_000
    /// Block counts asked of the engine for one batch of events (``missingTotals(limit:)``).
    static let maxTotalsPerBatch = 16

    /// Per folder, per path: bytes done of bytes total.
    private(set) var downloads: [String: [ExactName: BlockProgress]] = [:]
    /// Per folder, per device, per path: the blocks that device holds.
    private(set) var remoteBlocks: [String: [String: [ExactName: Int64]]] = [:]
    /// Per folder, per path: the file's block count (0: asked, not known).
    private(set) var totalBlocks: [String: [ExactName: Int64]] = [:]

    /// Takes one batch of events in order; returns whether any percentage may have changed.
    ///
    /// - Complexity: O(files named by the batch's progress events).
    mutating func take(_ batch: [EngineEvent]) -> Bool {
        let before = self
        for event in batch {
            if let reported = event.downloads {
                downloads = reported.compactMapValues { files in files.isEmpty ? nil : Self.capped(files) }
            } else if let blocks = event.remoteBlocks {
                guard let folder = event.folder, let device = event.device else { continue }
                var byDevice = remoteBlocks[folder, default: [:]]
                byDevice[device] = blocks.isEmpty ? nil : Self.capped(blocks)
                remoteBlocks[folder] = byDevice.isEmpty ? nil : byDevice
            } else if event.type == "ItemFinished", let folder = event.folder, let item = event.finishedItem {
                downloads[folder]?[ExactName(item)] = nil
                if downloads[folder]?.isEmpty == true { downloads[folder] = nil }
            } else if let (device, connected) = DeviceConnectionEvents.effect(type: event.type, device: event.device), !connected {
                forget(device: device)
            }
        }
        pruneTotals()
        return self != before
    }

    /// The files other devices are fetching whose block count is not asked yet, at most `limit`.
    func missingTotals(limit: Int = maxTotalsPerBatch) -> [(folder: String, path: ExactName)] {
        var out: [(folder: String, path: ExactName)] = []
        for (folder, byDevice) in remoteBlocks.sorted(by: { $0.key < $1.key }) {
            var paths: Set<ExactName> = []
            for files in byDevice.values { paths.formUnion(files.keys) }
            for path in paths.sorted() where totalBlocks[folder]?[path] == nil {
                guard out.count < limit else { return out }
                out.append((folder, path))
            }
        }
        return out
    }

    /// Records the block count of `path` in `folder` (0 or less: asked, not known — its upload
    /// shows 0 % until the file is current).
    mutating func setTotalBlocks(_ blocks: Int64, folder: String, path: ExactName) {
        totalBlocks[folder, default: [:]][path] = max(blocks, 0)
    }

    /// Keeps only the transfers the need lists read after the events still show: a download of a
    /// path this device no longer needs is over, as is a device's fetch of a path it no longer
    /// needs. Returns whether anything was forgotten.
    mutating func retain(folder: String, localNeed: Set<ExactName>, remoteNeed: [String: Set<ExactName>]) -> Bool {
        let before = self
        if let files = downloads[folder] {
            let kept = files.filter { localNeed.contains($0.key) }
            downloads[folder] = kept.isEmpty ? nil : kept
        }
        if let byDevice = remoteBlocks[folder] {
            var kept: [String: [ExactName: Int64]] = [:]
            for (device, files) in byDevice {
                let needed = remoteNeed[device] ?? []
                let still = files.filter { needed.contains($0.key) }
                if !still.isEmpty { kept[device] = still }
            }
            remoteBlocks[folder] = kept.isEmpty ? nil : kept
        }
        pruneTotals()
        return self != before
    }

    /// Per path of `folder` downloading here: how much is here, 0–100.
    func downloadPercents(folder: String) -> [ExactName: Int64] {
        downloads[folder]?.mapValues(\.percent) ?? [:]
    }

    /// Per path of `folder` another device is fetching from here: per device, how much it holds,
    /// 0–100 (0 while the file's block count is not known).
    func uploadPercents(folder: String) -> [ExactName: [String: Int64]] {
        var out: [ExactName: [String: Int64]] = [:]
        for (device, files) in remoteBlocks[folder] ?? [:] {
            for (path, blocks) in files {
                let total = totalBlocks[folder]?[path] ?? 0
                out[path, default: [:]][device] = BlockProgress(done: blocks, total: total).percent
            }
        }
        return out
    }

    private mutating func forget(device: String) {
        for folder in Array(remoteBlocks.keys) {
            remoteBlocks[folder]?[device] = nil
            if remoteBlocks[folder]?.isEmpty == true { remoteBlocks[folder] = nil }
        }
    }

    /// Block counts of files no device is fetching any more go.
    private mutating func pruneTotals() {
        for (folder, totals) in totalBlocks {
            var inFlight: Set<ExactName> = []
            for files in (remoteBlocks[folder] ?? [:]).values { inFlight.formUnion(files.keys) }
            let kept = totals.filter { inFlight.contains($0.key) }
            totalBlocks[folder] = kept.isEmpty ? nil : kept
        }
    }

    /// An event's files keyed by their bytes, at most ``maxFiles`` (the first in byte order).
    private static func capped<Value>(_ files: [String: Value]) -> [ExactName: Value] {
        // Keys equal as strings were one key already: as bytes they stay apart.
        let exact = Dictionary(files.map { (ExactName($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        guard exact.count > maxFiles else { return exact }
        return Dictionary(uniqueKeysWithValues: exact.sorted { $0.key < $1.key }.prefix(maxFiles).map { ($0.key, $0.value) })
    }
}
