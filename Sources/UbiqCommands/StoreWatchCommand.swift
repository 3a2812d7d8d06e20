import ArgumentParser
import CommandLineSupport
import UbiquityJSON
import UbiquityKit
import UbiquityProtocol

/// `ubiq store watch STORE TABLE`: a live fetch (`store.watch`).
struct StoreWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a table's rows, then every change of them as it happens.",
        usage: "ubiq store watch [<options>] <store> <table>",
        discussion: """
            Takes what fetch takes (--where, --predicate, --related, --sort, --limit). First the \
            rows, as fetch prints them; then each change of the result set, one row a line: + a \
            row that entered it, ~ a row in it that changed (a related row added or taken away \
            too, with --related), - a row that left it, as it was. Changes made anywhere show: \
            by this device's apps, by other devices' logs as the sync engine delivers them.
              + 7d3f0c2a9b1e4d5f8a6b7c8d9e0f1a2b  name=milk
              ~ 00000000000000000000000000000001  name=carrots  quantity=3

            With --json, one event per line, named as in the protocol:
              {"event":"store.gatheringFinished","count":1,"rows":[...],"clock":"s4"}
              {"event":"store.update","added":[...],"changed":[],"removed":[],"clock":"s5"}

            Once the rows are printed it says so on standard error, so a script can wait for \
            that line before changing anything. A reader slower than the changes gets them \
            folded: one update for everything since the one before.

            Examples:
              $ ubiq store watch grocery items --predicate "tags CONTAINS 'mall'"
              $ ubiq store watch grocery items --related tags --json

            Stops on Ctrl-C or SIGTERM (exit 0); exits 1 when the daemon ends the live fetch \
            (its rows grew past the largest answer, say), 3 if the daemon goes away.
            """
    )

    @OptionGroup var fetch: StoreFetchOptions

    func run() async throws {
        let options = fetch.options
        let signals = WatchCommand.exitOnSignals()
        defer { signals.forEach { $0.cancel() } }
        let request = StoreFetchRequest(table: fetch.table, conditions: try StoreFetchCommand.conditions(fetch.conditions),
                                        predicate: fetch.predicate, sortDescriptors: fetch.sort.map(Self.descriptor),
                                        fetchLimit: fetch.limit, related: fetch.related)
        let store = fetch.store, table = fetch.table, container = options.container, json = options.json
        try await options.connection.run(predicate: fetch.predicate) { connection in
            let schema = try await connection.send(StoreDescribe(container: container, store: store)).schema
            let opened = try await PersistentStore.open(store, schema: schema, container: container, connection: connection)
            for try await snapshot in try await opened.fetchedResults(request) {
                for line in Self.lines(snapshot, json: json) { Terminal.output(line) }
                if snapshot.isInitial {
                    // Always, on standard error: a script knows from this line that no change can be missed.
                    let count = snapshot.rows.count
                    Terminal.error("\(counted(count, "row")) of \(table) in store \(store) of \(opened.container); watching for changes (Ctrl-C to stop)")
                }
            }
            throw UbiquityKitError.disconnected(reason: "the connection to ubiquityd ended")
        }
    }

    /// `name`, `name:asc` or `name:desc` as a sort descriptor.
    static func descriptor(_ key: String) -> StoreSortDescriptor {
        if key.hasSuffix(":desc") { return StoreSortDescriptor(key: String(key.dropLast(5)), ascending: false) }
        if key.hasSuffix(":asc") { return StoreSortDescriptor(key: String(key.dropLast(4))) }
        return StoreSortDescriptor(key: key)
    }

    /// What one snapshot prints: the rows (the first), or one line per change; with `json`, one event.
    static func lines(_ snapshot: StoreFetchedSnapshot, json: Bool) -> [String] {
        if json {
            let event: JSONValue
            if snapshot.isInitial {
                event = .object(["event": .string(StoreWatchEvent.gatheringFinishedName), "rows": .array(snapshot.rows.map(Self.json)),
                                 "count": .integer(Int64(snapshot.rows.count)), "clock": .string(snapshot.clock)])
            } else {
                event = .object(["event": .string(StoreWatchEvent.updateName), "added": .array(snapshot.added.map(Self.json)),
                                 "changed": .array(snapshot.changed.map(Self.json)), "removed": .array(snapshot.removed.map(Self.json)),
                                 "clock": .string(snapshot.clock)])
            }
            return [(try? Terminal.json(event)) ?? JSONLine.encode(event)]
        }
        if snapshot.isInitial { return snapshot.rows.map { StoreFetchCommand.text(Self.json($0)) } }
        return snapshot.removed.map { "- " + StoreFetchCommand.text(Self.json($0)) }
            + snapshot.changed.map { "~ " + StoreFetchCommand.text(Self.json($0)) }
            + snapshot.added.map { "+ " + StoreFetchCommand.text(Self.json($0)) }
    }

    /// A row as the daemon sends it: `id`, each column with a value, each related end's ids.
    static func json(_ row: StoreRow) -> JSONValue {
        var fields: [String: JSONValue] = ["id": .string(row.id)]
        for (column, value) in row.values { fields[column] = StoreWire.json(value) }
        for (end, ids) in row.related { fields[end] = .array(ids.map { .string($0) }) }
        return .object(fields)
    }
}
