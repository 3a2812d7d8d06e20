import ArgumentParser
import CommandLineSupport
import UbiquityProtocol
import UbiquityStore

/// What `ubiq store insert`, `update`, `delete`, `relate` and `unrelate` share: on one
/// connection, the store's schema (`store.describe`), the change made from the command line with
/// it, and one `store.save`; the answer printed.
enum StoreWrite {
    /// Saves the change `make` builds from the schema in force. A command line that does not fit
    /// the schema is reported (exit 2) before anything is sent; what the daemon refuses, exit 1.
    static func save(store: String, options: ContainerOptions,
                     _ make: @escaping @Sendable (Schema) throws(StoreValueTextError) -> StoreSaveChange) async throws -> StoreSave.Result {
        let container = options.container
        return try await options.connection.run { connection in
            let described = try await connection.send(StoreDescribe(container: container, store: store))
            let change: StoreSaveChange
            do {
                change = try make(described.schema)
            } catch {
                Terminal.error("\(error)")
                throw ExitCode(CommandFailure.invalidInput)
            }
            return try await connection.send(StoreSave(container: container, store: store, changes: [change]))
        }
    }

    /// The answer: with `--json` as the daemon gave it; otherwise the inserted ids, one a line.
    static func print(_ saved: StoreSave.Result, json: Bool) throws {
        if json {
            Terminal.output(try Terminal.json(saved.json))
        } else {
            for id in saved.inserted { Terminal.output(id) }
        }
    }
}
