import UbiquityJSON
public import UbiquityPredicate

/// Writes the lines that carry result items — `query.gatheringFinished`, `query.update`,
/// `query.reset` and the `query.results` response — from the engine's results straight into
/// bytes, in one pass.
///
/// The general path (``ServerEvent/json`` then ``JSONLine/encodeLine(_:)``) builds a
/// `[String: JSONValue]` per item and sorts every object's keys while writing: for a 100k-item
/// answer that was most of the daemon's time and hundreds of MiB of short-lived memory. Here
/// the keys are written in a fixed order, the attribute keys sorted once per query, and each
/// value is written as it is read. The bytes are exactly the general path's (same keys, same
/// order, same escaping, same numbers): `ResultEncoderPropertyTests` compares the two.
///
/// A whole result set read from ``ResultRows`` (the engine's answers) comes back as a
/// ``ResultLine``, which the server writes in pieces while the socket carries the last one.
///
/// ```swift
/// let encoder = ResultEncoder<ResultItem>(attributes: [.name, .size]) {
///     ResultFields(path: $0.path, oldPath: $0.oldPath, values: $0.values)
/// }
/// let line = encoder.reset(query: 3, results: items, clock: token)   // ends with "\n"
/// ```
public struct ResultEncoder<Item>: Sendable {
    /// The attributes a query's items carry and their keys, in the order ``JSONLine`` sorts
    /// object keys.
    private let keys: [ResultKey]
    private let fields: @Sendable (Item) -> ResultFields

    /// - Parameters:
    ///   - attributes: The attributes the query asked for (repeats are ignored).
    ///   - fields: Reads one item. Called once per item per line.
    public init(attributes: [Attribute], fields: @escaping @Sendable (Item) -> ResultFields) {
        keys = ResultKey.sorted(attributes)
        self.fields = fields
    }

    // MARK: - Lines

    /// `query.gatheringFinished` with the full result set (`fresh`: why a `since` query got it;
    /// not `verified`: answered from the saved index before the file system was checked).
    public func gatheringFinished(query: Int, results: [Item], fresh: FreshAnswer?, clock: String?,
                                  verified: Bool = true) -> [UInt8] {
        var line = gatheringFinishedHead(query: query, count: results.count, fresh: fresh, clock: clock,
                                         reserving: estimate(items: results.count))
        items("results", results, &line)
        if !verified { line.literal("verified", "false") }
        return line.finish()
    }

    /// `query.gatheringFinished` with the full result set, read from `rows`, to be written in pieces.
    public func gatheringFinished<Rows: ResultRows>(query: Int, rows: Rows, fresh: FreshAnswer?, clock: String?,
                                                    verified: Bool = true) -> ResultLine<Rows> {
        var line = gatheringFinishedHead(query: query, count: rows.count, fresh: fresh, clock: clock, reserving: 256)
        return resultLine(&line, rows, closing: 1, after: verified ? [] : Array(#","verified":false"#.utf8))
    }

    private func gatheringFinishedHead(query: Int, count: Int, fresh: FreshAnswer?, clock: String?, reserving: Int) -> JSONObjectWriter {
        var line = JSONObjectWriter(reserving: reserving)
        if let clock { line.string("clock", clock) }
        line.integer("count", count)
        line.string("event", ServerEvent.names.gatheringFinished)
        if let fresh {
            line.literal("fresh", "true")
            line.string("freshCode", fresh.code)
        }
        line.integer("query", query)
        if let fresh { line.string("reason", fresh.reason) }
        return line
    }

    /// `query.gatheringFinished` of a query started `since` a clock: the difference, and how
    /// many results the query has now.
    public func gatheringFinished(query: Int, since: String, added: [Item], changed: [Item], removed: [Item], count: Int,
                                  clock: String?, verified: Bool = true) -> [UInt8] {
        var line = JSONObjectWriter(reserving: estimate(items: added.count + changed.count + removed.count))
        items("added", added, &line)
        items("changed", changed, &line)
        if let clock { line.string("clock", clock) }
        line.integer("count", count)
        line.string("event", ServerEvent.names.gatheringFinished)
        line.integer("query", query)
        items("removed", removed, &line)
        line.string("since", since)
        if !verified { line.literal("verified", "false") }
        return line.finish()
    }

    /// `query.update`.
    public func update(query: Int, added: [Item], changed: [Item], removed: [Item], clock: String?) -> [UInt8] {
        var line = JSONObjectWriter(reserving: estimate(items: added.count + changed.count + removed.count))
        items("added", added, &line)
        items("changed", changed, &line)
        if let clock { line.string("clock", clock) }
        line.string("event", ServerEvent.names.update)
        line.integer("query", query)
        items("removed", removed, &line)
        return line.finish()
    }

    /// `query.reset`: the whole current result set.
    public func reset(query: Int, results: [Item], clock: String?) -> [UInt8] {
        var line = resetHead(query: query, count: results.count, clock: clock, reserving: estimate(items: results.count))
        items("results", results, &line)
        return line.finish()
    }

    /// `query.reset`: the whole current result set, read from `rows`, to be written in pieces.
    public func reset<Rows: ResultRows>(query: Int, rows: Rows, clock: String?) -> ResultLine<Rows> {
        var line = resetHead(query: query, count: rows.count, clock: clock, reserving: 256)
        return resultLine(&line, rows, closing: 1)
    }

    private func resetHead(query: Int, count: Int, clock: String?, reserving: Int) -> JSONObjectWriter {
        var line = JSONObjectWriter(reserving: reserving)
        if let clock { line.string("clock", clock) }
        line.integer("count", count)
        line.string("event", ServerEvent.names.reset)
        line.integer("query", query)
        return line
    }

    /// The response to `query.results`: `{"id":…,"result":{"count":…,"query":…,"results":[…]}}`.
    public func queryResults(id: RequestID?, query: Int, results: [Item]) -> [UInt8] {
        var line = queryResultsHead(id: id, query: query, count: results.count, reserving: estimate(items: results.count))
        items("results", results, &line)
        var bytes = line.finish()
        bytes.insert(UInt8(ascii: "}"), at: bytes.count - 1)
        return bytes
    }

    /// The response to `query.results`, read from `rows`, to be written in pieces.
    public func queryResults<Rows: ResultRows>(id: RequestID?, query: Int, rows: Rows) -> ResultLine<Rows> {
        var line = queryResultsHead(id: id, query: query, count: rows.count, reserving: 256)
        return resultLine(&line, rows, closing: 2)
    }

    /// The response up to its results, the `result` object left open.
    private func queryResultsHead(id: RequestID?, query: Int, count: Int, reserving: Int) -> JSONObjectWriter {
        var line = JSONObjectWriter(reserving: reserving)
        line.value("id", id?.json ?? .null)
        line.openObject("result")
        line.integer("count", count)
        line.integer("query", query)
        return line
    }

    /// The line whose head is `line` so far, then `"results":[`, the rows, `]`, `closing`
    /// braces and the newline.
    /// - Parameter after: members of the innermost object after `results` (keys sorted after it).
    private func resultLine<Rows: ResultRows>(_ line: inout JSONObjectWriter, _ rows: Rows, closing: Int,
                                              after: [UInt8] = []) -> ResultLine<Rows> {
        line.key("results")
        line.withBytes { $0.append(UInt8(ascii: "[")) }
        let tail = [UInt8(ascii: "]")] + after + [UInt8](repeating: UInt8(ascii: "}"), count: closing) + [0x0A]
        return ResultLine(head: line.takeOpen(), rows: rows, keys: keys, tail: tail)
    }

    // MARK: - Sizes

    /// A line's size for `items` items of about a hundred bytes of path and a name each.
    private func estimate(items: Int) -> Int { min(max(items, 0), 1 << 24) * 160 }

    // MARK: - Items

    private func items(_ name: StaticString, _ list: [Item], _ line: inout JSONObjectWriter) {
        line.key(name)
        line.withBytes { out in
            out.append(UInt8(ascii: "["))
            // A plain count, not `enumerated()` or `indices`: this generic code runs unspecialised
            // (its callers are in other modules), and each of those looked up type metadata at run
            // time, which cost a fan-out more than the writing itself.
            for i in 0..<list.count {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(fields(list[i]), to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    /// `{"attributes":{…},"oldPath":"…","path":"…"}`.
    private func write(_ item: ResultFields, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"attributes":{"#.utf8)
        let attributesStart = out.count
        var written = 0
        for key in keys {
            guard let value = item.values[key.attribute] else { continue }
            if written > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: key.bytes)
            ResultKey.write(value, to: &out)
            written += 1
        }
        if written != item.values.count {
            // Values for attributes the query did not name: never made by the engine, but the
            // wire must still say exactly what the item holds. Start the object again, sorted.
            out.removeSubrange(attributesStart...)
            rewriteAttributes(item.values, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        if let oldPath = item.oldPath {
            out.append(contentsOf: #","oldPath":"#.utf8)
            JSONLine.writeString(oldPath, to: &out)
        }
        out.append(contentsOf: #","path":"#.utf8)
        JSONLine.writeString(item.path, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    private func rewriteAttributes(_ values: [Attribute: Value], to out: inout [UInt8]) {
        for (i, (attribute, value)) in values.sorted(by: { $0.key.canonicalName < $1.key.canonicalName }).enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONLine.writeString(attribute.canonicalName, to: &out)
            out.append(UInt8(ascii: ":"))
            ResultKey.write(value, to: &out)
        }
    }
}
