public import UbiquityErrors

/// A device's picture of a store's merged state, as it writes it to
/// `…/snapshots/<device>/<sequence>` every so many of its own segments: every row's and pair's
/// merge register (tombstones included), and how far it had imported each device's log
/// (``watermarks``), so that the state is exactly the merge of those segments and nothing else.
///
/// A device that joins late, or lost its cache, or meets a log whose first segments were
/// compacted away, joins it (``StoreState/join(_:)``) and imports the segments after its
/// watermarks. The format, byte by byte, is in docs/stores.md ("Snapshots"):
/// ``encoded()``, ``init(decoding:schema:limits:)``.
public struct Snapshot: Sendable, Equatable {
    /// The first four bytes of every snapshot: `UBQN`.
    public static let magic: [UInt8] = Array("UBQN".utf8)
    /// The format this code writes and the newest it reads.
    public static let formatVersion: UInt16 = 1

    /// The device that wrote it.
    public let device: DeviceID
    /// The last of its own segments it covers: its name in `snapshots/<device>/`.
    public let sequence: UInt64
    public let schemaVersion: UInt32
    /// The writer's clock's latest reading when it wrote it (a reader's clock moves past it).
    public let clock: HLC
    /// For each device, the last of its segments merged into ``state`` (the writer's own is
    /// ``sequence``). Devices absent: none of theirs.
    public let watermarks: [DeviceID: UInt64]
    public let state: StoreState

    /// - Throws: ``StoreErrorCode/invalidChange`` when `watermarks` does not give the writer
    ///   `sequence`, or `clock` is another device's.
    public init(device: DeviceID, sequence: UInt64, clock: HLC, watermarks: [DeviceID: UInt64], state: StoreState) throws(StoreError) {
        guard sequence >= 1, watermarks[device] == sequence else {
            throw StoreError(.invalidChange, "a snapshot of device \(device) at sequence \(sequence) must give that device's watermark as \(sequence)")
        }
        guard clock.device == device else { throw StoreError(.invalidChange, "a snapshot's clock reading is its writer's, not \(clock.device)'s") }
        self.device = device
        self.sequence = sequence
        self.schemaVersion = state.schema.version
        self.clock = clock
        self.watermarks = watermarks
        self.state = state
    }

    /// Fixed header offsets (docs/stores.md, "Snapshots").
    enum Header {
        static let version = 4, flags = 6, length = 8, schemaVersion = 16, sequence = 20, deviceLength = 28, fixedBytes = 29
        static let checksumBytes = 32
    }
}
