import UbiquityJSON
public import UbiquityErrors

extension Schema {
    /// Checks that every change of `segment` fits this schema: its version is not newer, the
    /// tables, columns and relationships exist, values have their column's type, inserts give
    /// every non-nullable column, and rows of tables unique by meaning carry the id of their key;
    /// and that each repair's table exists and its columns do, with values of their type.
    ///
    /// - Throws: ``StoreErrorCode/segmentNeedsUpgrade`` or ``StoreErrorCode/segmentDoesNotMatchSchema``
    ///   naming the device, the sequence, the change and what does not fit.
    public func check(_ segment: Segment) throws(StoreError) {
        let origin = "segment \(segment.sequence) of device \(segment.device)"
        guard segment.schemaVersion <= version else {
            throw StoreError(.segmentNeedsUpgrade, "\(origin) was written with schema version \(segment.schemaVersion); this device has version \(version): upgrade to import it",
                             details: ["device": .string(segment.device.rawValue), "sequence": .integer(Int64(bitPattern: segment.sequence)),
                                       "schemaVersion": .integer(Int64(segment.schemaVersion))])
        }
        for (index, change) in segment.changes.enumerated() {
            try checking(segment, origin, part: "change", index) { () throws(StoreError) in try check(change) }
        }
        for (index, repair) in segment.repairs.enumerated() {
            try checking(segment, origin, part: "repair", index) { () throws(StoreError) in
                let table = try table(named: repair.table)
                for (name, column) in repair.register.columns.sorted(by: { $0.key < $1.key }) { try check(column.value, in: table, column: name) }
            }
        }
    }

    /// Runs `check` on one part of a segment (`change 3`, `repair 1`); what it throws becomes
    /// ``StoreErrorCode/segmentDoesNotMatchSchema`` naming the segment and the part.
    private func checking(_ segment: Segment, _ origin: String, part: String, _ index: Int,
                          _ check: () throws(StoreError) -> Void) throws(StoreError) {
        do throws(StoreError) {
            try check()
        } catch {
            var details = error.details
            details["device"] = .string(segment.device.rawValue)
            details["sequence"] = .integer(Int64(bitPattern: segment.sequence))
            details[part] = .integer(Int64(index + 1))
            throw StoreError(.segmentDoesNotMatchSchema, "\(origin), \(part) \(index + 1): \(error.message)", details: details)
        }
    }

    /// Checks one change, as a writer's (``StoreErrorCode/invalidChange``).
    func check(_ change: Change) throws(StoreError) {
        switch change {
        case .insert(let write), .update(let write):
            let isInsert = if case .insert = change { true } else { false }
            let table = try table(named: write.table)
            for column in write.columns { try check(column.value, in: table, column: column.name) }
            if isInsert {
                // A column written twice in one change counts with its last value.
                for column in table.columns where !column.nullable && (write.columns.last { $0.name == column.name }?.value ?? .null) == .null {
                    throw StoreError(.invalidChange, "an insert into '\(table.name)' leaves the non-nullable column '\(column.name)' without a value",
                                     details: ["table": .string(table.name), "column": .string(column.name)])
                }
            }
            if table.isUniqueByMeaning {
                var values: [String: StoreValue] = [:]
                for column in write.columns { values[column.name] = column.value }
                guard isInsert || table.uniqueBy.contains(where: { values[$0] != nil }) else { return }
                let id = try MeaningKey.rowID(table: table, values: values)
                guard id == write.row else {
                    throw StoreError(.invalidChange, "'\(table.name)' is unique by meaning: a row with this key has id \(id), not \(write.row) (an update must keep the key's meaning and give all its columns)",
                                     details: ["table": .string(table.name)])
                }
            }
        case .delete(let deletion):
            _ = try table(named: deletion.table)
        case .relate(let pair), .unrelate(let pair):
            guard relationship(pair.relationship) != nil else {
                throw StoreError(.invalidChange, "there is no relationship '\(pair.relationship)'", details: ["relationship": .string(pair.relationship)])
            }
        }
    }

    func table(named name: String) throws(StoreError) -> TableSchema {
        guard let table = table(name) else {
            throw StoreError(.invalidChange, "there is no table '\(name)'", details: ["table": .string(name)])
        }
        return table
    }

    func check(_ value: StoreValue, in table: TableSchema, column name: String) throws(StoreError) {
        // Built only for a value refused: this check runs for every column of every change imported.
        var details: [String: JSONValue] { ["table": .string(table.name), "column": .string(name)] }
        guard let column = table.column(name) else {
            let hint = relationships.contains { ($0.from == table.name && $0.name == name) || ($0.to == table.name && $0.inverse == name) }
                ? " ('\(name)' is a relationship: relate or unrelate rows)" : ""
            throw StoreError(.invalidChange, "table '\(table.name)' has no column '\(name)'\(hint)", details: details)
        }
        guard column.accepts(value) else {
            let wanted = column.nullable ? "\(column.type) or null" : "\(column.type)"
            let found = value.type == column.type ? "a double that is not finite" : value.kindNoun
            throw StoreError(.invalidChange, "column '\(table.name).\(name)' holds \(wanted), not \(found)", details: details)
        }
    }
}
