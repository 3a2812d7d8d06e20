/// Changes plus what the source wants subscribers to know.
public struct ChangeBatch: Sendable {
    public var sequence: UInt64
    public var changes: [FileSystemChange]
    public var notices: [ChangeNotice]

    public init(sequence: UInt64, changes: [FileSystemChange] = [], notices: [ChangeNotice] = []) {
        self.sequence = sequence
        self.changes = changes
        self.notices = notices
    }
}
