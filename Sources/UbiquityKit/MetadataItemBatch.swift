import UbiquityProtocol

/// Results of ``MetadataQuery/gather(_:)``, in order: those of one read from the daemon.
///
/// An item becomes a ``MetadataItem`` only when asked for; ``writeJSONLines(to:)`` writes the
/// batch as the daemon sent it, without making one (`ubiq query --json` writes 100k items so).
public struct MetadataItemBatch: RandomAccessCollection, Sendable {
    private enum Storage: Sendable {
        /// Items still in the buffer they were read into.
        case encoded(EncodedItems)
        case items([WireItem])
    }

    private let storage: Storage

    init(_ items: EncodedItems) {
        storage = .encoded(items)
    }

    init(_ items: [WireItem]) {
        storage = .items(items)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .encoded(let items): items.count
        case .items(let items): items.count
        }
    }

    public subscript(position: Int) -> MetadataItem {
        switch storage {
        case .encoded(let items): MetadataItem(items.item(position))
        case .items(let items): MetadataItem(items[position])
        }
    }

    /// Appends every item as one JSON object and a `\n`: what ``MetadataItem/writeJSON(to:)``
    /// writes for each, one line per item.
    public func writeJSONLines(to out: inout [UInt8]) {
        switch storage {
        case .encoded(let items):
            items.writeLines(to: &out)
        case .items(let items):
            for item in items {
                item.writeJSON(to: &out)
                out.append(UInt8(ascii: "\n"))
            }
        }
    }
}
