import ArgumentParser
import CommandLineSupport
import FoundationEssentials
import Glibc
import GroceryStore

/// `grocery image set|get|remove` (package mode).
struct ImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Give items a picture, or get it back (package mode: --store package).",
        discussion: """
            Pictures are stored inside Documents/grocery.gro, so they need --store package. PNG and JPEG \
            are accepted, recognised by their first bytes (not the file name), up to \
            \(GroceryLimits.maxImageBytes) bytes; a larger file is refused before it is read.

            Examples:
              $ grocery image set 3f2a milk.png --store package
              $ grocery image get 3f2a copy.png --store package
              $ grocery image remove 3f2a --store package
            """,
        subcommands: [Set.self, Get.self, Remove.self]
    )

    /// Images exist only in the package: says so before connecting, then opens the list and runs
    /// `body` on the item `target` names (``ItemOptions/withItem(_:)``).
    static func withItem<T: Sendable>(_ target: ItemOptions,
                                      _ body: (GroceryList, GroceryItemID) async throws -> T) async throws -> T {
        guard target.options.store.value == .package else { throw Failure.exit(for: GroceryError.imagesNeedPackage) }
        return try await target.withItem(body)
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set (or replace) an item's picture from a PNG or JPEG file.",
            usage: "grocery image set [<options>] <id> <file>")

        @OptionGroup var target: ItemOptions

        @Argument(help: ArgumentHelp("A PNG or JPEG file.", valueName: "file"))
        var file: String

        func run() async throws {
            _ = try await ImageCommand.withItem(target) { list, item in
                try await list.setImage(fromFile: file, for: item)
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an item's picture to a file (- for standard output).",
            usage: "grocery image get [<options>] <id> <out>")

        @OptionGroup var target: ItemOptions

        @Argument(help: ArgumentHelp("Where to write it; - writes to standard output.", valueName: "out"))
        var out: String

        func run() async throws {
            let data = try await ImageCommand.withItem(target) { list, item in
                try list.image(for: item).data
            }
            if out == "-" {
                StandardStream.write([UInt8](data), to: 1)
                return
            }
            do {
                try data.write(to: URL(fileURLWithPath: out), options: .atomic)
            } catch {
                throw Failure.exit(for: GroceryError.io(path: out, operation: "write", message: Self.reason(error)))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an item's picture.",
            usage: "grocery image remove [<options>] <id>")

        @OptionGroup var target: ItemOptions

        func run() async throws {
            try await ImageCommand.withItem(target) { list, item in
                try await list.removeImage(for: item)
            }
        }
    }
}

extension ImageCommand.Get {
    /// Why `Data.write` failed, in the C library's words (`Permission denied`) when it says.
    static func reason(_ error: any Error) -> String {
        if let posix = (error as? CocoaError)?.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        return "\(error)"
    }
}
