import ArgumentParser
import UbiquityProtocol

/// `ubiq download`: start fetching an item's current version from another device (`item.download`).
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Start fetching the current version of an item from another device.",
        usage: "ubiq download [--force] [<options>] <path>",
        discussion: """
            Answers once the download has started; follow it with a live query of \
            isDownloading, percentDownloaded and downloadingStatus (`ubiq watch --attr \
            percentDownloaded "name == 'Item_1'"`). An item that is here already is left as it \
            is (a newer version elsewhere is moved to the front of the engine's queue); --force \
            asks nothing more of Syncthing, which cannot fetch a current copy again. \
            Downloading needs a sync engine ([sync]) and the right to read the item; without \
            one it is refused with sync.noEngine (exit 1), and with sync.engineUnavailable when \
            the engine is not connected. Prints the path and what happened (--json: the item's \
            path, downloadingStatus and isDownloading).

            Examples:
              $ ubiq download Documents/Item_1
              $ ubiq download --force Documents/Item_1

            Exit status: 0 success, 1 the daemon refused, 3 daemon not running, 64 usage error.
            """
    )

    @Flag(help: "Fetch it again even when the local copy is current.")
    var force = false

    @OptionGroup var item: ItemSyncOptions

    func run() async throws {
        try await item.send(ItemDownload(path: item.absolutePath, force: force)) { state in
            state.isDownloading ? "downloading" : state.downloadingStatus == "current" ? "here already" : "not downloading"
        }
    }
}
