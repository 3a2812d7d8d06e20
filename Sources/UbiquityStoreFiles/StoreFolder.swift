import Glibc
import UbiquityJSON
public import UbiquityStore
public import UbiquitySystem

/// A store's folder in a container (``StoreLayout``), held open by descriptor: segments are
/// read and written relative to it, never through a symbolic link (the door's ``Directory``).
///
/// Every call here waits for the disk: the store runs them on its database's writer queue, never
/// on an actor or Swift's cooperative pool.
public struct StoreFolder: Sendable {
    public let directory: Directory
    let logs: Directory
    let snapshots: Directory

    /// The most bytes of an acknowledgement file read: 1 MiB (1,024 devices need under 100 KiB).
    public static let maxAcknowledgementBytes = 1 << 20

    /// Opens (creating when missing) `<container>/.ubiquity-stores/<store>/logs`, `acks` and `snapshots`.
    ///
    /// - Throws: ``SystemCallError`` naming the path, e.g. `ELOOP` when one of them is a link.
    @available(*, noasync, message: "creates folders and waits for the disk: run it on a thread of its own")
    public init(container: Directory, store: String) throws(SystemCallError) {
        precondition(StoreLayout.isStoreName(store), "a store's name is checked before its folder is opened")
        try container.makeDirectory(StoreLayout.folder)
        let stores = try container.openDirectory(StoreLayout.folder)
        try stores.makeDirectory(store)
        directory = try stores.openDirectory(store)
        for name in [StoreLayout.logs, StoreLayout.acks, StoreLayout.snapshots] { try directory.makeDirectory(name) }
        logs = try directory.openDirectory(StoreLayout.logs)
        snapshots = try directory.openDirectory(StoreLayout.snapshots)
    }

    /// The device folders in `logs/` whose names are device ids, in order; other names are
    /// not a device's (a sync engine's temporary files, say) and are left alone.
    public func devices() -> [DeviceID] {
        logs.textNames().compactMap(DeviceID.init).sorted()
    }

    /// The device folders in `snapshots/` whose names are device ids, in order.
    public func snapshotDevices() -> [DeviceID] {
        snapshots.textNames().compactMap(DeviceID.init).sorted()
    }

    /// The sequence numbers of `device`'s segment files present, in order (temporary names and
    /// anything else skipped).
    @available(*, noasync, message: "lists a folder: run it on a thread of its own")
    public func segmentSequences(of device: DeviceID) -> [UInt64] {
        guard let folder = try? logs.openDirectory(device.rawValue) else { return [] }
        return folder.textNames().compactMap(StoreLayout.sequence(ofSegmentNamed:)).sorted()
    }

    /// The sequence numbers of `device`'s snapshot files present, in order.
    @available(*, noasync, message: "lists a folder: run it on a thread of its own")
    public func snapshotSequences(of device: DeviceID) -> [UInt64] {
        guard let folder = try? snapshots.openDirectory(device.rawValue) else { return [] }
        return folder.textNames().compactMap(StoreLayout.sequence(ofSegmentNamed:)).sorted()
    }

    /// Whether `device`'s segment `sequence` has a name in its folder (whatever the file is).
    @available(*, noasync, message: "examines a folder: run it on a thread of its own")
    public func hasSegment(device: DeviceID, sequence: UInt64) -> Bool {
        guard let folder = try? logs.openDirectory(device.rawValue) else { return false }
        return (try? folder.status(of: Array(StoreLayout.segmentName(sequence).utf8))) ?? nil != nil
    }

    /// Writes this device's snapshot `sequence` durably, as a segment is written (a temporary
    /// name, `fsync`, a link to its name that never replaces a file, the folder `fsync`ed).
    @available(*, noasync, message: "fsync waits for the disk: run it on a thread of its own")
    public func writeSnapshot(_ bytes: [UInt8], device: DeviceID, sequence: UInt64) throws(SystemCallError) {
        try Self.writeImmutable(bytes, in: snapshots, device: device, sequence: sequence)
    }

    /// Removes what a write of this device's snapshots left when it was cut short (`kill -9`
    /// between the temporary file and its link): `.<sequence>.<16 hex digits>.writing` in its own
    /// `snapshots/<device>`, which only this device writes. Called when the store opens.
    @available(*, noasync, message: "lists and removes files: run it on a thread of its own")
    public func removeSnapshotTemporaries(of device: DeviceID) {
        guard let folder = try? snapshots.openDirectory(device.rawValue) else { return }
        for name in folder.textNames() where name.hasPrefix(".") && name.hasSuffix(".writing") {
            let sequence = name.dropFirst().prefix { $0 != "." }
            if StoreLayout.sequence(ofSegmentNamed: String(sequence)) != nil, Directory.isTemporary(name, of: String(sequence)) {
                try? folder.remove(name)
            }
        }
    }

    /// Snapshot `sequence` of `device`: its bytes, nil when it is not there, or why it cannot be
    /// read (a link, not a regular file, larger than `limit`, a folder that is a link).
    public func readSnapshot(device: DeviceID, sequence: UInt64, limit: Int) -> Result<[UInt8], SegmentFileProblem>? {
        Self.read(in: snapshots, device: device, sequence: sequence, limit: limit, what: "a snapshot")
    }

    /// Removes this device's own segment or snapshot `sequence` (compaction); nothing there is fine.
    @available(*, noasync, message: "waits for the disk: run it on a thread of its own")
    public func removeOwn(_ kind: StoreLayout.Kind, device: DeviceID, sequence: UInt64) throws(SystemCallError) {
        let parent = kind == .segment ? logs : snapshots
        let folder: Directory
        do { folder = try parent.openDirectory(device.rawValue) } catch where error.errno == ENOENT { return }
        try folder.remove(StoreLayout.segmentName(sequence))
    }

    /// Every acknowledgement file in `acks/`: per device, how far it imported each device, and
    /// when the file last changed (milliseconds since 1970, as the sync engine kept it). A file
    /// that cannot be read or parsed acknowledges nothing here; the store joins what this reads
    /// over what the files said before (``Acknowledgement/joining(_:over:stillKnown:)``).
    @available(*, noasync, message: "reads files: run it on a thread of its own")
    public func acknowledgements() -> [DeviceID: Acknowledgement] {
        guard let acks = try? directory.openDirectory(StoreLayout.acks) else { return [:] }
        var found: [DeviceID: Acknowledgement] = [:]
        for name in acks.textNames() {
            guard let device = DeviceID(name) else { continue }
            var imported: [DeviceID: UInt64] = [:]
            var readable = false
            if case .success(let bytes)? = acks.read(name, limit: Self.maxAcknowledgementBytes),
               case .object(let object)? = try? JSONLine.parse(bytes) {
                readable = true
                for (key, value) in object {
                    if let other = DeviceID(key), case .integer(let sequence) = value, sequence > 0 { imported[other] = UInt64(sequence) }
                }
            }
            let status = (try? acks.status(of: Array(name.utf8))) ?? nil
            let modified = status.map { Int64($0.st_mtim.tv_sec) &* 1_000 &+ Int64($0.st_mtim.tv_nsec / 1_000_000) } ?? 0
            found[device] = Acknowledgement(imported: imported, modifiedMilliseconds: modified, readable: readable)
        }
        return found
    }

    /// Writes this device's segment `sequence` durably: a temporary name the watcher and
    /// Syncthing ignore (`.N.<random>.writing`), `fsync`, a hard link to its name (never over an
    /// existing file: segments are immutable), the folder `fsync`ed.
    ///
    /// When the name exists with the same bytes (a write finished before a crash and done again
    /// at restart), nothing happens.
    ///
    /// - Throws: ``SystemCallError``; `EEXIST` when the name holds other bytes.
    @available(*, noasync, message: "fsync waits for the disk: run it on a thread of its own")
    public func writeOwn(_ bytes: [UInt8], device: DeviceID, sequence: UInt64) throws(SystemCallError) {
        try Self.writeImmutable(bytes, in: logs, device: device, sequence: sequence)
    }

    /// `<parent>/<device>/<sequence>` created durably and never replaced (``writeOwn(_:device:sequence:)``
    /// says how); the same bytes already there are fine.
    @available(*, noasync, message: "fsync waits for the disk: run it on a thread of its own")
    private static func writeImmutable(_ bytes: [UInt8], in parent: Directory, device: DeviceID, sequence: UInt64) throws(SystemCallError) {
        try parent.makeDirectory(device.rawValue)
        let folder = try parent.openDirectory(device.rawValue)
        let name = StoreLayout.segmentName(sequence)
        do {
            try bytes.withUnsafeBytes { buffer in
                Result { () throws(SystemCallError) in try folder.createNew(name, with: buffer) }
            }.get()
        } catch where error.errno == EEXIST {
            guard case .success(let present)? = folder.read(name, limit: bytes.count + 1), present == bytes else { throw error }
        }
    }

    /// The greatest sequence number among `device`'s segment files (0: none): how far its log
    /// reaches here, imported or not.
    @available(*, noasync, message: "lists a folder: run it on a thread of its own")
    public func latestSequence(of device: DeviceID) -> UInt64 {
        guard let folder = try? logs.openDirectory(device.rawValue) else { return 0 }
        return folder.textNames().compactMap(StoreLayout.sequence(ofSegmentNamed:)).max() ?? 0
    }

    /// Segment `sequence` of `device`: its bytes, nil when it is not there yet, or why it cannot
    /// be read (a link, not a regular file, larger than `limit`, a folder that is a link).
    public func read(device: DeviceID, sequence: UInt64, limit: Int) -> Result<[UInt8], SegmentFileProblem>? {
        Self.read(in: logs, device: device, sequence: sequence, limit: limit, what: "a segment")
    }

    private static func read(in parent: Directory, device: DeviceID, sequence: UInt64, limit: Int, what: String) -> Result<[UInt8], SegmentFileProblem>? {
        let folder: Directory
        do {
            folder = try parent.openDirectory(device.rawValue)
        } catch where error.errno == ENOENT {
            return nil
        } catch {
            return .failure(SegmentFileProblem(code: .segmentMalformed, reason: "its device folder cannot be opened: \(error.message)"))
        }
        switch folder.read(StoreLayout.segmentName(sequence), limit: limit, singleLink: true) {
        case nil: return nil
        case .success(let bytes)?: return .success(bytes)
        case .failure(.tooLarge(let size, let limit))?:
            return .failure(SegmentFileProblem(code: .segmentOversized, reason: "it is \(size) bytes, more than the \(limit) \(what) may have"))
        case .failure(let refusal)?:
            return .failure(SegmentFileProblem(code: .segmentMalformed, reason: refusal.description))
        }
    }

    /// Replaces `acks/<device>` with how far it imported each device: one JSON object,
    /// `{"<device>": <sequence>, …}`, durably.
    @available(*, noasync, message: "fsync waits for the disk: run it on a thread of its own")
    public func writeAcknowledgements(of device: DeviceID, _ imported: [DeviceID: UInt64]) throws(SystemCallError) {
        let acks = try directory.openDirectory(StoreLayout.acks)
        var object: [String: JSONValue] = [:]
        for (other, sequence) in imported { object[other.rawValue] = .integer(Int64(clamping: sequence)) }
        try acks.replace(device.rawValue, with: Array((JSONLine.encode(.object(object)) + "\n").utf8))
    }
}
