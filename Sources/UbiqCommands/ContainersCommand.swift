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

    @Flag(help: "Print one JSON object per container and line.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let containers = try await connection.run { try await $0.containers() }
        if json {
            Terminal.output(try containers.map { try Terminal.json($0.json) }.joined(separator: "\n"))
            return
        }
        guard !containers.isEmpty else {
            Terminal.error("no containers: create a directory named like com.example.app under the daemon's root")
            return
        }
        Terminal.output(Terminal.table(header: ["ID", "ITEMS", "AVAILABLE", "PATH"], rows: containers.map {
            [$0.id, String($0.items), $0.available ? "yes" : "no", $0.path]
        }))
    }
}
