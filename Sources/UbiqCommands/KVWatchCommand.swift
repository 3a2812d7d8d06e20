import ArgumentParser
import FoundationEssentials
import UbiquityKeyValue
import UbiquityKit
import UbiquityJSON
import UbiquityProtocol

/// `ubiq kv watch`.
struct KVWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print every change made elsewhere: other processes, other devices.",
        usage: "ubiq kv watch [<options>]",
        discussion: """
            One line per changed key: the reason, the key and its new value (- when removed):
              serverChange  sortOrder = date
              serverChange  draft -
            Reasons: serverChange (another process or device), initialSyncChange (the first \
            values from another device), quotaViolationChange (a write was refused for a quota), \
            accountChange.

            When more keys changed than the store may hold, the daemon does not name them: the \
            store is read again, a line says so, and the keys whose values differ follow:
              serverChange  (more keys changed than the daemon lists; read again: 2 differ)
              serverChange  a1 -
              serverChange  b1 = 1

            With --json, one object per change ("reread":true when the store was read again):
              {"reason":"serverChange","removed":[],"values":{"sortOrder":"date"}}

            Once subscribed it says so on standard error, so a script can wait for that line \
            before changing anything. Stops on Ctrl-C or SIGTERM (exit 0); exits 3 if the daemon \
            goes away.
            """
    )

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let signals = WatchCommand.exitOnSignals()
        defer { signals.forEach { $0.cancel() } }
        let options = self.options
        try await options.connection.run { connection in
            let store = try await KeyValueStore.open(options.container, connection: connection)
            // Always, on standard error: a script knows from this line that no change can be missed.
            Terminal.error("watching the key-value store of \(store.container) (Ctrl-C to stop)")
            for await change in store.externalChanges() {
                Self.print(change, store: store, json: options.json)
            }
            throw UbiquityKitError.disconnected(reason: "the connection to ubiquityd ended")
        }
    }

    static func print(_ change: KeyValueStoreChange, store: KeyValueStore, json: Bool) {
        if json {
            var values: [String: JSONValue] = [:]
            var removed: [JSONValue] = []
            for key in change.keys {
                if let value = store.object(forKey: key) { values[key] = value.wire } else { removed.append(.string(key)) }
            }
            var object: [String: JSONValue] = ["reason": .string(change.reason.rawValue), "values": .object(values), "removed": .array(removed)]
            if change.reread { object["reread"] = .bool(true) }
            if let line = try? Terminal.json(.object(object)) { Terminal.output(line) }
            return
        }
        if change.reread {
            Terminal.output("\(change.reason.rawValue)  (more keys changed than the daemon lists; read again: \(change.keys.count) differ)")
        }
        for key in change.keys {
            let shown = store.object(forKey: key).map { " = " + DisplayText.oneLine(KVValueText.show($0)) } ?? " -"
            Terminal.output("\(change.reason.rawValue)  \(DisplayText.oneLine(key))\(shown)")
        }
    }
}
