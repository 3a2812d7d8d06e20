import Foundation
import UbiquityJSON
import UbiquityTesting

/// One device's connection to its own daemon in the two-device store tests: requests answered,
/// and the `store.changed` events that arrive meanwhile kept until a test asks for them, so a
/// request never swallows the import notification the test is waiting for.
final class StorePeer {
    let name: String
    let client: RawClient
    /// This device's id in the stores (the name of its own log folder), known after `open`.
    private(set) var device = ""
    /// `store.changed` events read but not yet asked for, oldest first.
    private var events: [JSONValue] = []

    init(_ device: TwoDevices.Device) throws {
        name = device.name
        client = try RawClient.greeted(socket: device.socket)
    }

    /// The `result` of request `line`; events before the answer are kept. Throws naming the
    /// device and the whole answer when it is an error.
    func result(_ line: String) throws -> JSONValue {
        let (response, early) = try client.request(line, within: 30)
        events += early.filter { $0["event"]?.stringValue == "store.changed" }
        guard let result = response["result"] else { throw TestDaemonError("on \(name): no result for \(line): \(JSONLine.encode(response))") }
        return result
    }

    /// `store.open` of `store` with `schema` (JSON text); the answer.
    @discardableResult
    func open(_ store: String, schema: String) throws -> JSONValue {
        let opened = try result(#"{"id":1,"op":"store.open","store":"\#(store)","schema":\#(schema)}"#)
        device = opened["device"]?.stringValue ?? ""
        return opened
    }

    /// `store.save` of one transaction made of `changes` (each a change object as JSON text).
    @discardableResult
    func save(_ store: String, _ changes: String...) throws -> JSONValue {
        try result(#"{"id":2,"op":"store.save","store":"\#(store)","changes":[\#(changes.joined(separator: ","))]}"#)
    }

    /// Every row of `table`, by id, with the related ids of the relationship ends in `related`.
    func rows(_ store: String, _ table: String, related: [String] = []) throws -> [String: JSONValue] {
        let ends = related.map { #""\#($0)""# }.joined(separator: ",")
        let fetched = try result(#"{"id":3,"op":"store.fetch","store":"\#(store)","table":"\#(table)","related":[\#(ends)]}"#)
        var rows: [String: JSONValue] = [:]
        for row in fetched["rows"]?.arrayValue ?? [] {
            if let id = row["id"]?.stringValue { rows[id] = row }
        }
        return rows
    }

    /// This device's sync state of `device`'s log in `store` (`store.describe`'s entry).
    func syncState(_ store: String, of device: String) throws -> JSONValue? {
        try result(#"{"id":4,"op":"store.describe","store":"\#(store)"}"#)["devices"]?.arrayValue?.first { $0["device"]?.stringValue == device }
    }

    /// The events kept and not asked for yet, one per line (clock, devices, how many rows each
    /// names), for a failure's message.
    var keptEvents: String {
        events.map { event in
            let count = { (key: String) in event[key]?.arrayValue?.count ?? 0 }
            return "\(event["clock"]?.stringValue ?? "?") from \(event["devices"].map(JSONLine.encode) ?? "?"): "
                + "+\(count("inserted")) ~\(count("updated")) -\(count("deleted"))"
        }.joined(separator: "\n")
    }

    /// The `store.changed` events of `store` — only those naming `source` among their devices,
    /// when given — gathered until `enough` holds for them all, within a deadline. Events of other
    /// stores or devices stay kept for a later call, and so does a gathered event that names
    /// other devices too: the daemon folds what a subscriber has not read yet into one event,
    /// so one import pass that brought two devices' segments may be one event naming both, and
    /// a test that waits for each device in turn must find it again (it once waited 60 s for an
    /// event the wait for the other device had taken).
    func changes(of store: String, from source: String?, within seconds: Double = 60,
                 until enough: ([JSONValue]) -> Bool) throws -> [JSONValue] {
        func wanted(_ event: JSONValue) -> Bool {
            event["store"]?.stringValue == store
                && (source.map { event["devices"]?.arrayValue?.contains(.string($0)) == true } ?? true)
        }
        func namesOthers(_ event: JSONValue) -> Bool {
            guard let source else { return false }
            return (event["devices"]?.arrayValue ?? []).contains { $0.stringValue != source }
        }
        var gathered = events.filter(wanted)
        events.removeAll { wanted($0) && !namesOthers($0) }
        let deadline = Date().addingTimeInterval(seconds)
        while !enough(gathered) {
            guard Date() < deadline else {
                throw TestDaemonError("on \(name): the store.changed of \(store) from \(source ?? "any device") looked for did not come within \(seconds) s; "
                                      + "came: \(gathered.map(JSONLine.encode))")
            }
            let message: JSONValue
            do {
                message = try client.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
            } catch {
                guard Date() >= deadline else { throw error }
                continue
            }
            guard message["event"]?.stringValue == "store.changed" else { continue }
            if wanted(message) { gathered.append(message) }
            if !wanted(message) || namesOthers(message) { events.append(message) }
        }
        return gathered
    }
}
