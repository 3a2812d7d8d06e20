import ArgumentParser
import UbiquityKit
import UbiquitySystem

/// What `ubiq move-in` and `ubiq move-out` both take — the item, where it goes, `--json`,
/// `--socket`, `--timeout` — and how both print what they did.
struct MoveOptions: ParsableArguments {
    @Argument(help: "The item to move (relative to the current directory or absolute).")
    var source: String

    @Argument(help: "Where it goes: the new path, name included (nothing may be there).")
    var destination: String

    @Flag(help: "Print one JSON object: source, destination, method (renamed or copied).")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    /// Both paths absolute, `.` and `..` taken away by their text (as a shell's `cd` does).
    var paths: (source: String, destination: String) { (Self.plain(source), Self.plain(destination)) }

    /// Connects, runs the move, prints what happened.
    func run(_ move: (UbiquityConnection, String, String) async throws -> ItemMoveMethod) async throws {
        let (source, destination) = paths
        let method = try await connection.run { try await move($0, source, destination) }
        Terminal.output(json ? try Terminal.json(.object(["source": .string(source), "destination": .string(destination),
                                                          "method": .string(method.rawValue)]))
                             : "moved \(source) to \(destination)" + (method == .copied ? " (copied across file systems)" : ""))
    }

    /// `path` made absolute against the current directory, its empty, `.` and `..` components
    /// resolved by their text (a `..` above `/` stays at `/`).
    static func plain(_ path: String) -> String {
        var kept: [String] = []
        for part in PathBytes.components(of: PublishCommand.absolute(path)) where part != "." {
            if part == ".." { _ = kept.popLast() } else { kept.append(part) }
        }
        return "/" + kept.joined(separator: "/")
    }
}
