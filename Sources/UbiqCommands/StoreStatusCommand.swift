import ArgumentParser
import CommandLineSupport
import UbiquityProtocol

/// `ubiq store status`.
struct StoreStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every open store's sync state, device by device.",
        usage: "ubiq store status [<options>]",
        discussion: """
            Example:
              $ ubiq store status
              grocery of com.example.grocery (schema version 1)
                device 5f0c…  current  imported 12
                device phone  degraded at segment 3: store.segmentChecksum …, 1 waiting
                since opened: 12 rows shrunk to floors, 1 repair written

            The last line shows only when there is something to count (docs/stores.md, "Tombstones shrink to floors"). With --json, the "stores" of the daemon's status, where "floored" and "repairs" are always there.
            """
    )

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let status = try await options.connection.run { try await $0.status() }
        let stores = status.stores.filter { options.container == nil || $0.container == options.container }
        if options.json {
            Terminal.output(try Terminal.json(.array(stores.map(\.json))))
            return
        }
        if stores.isEmpty { Terminal.output("no store is open") }
        for store in stores {
            Terminal.output("\(store.store) of \(store.container) (schema version \(store.schemaVersion))")
            for device in store.devices { Terminal.output("  " + StoreDescribeCommand.device(device)) }
            if store.floored > 0 || store.repairs > 0 {
                Terminal.output("  since opened: \(counted(store.floored, "row")) shrunk to floors, \(counted(store.repairs, "repair")) written")
            }
        }
    }
}
