import ArgumentParser
import FoundationEssentials
import UbiquityKit
import UbiquityProtocol

/// `ubiq containers`: what the daemon serves to you.
struct ContainersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "containers",
        abstract: "List the containers you may read, with item counts.",
        discussion: """
            Example:
              $ ubiq containers
              ID                   ITEMS  AVAILABLE  PATH
              com.example.grocery  3      yes        /srv/ubiquity/com.example.grocery

            With --json, one object per container and line.

            Exit status: 0 success, 3 daemon not running or connection lost.
            """
    )

    @OptionGroup var output: AnswerOptions

    func run() async throws {
        try await output.answer({ try await $0.containers() }, lines: { $0.map(\.json) }) { containers in
            guard !containers.isEmpty else {
                Terminal.error("no containers: create a directory named like com.example.app under the daemon's root")
                return nil
            }
            return Terminal.table(header: ["ID", "ITEMS", "AVAILABLE", "PATH"], rows: containers.map {
                [$0.id, String($0.items), $0.available ? "yes" : "no", $0.path]
            })
        }
    }
}
