import UbiquityJSON

/// What a line says before its first list of result items (``JSONScanner/firstItemList()``):
/// where that list starts, under which key, and the `event` and `query` members that came before
/// it — enough to know whose answer is arriving before the rest of the line has.
package struct ListHead: Sendable, Equatable {
    /// Where the list's `[` is in the line.
    package let listStart: Int
    /// `results`, `added`, `changed` or `removed`.
    package let key: String
    private let event: JSONValue?
    private let query: JSONValue?

    init(listStart: Int, key: String, event: JSONValue?, query: JSONValue?) {
        self.listStart = listStart
        self.key = key
        self.event = event
        self.query = query
    }

    /// The query whose gathered results the list is, when the line is a `query.gatheringFinished`
    /// with its full result set (a query started with `since` gets `added` first instead).
    package var gatheredResultsOf: Int? {
        guard key == "results", event == .string(ServerEvent.names.gatheringFinished),
              case .integer(let id)? = query else { return nil }
        return Int(exactly: id)
    }
}
