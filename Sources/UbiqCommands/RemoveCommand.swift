import ArgumentParser
import UbiquityKit

/// `ubiq rm --everywhere`: remove items on every device (UbiquityKit's `Document.delete`).
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove items from their container on every device that syncs it.",
        usage: """
            ubiq rm --everywhere [--json] [<options>] <paths> ...
              ubiq rm --everywhere --data [--container <id>] [--json] [<options>]
            """,
        discussion: """
            Each item — a file, or a package or folder with everything inside — is removed under \
            its coordinated-write lock (a save in progress elsewhere finishes first; live queries \
            hear it go), with your own rights: the daemon lends you none. A sync engine then \
            removes it on your other devices. To free space on this machine only, keep the item \
            elsewhere with `ubiq evict`. Nothing is removed without --everywhere, which says you \
            mean every device.

            With --data, the container's data scope goes as one unit instead: everything \
            outside Documents/ that queries see (what `ubiq storage` counts as data), each \
            top-level entry with everything inside, with your own rights. What the daemon and \
            the sync engine keep there for themselves (the key-value store, relational stores, \
            .stignore) stays: clear those with `ubiq kv rm` and `ubiq store delete`.

            Examples:
              $ ubiq rm --everywhere Documents/Item_1
              $ ubiq rm --everywhere ~/containers/com.example.grocery/Documents/old.gro
              $ ubiq rm --everywhere --data --container com.example.grocery

            Each removed path is printed (--json: {"path":…,"removed":true} per line). The paths \
            are removed in order; the first that cannot be removed stops the command.

            Exit status: 0 success, 1 an item could not be removed (none there, not yours to \
            remove, not in a container), 3 daemon not running, 64 usage error.
            """
    )

    @Argument(help: "The items (relative to the current directory or absolute).")
    var paths: [String] = []

    @Flag(help: "Remove them on every device (required: there is no local-only removal).")
    var everywhere = false

    @Flag(help: "Remove the container's data scope (everything outside Documents/) instead of paths.")
    var data = false

    @Option(help: ArgumentHelp("With --data: the container (default: the first container you may read).", valueName: "id"))
    var container: String?

    @Flag(help: "Print one JSON object per removed item and line.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if data {
            guard paths.isEmpty else { throw ValidationError("--data removes the whole data scope: name no paths with it") }
        } else {
            guard !paths.isEmpty else { throw ValidationError("name at least one item to remove (or --data for the data scope)") }
            guard container == nil else { throw ValidationError("--container goes with --data") }
        }
        guard everywhere else {
            throw ValidationError("ubiq rm removes an item on every device that syncs its container: say --everywhere (to free space here only, use ubiq evict)")
        }
    }

    func run() async throws {
        let absolute = paths.map(PublishCommand.absolute)
        try await connection.run { connection in
            if data {
                let removed = try await ContainerData.delete(container: container, connection: connection)
                if removed.isEmpty { Terminal.error("the data scope is empty: nothing to remove") }
                for path in removed { try said(path) }
                return
            }
            for path in absolute {
                let document = try await Document.open(path, connection: connection)
                try await document.delete()
                try said(path)
            }
        }
    }

    private func said(_ path: String) throws {
        Terminal.output(json ? try Terminal.json(.object(["path": .string(path), "removed": .bool(true)])) : "removed \(path)")
    }
}
