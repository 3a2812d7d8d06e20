import ArgumentParser

/// `ubiq kv`: the container's key-value store (NSUbiquitousKeyValueStore).
struct KVCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv",
        abstract: "Read, write and watch a container's key-value store.",
        discussion: """
            Every container has a small key-value store for settings that follow you to your \
            other devices, like iCloud's NSUbiquitousKeyValueStore. Each device writes only its \
            own file inside the container and the daemon merges them key by key, the latest \
            write winning, so the sync engine never makes a conflict of it.

            Examples:
              $ ubiq kv set sortOrder name
              $ ubiq kv set launches 3 --type integer
              $ ubiq kv get sortOrder
              name
              $ ubiq kv list
              KEY        TYPE     VALUE
              launches   integer  3
              sortOrder  string   name
              $ ubiq kv watch
              serverChange  sortOrder = date

            Quotas per container: 1024 keys, 1 MiB in total, keys of at most 64 bytes of UTF-8 \
            (the daemon's [key_value] settings).

            Exit status: 0 success, 1 the daemon refused (a quota, say) or the key has no value, \
            2 a value that is not of its --type, 3 daemon not running or connection lost.

            Format and rules: docs/kv-store.md.
            """,
        subcommands: [KVGetCommand.self, KVSetCommand.self, KVRemoveCommand.self, KVListCommand.self, KVWatchCommand.self]
    )
}
