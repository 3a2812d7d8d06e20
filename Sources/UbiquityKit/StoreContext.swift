import Synchronization
import UbiquityJSON
public import UbiquityProtocol
public import UbiquityStore

/// Changes collected for one ``PersistentStore``, saved together (`NSManagedObjectContext`'s
/// role): inserts, updates, deletes, relates and unrelates in the order made, then ``save()`` —
/// one transaction, all of it or nothing.
///
/// An insert's id is known at once, so a row inserted here can be related in the same
/// transaction: the id given, or for a table unique by meaning (`uniqueBy`) the one its key
/// values give — the daemon derives the same, so two devices that add the tag `mall` make one
/// row — or else 128 random bits.
public final class StoreContext: Sendable {
    public let store: PersistentStore
    private let changes = Mutex<[StoreSaveChange]>([])

    init(store: PersistentStore) { self.store = store }

    /// Inserts a row into `table` and returns its id (32 lowercase hex digits). Inserting a row of
    /// a table unique by meaning that exists already updates it.
    ///
    /// - Throws: ``ProtocolError`` `store.invalidChange` when `table` is unique by meaning and a key
    ///   column has no string or integer value.
    @discardableResult
    public func insert(into table: String, id: String? = nil, _ values: [String: StoreValue]) throws -> String {
        let rowID: String
        // A derived id is left for the daemon to derive too: the same, by the same rule.
        var sent: String? = nil
        if let id {
            rowID = id
            sent = id
        } else if let schema = store.schema.tables.first(where: { $0.name == table }), !schema.uniqueBy.isEmpty {
            do { rowID = try MeaningKey.rowID(table: schema, values: values).description } catch {
                throw ProtocolError(.init(error.code), error.message, details: error.details)
            }
        } else {
            var generator = SystemRandomNumberGenerator()
            rowID = RowID.random(using: &generator).description
            sent = rowID
        }
        append(.insert(table: table, id: sent, values: values.mapValues(StoreWire.json)))
        return rowID
    }

    /// Sets the given columns of a row; `.null` clears one.
    public func update(_ table: String, id: String, _ values: [String: StoreValue]) {
        append(.update(table: table, id: id, values: values.mapValues(StoreWire.json)))
    }

    public func delete(from table: String, id: String) { append(.delete(table: table, id: id)) }

    /// Adds the pair (`from` a row of the relationship's `from` table).
    public func relate(_ relationship: String, from: String, to: String) {
        append(.relate(relationship: relationship, from: from, to: to))
    }

    public func unrelate(_ relationship: String, from: String, to: String) {
        append(.unrelate(relationship: relationship, from: from, to: to))
    }

    /// Whether there is anything to save.
    public var hasChanges: Bool { changes.withLock { !$0.isEmpty } }

    /// The changes not saved yet, in order.
    public var pendingChanges: [StoreSaveChange] { changes.withLock { $0 } }

    /// Forgets the changes not saved yet.
    public func rollback() { changes.withLock { $0.removeAll() } }

    /// Saves the changes made so far as one transaction; returns once it is on disk. On success
    /// they are forgotten (changes made while it was saved stay for the next save); when it
    /// fails nothing was saved and they stay, to correct or ``rollback()``. Nothing to save
    /// sends nothing and returns nil.
    ///
    /// - Throws: ``ProtocolError`` `store.invalidChange` naming the change (`changes[2]: …`),
    ///   `store.forbidden`; ``UbiquityKitError`` when the daemon cannot be reached.
    @discardableResult
    public func save() async throws -> StoreSave.Result? {
        let batch = changes.withLock { $0 }
        guard !batch.isEmpty else { return nil }
        let result = try await store.save(batch)
        changes.withLock { $0.removeFirst(min(batch.count, $0.count)) }
        return result
    }

    private func append(_ change: StoreSaveChange) { changes.withLock { $0.append(change) } }
}
