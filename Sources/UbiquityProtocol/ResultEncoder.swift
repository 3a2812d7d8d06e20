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
/// ```swift
/// let encoder = ResultEncoder<ResultItem>(attributes: [.name, .size]) {
///     ResultFields(path: $0.path, oldPath: $0.oldPath, values: $0.values)
/// }
/// let line = encoder.reset(query: 3, results: items, clock: token)   // ends with "\n"
/// ```
public struct ResultEncoder<Item>: Sendable {
    /// The attributes a query's items carry and their keys (`"kMDItemFSName":`), in the order
    /// ``JSONLine`` sorts object keys.
    private let keys: [(attribute: Attribute, key: [UInt8])]
    private let fields: @Sendable (Item) -> ResultFields

    /// - Parameters:
    ///   - attributes: The attributes the query asked for (repeats are ignored).
    ///   - fields: Reads one item. Called once per item per line.
    public init(attributes: [Attribute], fields: @escaping @Sendable (Item) -> ResultFields) {
        var seen = Set<Attribute>()
        keys = attributes.filter { seen.insert($0).inserted }
            .sorted { $0.canonicalName < $1.canonicalName }
            .map { attribute in
                var key: [UInt8] = []
                JSONLine.writeString(attribute.canonicalName, to: &key)
                key.append(UInt8(ascii: ":"))
                return (attribute, key)
            }
        self.fields = fields
    }

    // MARK: - Lines

    /// `query.gatheringFinished` with the full result set (`fresh`: why a `since` query got it).
    public func gatheringFinished(query: Int, results: [Item], fresh: FreshAnswer?, clock: String?) -> [UInt8] {
        gatheringFinished(query: query, count: results.count, estimate: estimate(items: results.count), fresh: fresh, clock: clock) {
            write(fields(results[$0]), to: &$1)
        }
    }

    /// `query.gatheringFinished` with the full result set, read from `rows`.
    public func gatheringFinished<Rows: ResultRows>(query: Int, rows: Rows, fresh: FreshAnswer?, clock: String?) -> [UInt8] {
        gatheringFinished(query: query, count: rows.count, estimate: estimate(rows), fresh: fresh, clock: clock) { write(rows, $0, to: &$1) }
    }

    private func gatheringFinished(query: Int, count: Int, estimate: Int, fresh: FreshAnswer?, clock: String?,
                                   item: (Int, inout [UInt8]) -> Void) -> [UInt8] {
        var line = JSONObjectWriter(reserving: estimate)
        if let clock { line.string("clock", clock) }
        line.integer("count", count)
        line.string("event", ServerEvent.names.gatheringFinished)
        if let fresh {
            line.literal("fresh", "true")
            line.string("freshCode", fresh.code)
        }
        line.integer("query", query)
        if let fresh { line.string("reason", fresh.reason) }
        items("results", count: count, &line, item)
        return line.finish()
    }

    /// `query.gatheringFinished` of a query started `since` a clock: the difference, and how
    /// many results the query has now.
    public func gatheringFinished(query: Int, since: String, added: [Item], changed: [Item], removed: [Item], count: Int,
                                  clock: String?) -> [UInt8] {
        var line = JSONObjectWriter(reserving: estimate(items: added.count + changed.count + removed.count))
        items("added", added, &line)
        items("changed", changed, &line)
        if let clock { line.string("clock", clock) }
        line.integer("count", count)
        line.string("event", ServerEvent.names.gatheringFinished)
        line.integer("query", query)
        items("removed", removed, &line)
        line.string("since", since)
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
        reset(query: query, count: results.count, estimate: estimate(items: results.count), clock: clock) { write(fields(results[$0]), to: &$1) }
    }

    /// `query.reset`: the whole current result set, read from `rows`.
    public func reset<Rows: ResultRows>(query: Int, rows: Rows, clock: String?) -> [UInt8] {
        reset(query: query, count: rows.count, estimate: estimate(rows), clock: clock) { write(rows, $0, to: &$1) }
    }

    private func reset(query: Int, count: Int, estimate: Int, clock: String?, item: (Int, inout [UInt8]) -> Void) -> [UInt8] {
        var line = JSONObjectWriter(reserving: estimate)
        if let clock { line.string("clock", clock) }
        line.integer("count", count)
        line.string("event", ServerEvent.names.reset)
        line.integer("query", query)
        items("results", count: count, &line, item)
        return line.finish()
    }

    /// The response to `query.results`: `{"id":…,"result":{"count":…,"query":…,"results":[…]}}`.
    public func queryResults(id: RequestID?, query: Int, results: [Item]) -> [UInt8] {
        queryResults(id: id, query: query, count: results.count, estimate: estimate(items: results.count)) {
            write(fields(results[$0]), to: &$1)
        }
    }

    /// The response to `query.results`, read from `rows`.
    public func queryResults<Rows: ResultRows>(id: RequestID?, query: Int, rows: Rows) -> [UInt8] {
        queryResults(id: id, query: query, count: rows.count, estimate: estimate(rows)) { write(rows, $0, to: &$1) }
    }

    private func queryResults(id: RequestID?, query: Int, count: Int, estimate: Int, item: (Int, inout [UInt8]) -> Void) -> [UInt8] {
        var line = JSONObjectWriter(reserving: estimate)
        line.value("id", id?.json ?? .null)
        line.object("result") { result in
            result.integer("count", count)
            result.integer("query", query)
            items("results", count: count, &result, item)
        }
        return line.finish()
    }

    // MARK: - Sizes

    /// A line's size for `items` items of about a hundred bytes of path and a name each.
    private func estimate(items: Int) -> Int { min(max(items, 0), 1 << 24) * 160 }

    /// A line's size for `rows`, from the bytes of their paths: each row's path, its name (at
    /// most as long), its keys, a few dozen bytes for any other value, and room for escapes.
    private func estimate<Rows: ResultRows>(_ rows: Rows) -> Int {
        let count = min(max(rows.count, 0), 1 << 24)
        let keyBytes = keys.reduce(0) { $0 + $1.key.count + ($1.attribute == .name ? 1 : 32) }
        let path = min(max(rows.pathBytes, 0), 1 << 32)
        let name = keys.contains { $0.attribute == .name } ? path : 0
        return count * (32 + keyBytes) + path + name + (path + name) / 8
    }

    // MARK: - Items

    private func items(_ name: StaticString, _ list: [Item], _ line: inout JSONObjectWriter) {
        items(name, count: list.count, &line) { write(fields(list[$0]), to: &$1) }
    }

    private func items(_ name: StaticString, count: Int, _ line: inout JSONObjectWriter, _ item: (Int, inout [UInt8]) -> Void) {
        line.key(name)
        line.withBytes { out in
            out.append(UInt8(ascii: "["))
            for i in 0..<max(count, 0) {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item(i, &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    /// Row `i` of `rows`, as ``write(_:to:)`` writes an item that has no `oldPath`.
    private func write<Rows: ResultRows>(_ rows: Rows, _ i: Int, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"attributes":{"#.utf8)
        var written = 0
        for (attribute, key) in keys {
            if attribute == .name, let _ = rows.withName(i, { name in
                if written > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: key)
                JSONLine.writeString(utf8: name, to: &out)
                written += 1
            }) { continue }
            guard let value = rows.value(i, attribute) else { continue }
            if written > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: key)
            write(value, to: &out)
            written += 1
        }
        out.append(contentsOf: #"},"path":"#.utf8)
        rows.withPath(i) { JSONLine.writeString(utf8: $0, to: &out) }
        out.append(UInt8(ascii: "}"))
    }

    /// `{"attributes":{…},"oldPath":"…","path":"…"}`.
    private func write(_ item: ResultFields, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"attributes":{"#.utf8)
        let attributesStart = out.count
        var written = 0
        for (attribute, key) in keys {
            guard let value = item.values[attribute] else { continue }
            if written > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: key)
            write(value, to: &out)
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
            write(value, to: &out)
        }
    }

    /// A value as ``Value/json`` renders it; a list's elements one by one, without the array.
    private func write(_ value: Value, to out: inout [UInt8]) {
        guard case .list(let elements) = value else {
            JSONLine.write(value.json, to: &out)
            return
        }
        out.append(UInt8(ascii: "["))
        for (i, element) in elements.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            write(element, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
