/// What a ``Document`` can be, shaped like `UIDocument.State`: several flags may hold at once;
/// none is ``normal``.
public struct DocumentState: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let normal: DocumentState = []
    /// ``Document/close()`` was called, or the connection to the daemon is gone.
    public static let closed = DocumentState(rawValue: 1 << 0)
    /// The item has unresolved conflict versions (from another device, or a stale save here).
    public static let inConflict = DocumentState(rawValue: 1 << 1)
    /// The last save failed; the next successful save clears it.
    public static let savingError = DocumentState(rawValue: 1 << 2)
    /// Another process is in the middle of a coordinated save of the item.
    public static let editingDisabled = DocumentState(rawValue: 1 << 3)

    public var description: String {
        let names = [(DocumentState.closed, "closed"), (.inConflict, "inConflict"), (.savingError, "savingError"),
                     (.editingDisabled, "editingDisabled")].filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "normal" : names.joined(separator: ",")
    }
}
