import UbiquityJSON
import UbiquityProtocol

/// `store.fetch` and `store.watch` as ``StoreFetchRequest`` sends them: UbiquityProtocol's
/// ``StoreFetch`` fields plus `related` and `predicate` (the daemon's newer fields; one that does
/// not know them leaves them out of its answer, and rows then carry no related ids).
struct StoreFetchWire: ProtocolOperation {
    static let name = StoreFetch.name
    typealias Result = StoreFetch.Result

    var fetch: StoreFetch
    var related: [String]
    var predicate: String?

    init(_ fetch: StoreFetch, related: [String], predicate: String?) {
        self.fetch = fetch
        self.related = related
        self.predicate = predicate
    }

    init(_ request: FieldReader) throws(ProtocolError) {
        fetch = try StoreFetch(request)
        related = try request.optionalStrings("related", orSingle: true) ?? []
        predicate = try request.optionalString("predicate")
    }

    var fields: [String: JSONValue] {
        var fields = fetch.fields
        if !related.isEmpty { fields["related"] = .array(related.map { .string($0) }) }
        if let predicate { fields["predicate"] = .string(predicate) }
        return fields
    }
}
