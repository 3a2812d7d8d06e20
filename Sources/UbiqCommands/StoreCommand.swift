import ArgumentParser

/// `ubiq store`: a container's relational stores.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Describe, fetch from and write to a container's relational stores.",
        discussion: """
            A relational store is an app's structured data (Grocery's items and tags): each \
            device writes its own log segments into the container and the daemon merges every \
            device's, column by column, into a local cache. A store is created by an app opening \
            it with its schema; these commands use a store the daemon knows.

            Examples:
              $ ubiq store describe grocery
              $ ubiq store fetch grocery items --where 'quantity>=2' --sort name
              $ ubiq store fetch grocery items --predicate "tags CONTAINS 'mall'"
              $ ubiq store watch grocery items --sort name
              $ ubiq store insert grocery items name=milk quantity=2
              $ ubiq store relate grocery tags 3f0c2a9b1e4d5f8a6b7c8d9e0f1a2b7d mall
              $ ubiq store save grocery '[{"insert":"items","values":{"name":"milk"}}]'
              $ ubiq store status
              $ ubiq store forget grocery tablet

            Exit status: 0 success, 1 the daemon refused (an unknown store or column, say), 2 \
            input that is not JSON, not a condition or a predicate, or does not fit the store's \
            schema (a value of the wrong type, an unknown column), 3 daemon not running or connection lost.

            Model, files and merge rules: docs/stores.md; the wire: docs/protocol.md.
            """,
        subcommands: [StoreDescribeCommand.self, StoreFetchCommand.self, StoreInsertCommand.self, StoreUpdateCommand.self,
                      StoreDeleteCommand.self, StoreRelateCommand.self, StoreUnrelateCommand.self, StoreSaveCommand.self,
                      StoreWatchCommand.self, StoreStatusCommand.self, StoreForgetCommand.self]
    )
}
