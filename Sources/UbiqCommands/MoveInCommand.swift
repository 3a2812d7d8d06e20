import ArgumentParser
import UbiquityKit

/// `ubiq move-in`: a local item into a container (UbiquityKit's `Document.moveIn`).
struct MoveInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move-in",
        abstract: "Move a local file or folder into a container, so that it syncs.",
        usage: "ubiq move-in [--json] [<options>] <source> <destination>",
        discussion: """
            A move, not a copy (NSFileManager's setUbiquitous true): the item leaves SOURCE, \
            outside every container, and becomes the item DESTINATION inside one; a sync engine \
            then sends it to your other devices. With your own rights. On one file system it is \
            one rename; across file systems the item is copied beside DESTINATION under a hidden \
            name, made durable, renamed into place, then removed at SOURCE — a crash in between \
            is finished or undone by the next move, so the item is never in both places nor in \
            neither.

            Examples:
              $ cd ~/containers/com.example.grocery
              $ ubiq move-in ~/notes.txt Documents/notes.txt
              $ ubiq move-in --json /mnt/usb/Trip.gro Documents/Trip.gro

            Exit status: 0 moved, 1 not moved (SOURCE missing or in a container, DESTINATION \
            taken or not in a container, the kernel refused), 3 daemon not running, 64 usage \
            error.
            """
    )

    @OptionGroup var move: MoveOptions

    func run() async throws {
        try await move.run { connection, source, destination in
            try await Document.moveIn(from: source, to: destination, connection: connection)
        }
    }
}
