import ArgumentParser
import UbiquityProtocol

/// `ubiq store forget STORE DEVICE`.
struct StoreForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Stop waiting for a device that will not come back.",
        usage: "ubiq store forget [<options>] <store> <device>",
        discussion: """
            This device removes its own log segments once every device it knows has \
            acknowledged them; a device that never comes back holds them for good. Forgetting \
            it stops the wait on this device (run it on every device that waits). None of the \
            forgotten device's files are removed. Should it come back, its next acknowledgement \
            makes it known again, and it joins the snapshots for what was removed meanwhile.

            Example:
              $ ubiq store forget grocery tablet
              store grocery: stopped waiting for device tablet; removed 50 own segments
            """
    )

    @Argument(help: "The store's name.")
    var store: String

    @Argument(help: ArgumentHelp("The device to forget, as `ubiq store status` names it.", valueName: "device"))
    var device: String

    @OptionGroup var options: ContainerOptions

    func run() async throws {
        let forgotten = try await options.send(StoreForget(container: options.container, store: store, device: device))
        if !options.json { Terminal.output(Self.render(forgotten)) }
    }

    static func render(_ r: StoreForget.Result) -> String {
        var line = "store \(r.store): stopped waiting for device \(r.device); removed \(r.removed) own segment" + (r.removed == 1 ? "" : "s")
        if !r.waitingFor.isEmpty { line += "; still waiting for \(r.waitingFor.joined(separator: ", "))" }
        return line
    }
}
