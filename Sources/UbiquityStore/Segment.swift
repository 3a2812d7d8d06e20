public import UbiquityErrors

/// One transaction of one device, as it is written to `…/logs/<device>/<sequence>`: the ordered
/// changes, the device that made them, its sequence number and the schema version they were
/// written with; or the *repairs* of rows an import brought back (``repairs``: format 2). The format, byte by byte, is in docs/stores.md (``encoded()``, ``init(decoding:limits:readerSchemaVersion:)``).
public struct Segment: Sendable, Hashable {
    /// The first four bytes of every segment: `UBQS`.
    public static let magic: [UInt8] = Array("UBQS".utf8)
    /// The newest format this code reads and writes: 2, a segment with ``repairs``. A segment
    /// without repairs is written in format 1, so that older readers read it.
    public static let formatVersion: UInt16 = 2

    public let device: DeviceID
    /// The device's count of its segments: 1, 2, 3, … with no gaps.
    public let sequence: UInt64
    public let schemaVersion: UInt32
    public let changes: [Change]
    /// Rows' whole registers this device repairs others with (docs/stores.md, "Tombstones shrink
    /// to floors"), merged after the changes; empty in a transaction of the device's own.
    public let repairs: [RowRepair]

    /// The format ``encoded()`` writes: 1, or 2 when the segment carries repairs.
    public var format: UInt16 { repairs.isEmpty ? 1 : 2 }

    /// - Throws: ``StoreErrorCode/invalidChange`` when a change is stamped by another device
    ///   (a device writes only its own changes), names something no schema could, writes a column
    ///   twice, gives an insert a base reading, or when a generation or the schema version is 0.
    public init(device: DeviceID, sequence: UInt64, schemaVersion: UInt32, changes: [Change], repairs: [RowRepair] = []) throws(StoreError) {
        guard schemaVersion >= 1 else { throw StoreError(.invalidChange, "a segment's schema version must be 1 or more") }
        for (index, change) in changes.enumerated() {
            guard change.clock.device == device else {
                throw StoreError(.invalidChange, "change \(index + 1) is stamped by device \(change.clock.device), not by the segment's device \(device)")
            }
            let (generations, columns): ([UInt64], [ColumnWrite]) = switch change {
            case .insert(let w), .update(let w): ([w.generation], w.columns)
            case .delete(let d): ([d.generation], [])
            case .relate(let p), .unrelate(let p): ([p.fromGeneration, p.toGeneration], [])
            }
            let names: [String] = switch change {
            case .insert(let w), .update(let w): [w.table] + w.columns.map(\.name)
            case .delete(let d): [d.table]
            case .relate(let p), .unrelate(let p): [p.relationship]
            }
            if let bad = names.first(where: { !Schema.isName($0) }) {
                throw StoreError(.invalidChange, "change \(index + 1) names '\(bad)', which cannot name a table, column or relationship")
            }
            guard !generations.contains(0) else { throw StoreError(.invalidChange, "change \(index + 1) has generation 0; rows start at 1") }
            guard Set(columns.map(\.name)).count == columns.count else {
                throw StoreError(.invalidChange, "change \(index + 1) writes a column twice")
            }
            if case .insert = change, columns.contains(where: { $0.base != nil }) {
                throw StoreError(.invalidChange, "change \(index + 1) is an insert with a base reading: an insert replaces nothing")
            }
        }
        for (index, repair) in repairs.enumerated() {
            guard Schema.isName(repair.table) else {
                throw StoreError(.invalidChange, "repair \(index + 1) names '\(repair.table)', which cannot name a table")
            }
            guard repair.register.generation >= 1 else { throw StoreError(.invalidChange, "repair \(index + 1) has generation 0; rows start at 1") }
        }
        self.device = device
        self.sequence = sequence
        self.schemaVersion = schemaVersion
        self.changes = changes
        self.repairs = repairs
    }
}
