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

    /// Opens (creating when missing) `<container>/.ubiquity-stores/<store>/logs` and `acks`.
    ///
    /// - Throws: ``SystemCallError`` naming the path, e.g. `ELOOP` when one of them is a link.
    @available(*, noasync, message: "creates folders and waits for the disk: run it on a thread of its own")
    public init(container: Directory, store: String) throws(SystemCallError) {
        precondition(StoreLayout.isStoreName(store), "a store's name is checked before its folder is opened")
        try container.makeDirectory(StoreLayout.folder)
        let stores = try container.openDirectory(StoreLayout.folder)
        try stores.makeDirectory(store)
        directory = try stores.openDirectory(store)
        for name in [StoreLayout.logs, StoreLayout.acks] { try directory.makeDirectory(name) }
        logs = try directory.openDirectory(StoreLayout.logs)
    }

    /// The device folders in `logs/` whose names are device ids, in order; other names are
    /// not a device's (a sync engine's temporary files, say) and are left alone.
    public func devices() -> [DeviceID] {
        logs.textNames().compactMap(DeviceID.init).sorted()
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
        try logs.makeDirectory(device.rawValue)
        let folder = try logs.openDirectory(device.rawValue)
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
        let folder: Directory
        do {
            folder = try logs.openDirectory(device.rawValue)
        } catch where error.errno == ENOENT {
            return nil
        } catch {
            return .failure(SegmentFileProblem(code: .segmentMalformed, reason: "its device folder cannot be opened: \(error.message)"))
        }
        switch folder.read(StoreLayout.segmentName(sequence), limit: limit, singleLink: true) {
        case nil: return nil
        case .success(let bytes)?: return .success(bytes)
        case .failure(.tooLarge(let size, let limit))?:
            return .failure(SegmentFileProblem(code: .segmentOversized, reason: "it is \(size) bytes, more than the \(limit) a segment may have"))
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
