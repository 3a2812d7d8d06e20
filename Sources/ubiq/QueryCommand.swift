import ArgumentParser
import Dispatch
import Foundation
import UbiquityKit
import UbiquityPredicate
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
        let items = try await connection.run(predicate: options.predicate) { connection in
            let metadataQuery = options.makeQuery(on: connection, live: false)
            for try await _ in try await metadataQuery.start() {}
            return metadataQuery.results
        }
        if options.json {
            Terminal.outputLines(items, ItemFormat.writeJSON)
        } else if !items.isEmpty {
            Terminal.output(ItemFormat.table(items, attributes: options.shownAttributes))
        }
    }
}
