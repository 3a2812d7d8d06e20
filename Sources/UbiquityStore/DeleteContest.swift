/// A delete that met an edit it had not seen (an update, an insert at the same generation, a
/// relate or unrelate), and how the store's ``DeletePolicy`` settled it: with `deletes = "lose"`
/// the row was kept, with `deletes = "win"` the edits were overruled.
public struct DeleteContest: Sendable, Hashable, CustomStringConvertible {
    public let row: RowRef
    /// The devices whose deletes met the edits.
    public let deletedBy: [DeviceID]
    /// The devices whose edits the deletes had not seen.
    public let editedBy: [DeviceID]
    /// Whether the row was kept (the edits won).
    public let kept: Bool

    public init(row: RowRef, deletedBy: [DeviceID], editedBy: [DeviceID], kept: Bool) {
        self.row = row
        self.deletedBy = deletedBy
        self.editedBy = editedBy
        self.kept = kept
    }

    public var description: String {
        let deleters = deletedBy.map(\.rawValue).joined(separator: ", "), editors = editedBy.map(\.rawValue).joined(separator: ", ")
        return kept ? "\(row): kept — edited on \(editors) while \(deleters) deleted it"
                    : "\(row): deleted on \(deleters), overruling edits from \(editors)"
    }
}
