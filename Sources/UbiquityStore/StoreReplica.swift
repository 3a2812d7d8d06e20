public import UbiquityErrors

/// One device's replica of a store, as a pure value: the merged state, the device's clock and
/// its next segment number. ``commit(_:wall:)`` makes the device's own segments (the writer's
/// rules: generations, bases, what a delete had seen); ``receive(_:wall:)`` imports any device's.
///
/// The daemon will hold one per store, persist its parts, and write and read the segment files;
/// the property tests run several side by side and pass segments between them.
///
/// ```swift
/// var laptop = StoreReplica(schema: grocery, device: DeviceID("laptop")!)
/// let carrots = RowID.random(using: &generator)
/// let made = try laptop.commit([.insert(table: "items", id: carrots, values: ["name": .string("carrots")])], wall: now)
/// let result = try phone.receive(made!.segment, wall: now)   // result.inserted == [items/carrots]
/// ```
public struct StoreReplica: Sendable {
    public private(set) var state: StoreState
    public private(set) var clock: HybridLogicalClock
    /// The sequence number the next segment gets.
    public private(set) var nextSequence: UInt64

    public var device: DeviceID { clock.device }
    public var schema: Schema { state.schema }

    public init(schema: Schema, device: DeviceID) {
        self.init(state: StoreState(schema: schema), clock: HybridLogicalClock(device: device), nextSequence: 1)
    }

    /// A replica restored from what the daemon persisted.
    public init(state: StoreState, clock: HybridLogicalClock, nextSequence: UInt64) {
        self.state = state
        self.clock = clock
        self.nextSequence = nextSequence
    }

    /// Moves to a newer schema that only adds (``Schema/checkAdditive(to:)``).
    public mutating func upgrade(to newer: Schema) throws(StoreError) { try state.upgrade(to: newer) }

    /// Turns `operations` into one segment of this device, applies it here, and returns it with
    /// what it changed and the registers of the rows it touched as they were before (absent for
    /// rows never heard of); nil when no operation changes anything (an update to the values a row
    /// has, relating a related pair). Nothing changes when an operation is refused.
    ///
    /// Its cost follows the transaction, not the store: the operations are checked against copies
    /// of the few registers they touch, and the segment is then applied in place.
    ///
    /// - Parameter wall: this device's wall clock, milliseconds since 1970.
    /// - Throws: ``StoreErrorCode/invalidChange`` naming the operation and what is wrong with it.
    public mutating func commit(_ operations: [StoreOperation], wall: Int64) throws(StoreError)
        -> (segment: Segment, result: ImportResult, before: [RowRef: RowState])? {
        guard let written = try Self.write(operations, on: state, clock: clock, wall: wall) else { return nil }
        // The writer, and with it its reference to the state, is gone: applying changes the
        // registers in place rather than copying every one.
        let segment = try Segment(device: device, sequence: nextSequence, schemaVersion: schema.version, changes: written.changes)
        let result = try state.apply(segment)
        clock = written.clock
        nextSequence += 1
        return (segment, result, written.before)
    }

    /// The changes `operations` make to `state`, the clock after them, and the registers they
    /// touched as `state` has them; nil when they change nothing.
    private static func write(_ operations: [StoreOperation], on state: StoreState, clock: HybridLogicalClock, wall: Int64) throws(StoreError)
        -> (changes: [Change], clock: HybridLogicalClock, before: [RowRef: RowState])? {
        var writer = Writer(base: state, clock: clock, wall: wall)
        for (index, operation) in operations.enumerated() {
            do throws(StoreError) {
                try writer.write(operation)
            } catch {
                throw StoreError(.invalidChange, "operation \(index + 1): \(error.message)", details: error.details)
            }
        }
        guard !writer.changes.isEmpty else { return nil }
        return (writer.changes, writer.clock, writer.before)
    }

    /// Imports a segment of any device (this one's too: it changes nothing twice).
    ///
    /// - Throws: ``StoreErrorCode/segmentNeedsUpgrade`` or ``StoreErrorCode/segmentDoesNotMatchSchema``;
    ///   nothing changes then.
    public mutating func receive(_ segment: Segment, wall: Int64) throws(StoreError) -> ImportResult {
        var result = try state.apply(segment)
        if let latest = segment.changes.map(\.clock).max() { result.clockSkew = clock.receive(latest, wall: wall) }
        return result
    }

    /// Shrinks every deleted row to its generation floor and drops the pairs that can never show
    /// again (``StoreState/floorDeletedRows()``): the daemon does it at a quiet point.
    public mutating func floorDeletedRows() -> StoreFloors { state.floorDeletedRows() }

    /// This device's segment of repairs for `refs` (an import's ``ImportResult/repairs``): each
    /// row's whole register as held here, merged by everyone with ``RowState/join(_:)``. Applied
    /// here too (it changes nothing). Nil when none of the rows is known.
    public mutating func repair(_ refs: [RowRef]) throws(StoreError) -> Segment? {
        let repairs = refs.compactMap { ref in state.rowState(ref).map { RowRepair(table: ref.table, row: ref.id, register: $0) } }
        guard !repairs.isEmpty else { return nil }
        let segment = try Segment(device: device, sequence: nextSequence, schemaVersion: schema.version, changes: [], repairs: repairs)
        _ = try state.apply(segment)
        nextSequence += 1
        return segment
    }

    /// Builds a transaction's changes so that each operation sees the ones before it: against the
    /// state as it was (``base``, only read), with every register an operation reads or changes
    /// first copied into ``scratch`` and changed there.
    private struct Writer {
        let base: StoreState
        /// The registers this transaction has read or changed, copied from ``base`` on first use.
        var scratch: StoreState
        var clock: HybridLogicalClock
        let wall: Int64
        var changes: [Change] = []
        /// Tracks nothing: the commit's result comes from applying the finished segment.
        var silent = ImportTracker(enabled: false)

        init(base: StoreState, clock: HybridLogicalClock, wall: Int64) {
            self.base = base
            self.scratch = StoreState(schema: base.schema)
            self.clock = clock
            self.wall = wall
        }

        var me: DeviceID { clock.device }
        var schema: Schema { base.schema }

        /// The registers the changes touched, as ``base`` has them.
        var before: [RowRef: RowState] {
            var registers: [RowRef: RowState] = [:]
            for (table, ids) in scratch.rows {
                for id in ids.keys { if let row = base.rowState(RowRef(table: table, id: id)) { registers[RowRef(table: table, id: id)] = row } }
            }
            return registers
        }

        mutating func rowState(_ ref: RowRef) -> RowState? {
            scratch.borrow(ref, from: base)
            return scratch.rowState(ref)
        }

        mutating func append(_ change: Change) throws(StoreError) {
            try schema.check(change)
            scratch.borrow(registersOf: change, from: base)
            scratch.merge(change, tracking: &silent)
            changes.append(change)
        }

        mutating func alive(_ ref: RowRef) throws(StoreError) -> RowState {
            guard let row = rowState(ref), row.isAlive(schema.deletes) else {
                throw StoreError(.invalidChange, "there is no row \(ref)", details: ["table": .string(ref.table), "row": .string(ref.id.description)])
            }
            return row
        }

        mutating func write(_ operation: StoreOperation) throws(StoreError) {
            switch operation {
            case .insert(let tableName, let given, let values):
                let table = try schema.table(named: tableName)
                for name in values.keys where table.column(name) == nil { try schema.check(.null, in: table, column: name) }
                var id = given
                if table.isUniqueByMeaning {
                    let derived = try MeaningKey.rowID(table: table, values: values)
                    if let given, given != derived {
                        throw StoreError(.invalidChange, "'\(tableName)' is unique by meaning: this key's row is \(derived), not \(given)")
                    }
                    id = derived
                }
                guard let id else {
                    throw StoreError(.invalidChange, "an insert into '\(tableName)' needs a row id (RowID.random)", details: ["table": .string(tableName)])
                }
                let ref = RowRef(table: tableName, id: id)
                let row = rowState(ref)
                if let row, row.isAlive(schema.deletes) {
                    guard table.isUniqueByMeaning else { throw StoreError(.invalidChange, "row \(ref) exists already") }
                    return try write(.update(table: tableName, id: id, values: values))
                }
                // After a delete, the next generation; a generation whose insert has not arrived
                // yet (only later writes of it have), that one: a second insert joins it.
                let known = row?.generation ?? 0
                let generation = known == 0 || !(row?.deletes.isEmpty ?? true) ? known &+ 1 : known
                let columns = values.filter { $0.value != .null }.sorted { $0.key < $1.key }.map { ColumnWrite($0.key, $0.value) }
                let stamp = clock.stamp(after: nil, wall: wall)
                try append(.insert(RowWrite(table: tableName, row: id, generation: generation, clock: stamp, columns: columns)))
            case .update(let tableName, let id, let values):
                let table = try schema.table(named: tableName)
                let row = try alive(RowRef(table: tableName, id: id))
                var changed = values.filter { table.column($0.key) == nil || row.value($0.key) != $0.value }
                // A key column is written with the others, so the change shows it keeps the row's meaning.
                if table.uniqueBy.contains(where: { changed[$0] != nil }) {
                    for key in table.uniqueBy where changed[key] == nil { changed[key] = values[key] ?? row.value(key) }
                }
                guard !changed.isEmpty else { return }
                var columns: [ColumnWrite] = []
                var floor = row.writes.readings[me]
                for (name, value) in changed.sorted(by: { $0.key < $1.key }) {
                    let current = row.columns[name].flatMap { $0.generation == row.generation ? $0.clock : nil }
                    if let current, floor.map({ $0 < current }) ?? true { floor = current }
                    columns.append(ColumnWrite(name, value, base: current))
                }
                let stamp = clock.stamp(after: floor, wall: wall)
                try append(.update(RowWrite(table: tableName, row: id, generation: row.generation, clock: stamp, columns: columns)))
            case .delete(let tableName, let id):
                let row = try alive(RowRef(table: tableName, id: id))
                var seen = row.writes
                seen.merge(row.deletesSaw)
                let stamp = clock.stamp(after: row.writes.readings[me], wall: wall)
                try append(.delete(RowDeletion(table: tableName, row: id, generation: row.generation, clock: stamp, seen: seen)))
            case .relate(let name, let from, let to), .unrelate(let name, let from, let to):
                let isRelate = if case .relate = operation { true } else { false }
                guard let r = schema.relationship(name) else {
                    throw StoreError(.invalidChange, "there is no relationship '\(name)'", details: ["relationship": .string(name)])
                }
                let fromRow = try alive(RowRef(table: r.from, id: from)), toRow = try alive(RowRef(table: r.to, id: to))
                let key = PairKey(relationship: name, from: from, to: to)
                scratch.borrow(key, from: base)
                guard scratch.isShown(key) != isRelate else { return }
                var floor = [fromRow.writes.readings[me], toRow.writes.readings[me]].compactMap { $0 }.max()
                if let pair = scratch.pairState(key), pair.fromGeneration == fromRow.generation, pair.toGeneration == toRow.generation,
                   floor.map({ $0 < pair.clock }) ?? true {
                    floor = pair.clock
                }
                let change = PairChange(relationship: name, from: from, fromGeneration: fromRow.generation, to: to,
                                        toGeneration: toRow.generation, clock: clock.stamp(after: floor, wall: wall))
                try append(isRelate ? .relate(change) : .unrelate(change))
            }
        }
    }
}
