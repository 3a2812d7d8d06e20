import ArgumentParser
import UbiquityKit

/// `ubiq move-out`: an item out of its container (UbiquityKit's `Document.moveOut`).
struct MoveOutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move-out",
        abstract: "Move an item out of its container: kept here, removed on other devices.",
        usage: "ubiq move-out [--json] [<options>] <source> <destination>",
        discussion: """
            NSFileManager's setUbiquitous false: the item SOURCE leaves its container for \
            DESTINATION, outside every container, under its coordinated-write lock (a save in \
            progress elsewhere finishes first). It stays on this machine; a sync engine removes \
            it on your other devices. With your own rights, never both places nor neither, as \
            for move-in.

            Examples:
              $ cd ~/containers/com.example.grocery
              $ ubiq move-out Documents/notes.txt ~/notes.txt
              $ ubiq move-out --json Documents/Trip.gro /tmp/Trip.gro

            Exit status: 0 moved, 1 not moved (SOURCE not an item, DESTINATION taken or in a \
            container, the kernel refused), 3 daemon not running, 64 usage error.
            """
    )

    @OptionGroup var move: MoveOptions

    func run() async throws {
        try await move.run { connection, source, destination in
            try await Document.open(source, connection: connection).moveOut(to: destination)
        }
    }
}
