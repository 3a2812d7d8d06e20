import ArgumentParser
import CommandLineSupport
import UbiquityProtocol

/// `ubiq storage`: what each container takes (`storage`), the Manage Storage view.
struct StorageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage",
        abstract: "Show what each container takes: documents, data, the largest documents, other devices.",
        usage: "ubiq storage [--container <id>] [--largest <count>] [<options>]",
        discussion: """
            Per container you may read: items and bytes in Documents/ and in the data scope (a \
            package counts as one item, with the sum of its contents), evicted items (files on \
            demand) with the bytes downloading them would take, the largest documents, and \
            — when the daemon follows a sync engine that shares the container — how many paths \
            each other device still needs. Counted from the daemon's index: nothing is read from \
            disk.

            Examples:
              $ ubiq storage
              $ ubiq storage --container com.example.grocery --largest 3
              $ ubiq storage --json

            With --json, one object per container and line.

            Exit status: 0 success, 1 the daemon refused, 3 daemon not running.
            """
    )

    @Option(help: ArgumentHelp("Only this container.", valueName: "id"))
    var container: String?

    @Option(help: ArgumentHelp("How many of the largest documents to list (0 to 100, default 10).", valueName: "count"))
    var largest: Int?

    @OptionGroup var output: AnswerOptions

    func validate() throws {
        if let largest, !(0...Storage.maxLargest).contains(largest) {
            throw ValidationError("--largest must be from 0 to \(Storage.maxLargest), found \(largest)")
        }
    }

    func run() async throws {
        let operation = Storage(container: container, largest: largest)
        try await output.answer({ try await $0.send(operation) }, lines: { $0.containers.map(\.json) }) {
            $0.containers.map(Self.render).joined(separator: "\n\n")
        }
    }

    static func render(_ c: StorageResult.Container) -> String {
        func items(_ n: Int) -> String { counted(n, "item") }
        var rows: [[String]] = [
            ["documents", items(c.documentsItems) + ", \(c.documentsBytes) bytes"],
            ["data", items(c.dataItems) + ", \(c.dataBytes) bytes"],
        ]
        if c.evictedItems > 0 {
            rows.append(["evicted", items(c.evictedItems) + ", \(c.evictedBytes) bytes when downloaded"])
        }
        let width = c.largest.map { String($0.size).count }.max() ?? 0
        for (i, document) in c.largest.enumerated() {
            let size = String(document.size)
            rows.append([i == 0 ? "largest" : "", String(repeating: " ", count: width - size.count) + size + "  " + document.path])
        }
        switch c.sync {
        case "none": rows.append(["sync", "no sync engine shares it"])
        case "unknown": rows.append(["sync", "the sync engine cannot be asked now"])
        default:
            if c.devices.isEmpty { rows.append(["sync", "shared with no other device"]) }
            for (i, device) in c.devices.enumerated() {
                rows.append([i == 0 ? "devices" : "", "\(device.device)  \(device.connected ? "connected" : "not connected")  needs \(device.needs)"])
            }
        }
        return c.container + "\n" + Terminal.table(header: ["", ""], rows: rows).split(separator: "\n", omittingEmptySubsequences: false)
            .dropFirst().map { "  " + $0 }.joined(separator: "\n")
    }
}
