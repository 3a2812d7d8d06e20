import ArgumentParser
import CommandLineSupport
import Dispatch
import FoundationEssentials
import Synchronization
import UbiquityKit
import UbiquityProtocol

/// `ubiq query`: one answer, like `mdfind`.
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run a query once and print the results (like mdfind).",
        usage: "ubiq query [<options>] <predicate> [<arg> ...]",
        discussion: """
            Examples:
              $ ubiq query "name LIKE 'Item_*'" --attr name --attr size --sort size:desc
              $ ubiq query --container com.example.grocery "size > %@" 1000
              $ ubiq query --scope documents --json "modified >= \\$time.today(-7)"

            A table goes to standard output: the attributes, then the path. Dates show in local time. With \
            --json, one object per item and line:
              {"path": ..., "attributes": {...}}

            Exit status: 0 success, 1 the daemon refused, 2 invalid predicate or input, 3 daemon not \
            running or connection lost.
            """
    )

    @OptionGroup var query: QueryOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let options = query
        if options.json {
            // Printed as they arrive: the first lines go out while the rest of the answer is still
            // on its way, and memory stays at a few batches however many results there are.
            // One buffer for every batch (they come one at a time): a fresh megabyte each time
            // is a fresh set of page faults.
            let lines = Mutex<[UInt8]>([])
            let count = try await connection.run(predicate: options.predicate) { connection in
                try await options.makeQuery(on: connection, live: false).gather { batch in
                    lines.withLock { lines in
                        lines.removeAll(keepingCapacity: true)
                        batch.writeJSONLines(to: &lines)
                        StandardStream.write(lines, to: 1)
                    }
                }
            }
            if count == 0 { Terminal.output("") }
            return
        }
        let items = try await connection.run(predicate: options.predicate) { connection in
            let metadataQuery = options.makeQuery(on: connection, live: false)
            for try await _ in try await metadataQuery.start() {}
            return metadataQuery.results
        }
        if !items.isEmpty {
            Terminal.output(ItemFormat.table(items, attributes: options.shownAttributes))
        }
    }
}
