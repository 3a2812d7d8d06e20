/// What a sync engine says about one container's items, as sets (the engine's "need" lists are
/// short: only what is not in sync), from which every item's ``SyncAttributeValues`` follows.
/// Paths are relative to the container's root, `/`-separated, as Syncthing names them, and keyed
/// by their bytes (``ExactName``): a precomposed and a decomposed `café` are two files on Linux,
/// and each has only its own facts. Pure.
public struct ContainerSyncFacts: Sendable, Hashable {
    /// False: the engine is configured for this container but not reached; every value unknown.
    public var known: Bool
    /// The other devices sharing the container.
    public var devices: [String]
    /// Those of them connected now.
    public var connected: Set<String>
    /// Paths this device needs: a newer version is elsewhere (`/rest/db/need`).
    public var localNeed: Set<ExactName>
    /// Per other device, the paths it needs from the others (`/rest/db/remoteneed`).
    public var remoteNeed: [String: Set<ExactName>]
    /// Paths the engine failed to fetch, with why (`/rest/folder/errors`).
    public var pullErrors: [ExactName: String]
    /// When the engine's state was last read whole (nanoseconds since 1970). An item modified
    /// since may not be known to the engine yet: it counts as held by no other device until
    /// ``indexedAt`` says the engine indexed it after its change.
    public var readAt: Int64
    /// Paths the engine indexed after ``readAt``, with when (its `LocalIndexUpdated` events);
    /// a directory or package holds the latest time of anything inside.
    public private(set) var indexedAt: [ExactName: Int64]
    /// Paths being downloaded here with how much is here, 0–100 (the engine's byte progress:
    /// Syncthing's `DownloadProgress`, only for files of 10 blocks or more).
    public var downloadPercents: [ExactName: Int64] = [:]
    /// Paths other devices are fetching from here, with how much each holds, 0–100 (Syncthing's
    /// `RemoteDownloadProgress`, only for files of 10 blocks or more).
    public var uploadPercents: [ExactName: [String: Int64]] = [:]

    /// Every ancestor directory of a path in ``localNeed`` / any ``remoteNeed`` set (a package or
    /// folder is out of sync when anything inside is).
    private var localNeedDirectories: Set<ExactName> = []
    private var remoteNeedDirectories: [String: Set<ExactName>] = [:]

    public init(known: Bool, devices: [String] = [], connected: Set<String> = [], localNeed: Set<ExactName> = [],
                remoteNeed: [String: Set<ExactName>] = [:], pullErrors: [ExactName: String] = [:], readAt: Int64 = 0,
                indexedAt: [ExactName: Int64] = [:]) {
        self.known = known
        self.devices = devices.sorted()
        self.connected = connected
        self.localNeed = localNeed
        self.remoteNeed = remoteNeed
        self.pullErrors = pullErrors
        self.readAt = readAt
        var withAncestors = indexedAt
        for (path, time) in indexedAt {
            for directory in Self.ancestors(of: [path]) where (withAncestors[directory] ?? .min) < time { withAncestors[directory] = time }
        }
        self.indexedAt = withAncestors
        localNeedDirectories = Self.ancestors(of: localNeed)
        remoteNeedDirectories = remoteNeed.mapValues(Self.ancestors(of:))
    }

    public static let unknown = ContainerSyncFacts(known: false)

    static func ancestors(of paths: Set<ExactName>) -> Set<ExactName> {
        var out: Set<ExactName> = []
        for path in paths {
            var bytes = Array(path.string.utf8)
            while let slash = bytes.lastIndex(of: UInt8(ascii: "/")) {
                bytes.removeSubrange(slash...)
                let directory = ExactName(String(decoding: bytes, as: UTF8.self))
                if !out.insert(directory).inserted { break }
            }
        }
        return out
    }

    /// The sync attributes of the item at `relative` (below the container's root, compared by
    /// its bytes), last modified at `modified` (nanoseconds since 1970); a directory or package
    /// counts as needed when anything inside it is.
    ///
    /// - Complexity: a few hash lookups of `relative`'s bytes, two per other device.
    public func values(for relative: ExactName, modified: Int64) -> SyncAttributeValues {
        guard known else { return .unknown }
        if modified >= readAt, (indexedAt[relative] ?? .min) < modified {
            // Changed after the engine was read whole and not indexed since: whatever its lists
            // say, they do not know this version.
            return SyncAttributeValues(downloadingStatus: .current, isDownloading: false, percentDownloaded: 100,
                                       isUploaded: false, isUploading: false, percentUploaded: 0,
                                       uploadedToAllDevices: false, currentVersionDevices: [])
        }
        let downloaded = downloadPercents[relative]
        let neededHere = localNeed.contains(relative) || localNeedDirectories.contains(relative) || downloaded != nil
        let fetchedBy = uploadPercents[relative] ?? [:]
        var holders: [String] = []
        var fetching = false
        // Per device sharing the container: 100 when it holds the current version, else how much
        // of it its fetch holds (0 when no progress is known); their mean is `percentUploaded`.
        var held: Int64 = 0
        for device in devices {
            let needs = remoteNeed[device].map { $0.contains(relative) } ?? true
                || (remoteNeedDirectories[device]?.contains(relative) ?? false)
            if needs {
                if connected.contains(device) || fetchedBy[device] != nil { fetching = true }
                held += min(max(fetchedBy[device] ?? 0, 0), 100)
            } else {
                holders.append(device)
                held += 100
            }
        }
        let percent: Int64 = devices.isEmpty ? 0 : held / Int64(devices.count)
        return SyncAttributeValues(
            downloadingStatus: neededHere ? .downloaded : .current,
            isDownloading: neededHere && pullErrors[relative] == nil,
            percentDownloaded: neededHere ? min(max(downloaded ?? 0, 0), 100) : 100,
            isUploaded: !holders.isEmpty,
            isUploading: fetching,
            percentUploaded: percent,
            uploadedToAllDevices: !devices.isEmpty && holders.count == devices.count,
            downloadingError: pullErrors[relative],
            uploadingError: nil,
            currentVersionDevices: holders)
    }

    /// Paths whose values may differ between `self` and `other`, besides items modified since the
    /// older of the two was read; nil when every item's may (devices, connections or whether the
    /// facts are known changed).
    public func changedPaths(comparedTo other: ContainerSyncFacts) -> Set<ExactName>? {
        guard known == other.known, devices == other.devices, connected == other.connected else { return nil }
        var paths = localNeed.symmetricDifference(other.localNeed)
        for device in Set(remoteNeed.keys).union(other.remoteNeed.keys) {
            paths.formUnion((remoteNeed[device] ?? []).symmetricDifference(other.remoteNeed[device] ?? []))
        }
        for (path, reason) in pullErrors where other.pullErrors[path] != reason { paths.insert(path) }
        for (path, reason) in other.pullErrors where pullErrors[path] != reason { paths.insert(path) }
        for (path, time) in indexedAt where other.indexedAt[path] != time { paths.insert(path) }
        for path in other.indexedAt.keys where indexedAt[path] == nil { paths.insert(path) }
        for (path, percent) in downloadPercents where other.downloadPercents[path] != percent { paths.insert(path) }
        for path in other.downloadPercents.keys where downloadPercents[path] == nil { paths.insert(path) }
        for (path, byDevice) in uploadPercents where other.uploadPercents[path] != byDevice { paths.insert(path) }
        for path in other.uploadPercents.keys where uploadPercents[path] == nil { paths.insert(path) }
        return paths
    }
}
