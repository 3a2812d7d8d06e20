import ArgumentParser
import UbiquityKit
import UbiquityJSON

/// `--json`, `--socket` and `--timeout` of the commands that ask the daemon one thing and print
/// its answer (`containers`, `status`, `storage`, `publish`), and how each prints it: one JSON
/// object per line with `--json` (nothing for an empty list), otherwise text. The `--json` shape
/// of each command is in its discussion.
struct AnswerOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of text: one object per line, as described above.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    /// Asks, then prints `lines` (with `--json`) or `text` of the answer; a nil text prints
    /// nothing. Every failure becomes a message and the documented exit status.
    func answer<Answer: Sendable>(_ ask: (UbiquityConnection) async throws -> Answer,
                                  lines: (Answer) -> [JSONValue], text: (Answer) -> String?) async throws {
        let answer = try await connection.run(ask)
        if json {
            let objects = lines(answer)
            if !objects.isEmpty { Terminal.output(try objects.map { try Terminal.json($0) }.joined(separator: "\n")) }
        } else if let text = text(answer) {
            Terminal.output(text)
        }
    }
}
