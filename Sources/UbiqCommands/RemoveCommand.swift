import ArgumentParser
import UbiquityKit

/// `ubiq rm --everywhere`: remove items on every device (UbiquityKit's `Document.delete`).
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove items from their container on every device that syncs it.",
        usage: "ubiq rm --everywhere [--json] [<options>] <paths> ...",
        discussion: """
            Each item — a file, or a package or folder with everything inside — is removed under \
            its coordinated-write lock (a save in progress elsewhere finishes first; live queries \
            hear it go), with your own rights: the daemon lends you none. A sync engine then \
            removes it on your other devices. To free space on this machine only, keep the item \
            elsewhere with `ubiq evict`. Nothing is removed without --everywhere, which says you \
            mean every device.

            Examples:
              $ ubiq rm --everywhere Documents/Item_1
              $ ubiq rm --everywhere ~/containers/com.example.grocery/Documents/old.gro

            Each removed path is printed (--json: {"path":…,"removed":true} per line). The paths \
            are removed in order; the first that cannot be removed stops the command.

            Exit status: 0 success, 1 an item could not be removed (none there, not yours to \
            remove, not in a container), 3 daemon not running, 64 usage error.
            """
    )

    @Argument(help: "The items (relative to the current directory or absolute).")
    var paths: [String]

    @Flag(help: "Remove them on every device (required: there is no local-only removal).")
    var everywhere = false

    @Flag(help: "Print one JSON object per removed item and line.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("name at least one item to remove") }
        guard everywhere else {
            throw ValidationError("ubiq rm removes an item on every device that syncs its container: say --everywhere (to free space here only, use ubiq evict)")
        }
    }

    func run() async throws {
        let absolute = paths.map(PublishCommand.absolute)
        try await connection.run { connection in
            for path in absolute {
                let document = try await Document.open(path, connection: connection)
                try await document.delete()
                Terminal.output(json ? try Terminal.json(.object(["path": .string(path), "removed": .bool(true)])) : "removed \(path)")
            }
        }
    }
}
