import ArgumentParser
import UbiquityProtocol

/// `ubiq evict`: remove the local copy of a file another device holds (`item.evict`).
struct EvictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evict",
        abstract: "Remove the local copy of an item that another device keeps.",
        discussion: """
            The item stays in queries as downloadingStatus == 'notDownloaded' with its last known \
            size and dates; `ubiq download` brings it back. Evicting needs a sync engine \
            ([sync]) through which a connected device holds the current version, and the right \
            to write the item; only files are evicted. Refusals (exit 1): sync.noEngine (no \
            engine configured), sync.notHeldElsewhere (no connected device holds it: the only \
            copy stays), sync.notAFile, sync.engineUnavailable (the engine is not connected or \
            refused; nothing changed). Prints the path and what happened (--json: the item's \
            path, downloadingStatus and isDownloading).

            Examples:
              $ ubiq evict Documents/Item_1
              $ ubiq evict --json ~/containers/com.example.grocery/Documents/Item_1

            Exit status: 0 success, 1 the daemon refused, 3 daemon not running, 64 usage error.
            """
    )

    @OptionGroup var item: ItemSyncOptions

    func run() async throws {
        try await item.send(ItemEvict(path: item.absolutePath)) { _ in "evicted" }
    }
}
