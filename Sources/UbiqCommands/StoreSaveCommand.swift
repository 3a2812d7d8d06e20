import ArgumentParser
import CommandLineSupport
import UbiquityJSON
import UbiquityProtocol

/// `ubiq store save STORE CHANGES`.
struct StoreSaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Save one transaction of changes, given as the JSON array store.save takes.",
        usage: "ubiq store save [<options>] <store> <changes>",
        discussion: """
            Each change is {"insert":TABLE,"values":{…}}, {"update":TABLE,"id":ID,"values":{…}}, \
            {"delete":TABLE,"id":ID}, {"relate":RELATIONSHIP,"from":ID,"to":ID} or \
            {"unrelate":…}. The transaction is saved whole or not at all; the command returns \
            once it is on disk and prints the id of each insert.

            Example:
              $ ubiq store save grocery '[{"insert":"items","values":{"name":"milk"}}]'
              7d3f0c2a9b1e4d5f8a6b7c8d9e0f1a2b
            """
    )

    @Argument(help: "The store's name.")
    var store: String

    @Argument(help: "The changes, a JSON array.")
    var changes: String

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let parsed: [StoreSaveChange]
        do {
            guard case .array(let items) = try JSONLine.decode(Array(changes.utf8)) else {
                throw ProtocolError.malformed("the changes must be a JSON array")
            }
            parsed = try items.enumerated().map { (index, item) throws(ProtocolError) in try StoreSaveChange(json: item, context: "changes[\(index)]") }
        } catch {
            Terminal.error("the changes are not a store.save transaction: \(Terminal.jsonProblem(error))")
            throw ExitCode(CommandFailure.invalidInput)
        }
        let saved = try await options.connection.run { try await $0.send(StoreSave(container: options.container, store: store, changes: parsed)) }
        if options.json {
            Terminal.output(try Terminal.json(saved.json))
        } else {
            for id in saved.inserted { Terminal.output(id) }
        }
    }
}
