import ArgumentParser

/// `ubiq store`: a container's relational stores.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Describe, fetch from and save to a container's relational stores.",
        discussion: """
            A relational store is an app's structured data (Grocery's items and tags): each \
            device writes its own log segments into the container and the daemon merges every \
            device's, column by column, into a local cache. A store is created by an app opening \
            it with its schema; these commands use a store the daemon knows.

            Examples:
              $ ubiq store describe grocery
              $ ubiq store fetch grocery items --where 'quantity>=2' --sort name
              $ ubiq store save grocery '[{"insert":"items","values":{"name":"milk"}}]'
              $ ubiq store status

            Exit status: 0 success, 1 the daemon refused (an unknown store or column, say), 2 \
            input that is not JSON or not a condition, 3 daemon not running or connection lost.

            Model, files and merge rules: docs/stores.md; the wire: docs/protocol.md.
            """,
        subcommands: [StoreDescribeCommand.self, StoreFetchCommand.self, StoreSaveCommand.self, StoreStatusCommand.self]
    )
}
