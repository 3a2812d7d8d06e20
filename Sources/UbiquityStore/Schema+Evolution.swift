public import UbiquityErrors

extension Schema {
    /// Checks that `newer` only adds to this schema: new tables, new nullable columns, new
    /// relationships, each with a greater version. Rows and segments written with this schema
    /// then mean the same under `newer`, and a device still on this schema can tell that it
    /// must upgrade (segments carry their version) instead of misreading them.
    ///
    /// - Throws: ``StoreErrorCode/schemaNotAdditive`` naming the table, column or relationship.
    public func checkAdditive(to newer: Schema) throws(StoreError) {
        func fail(_ message: String, _ details: [String: String] = [:]) -> StoreError {
            StoreError(.schemaNotAdditive, message, details: details.mapValues { .string($0) })
        }
        if newer.version == version {
            guard newer == self else { throw fail("the schema changed but its version is still \(version); give it version \(version + 1)") }
            return
        }
        guard newer.version > version else { throw fail("version \(newer.version) is older than this store's version \(version)") }
        guard newer.deletes == deletes else {
            throw fail("the delete policy changed from '\(deletes.rawValue)' to '\(newer.deletes.rawValue)': every device must merge deletes the same way")
        }
        for table in tables {
            guard let next = newer.table(table.name) else { throw fail("table '\(table.name)' is gone", ["table": table.name]) }
            guard next.uniqueBy == table.uniqueBy else {
                throw fail("the unique key of '\(table.name)' changed: row ids are derived from it", ["table": table.name])
            }
            for column in table.columns {
                let details = ["table": table.name, "column": column.name]
                guard let after = next.column(column.name) else { throw fail("column '\(table.name).\(column.name)' is gone", details) }
                guard after.type == column.type else {
                    throw fail("column '\(table.name).\(column.name)' changed type from \(column.type) to \(after.type)", details)
                }
                guard after.nullable == column.nullable else {
                    throw fail("column '\(table.name).\(column.name)' became \(after.nullable ? "nullable" : "non-nullable")", details)
                }
            }
            for column in next.columns where table.column(column.name) == nil && !column.nullable {
                throw fail("new column '\(table.name).\(column.name)' must be nullable: rows written before it have no value",
                           ["table": table.name, "column": column.name])
            }
        }
        for r in relationships {
            guard let after = newer.relationship(r.name) else { throw fail("relationship '\(r.name)' is gone", ["relationship": r.name]) }
            guard after == r else {
                throw fail("relationship '\(r.name)' changed (it was \(r.from).\(r.name) ↔ \(r.to).\(r.inverse))", ["relationship": r.name])
            }
        }
    }
}
