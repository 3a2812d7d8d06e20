import Foundation
import GroceryStore
import Testing
import UbiquityKit
import UbiquityTesting

/// Writers in separate processes: this test bundle runs itself again, once per writer, with
/// only ``writerProcess()`` enabled (by the environment) — real processes sharing one package,
/// kept apart by the daemon's lock, as `grocery` commands run at once are.
@Suite(.ownThreads) struct GroceryPackageProcessTests {
    static let documentsVariable = "GROCERY_PACKAGE_WRITER_DOCUMENTS"
    static let socketVariable = "GROCERY_PACKAGE_WRITER_SOCKET"
    static let tagVariable = "GROCERY_PACKAGE_WRITER_TAG"
    static let updatesPerWriter = 20

    @Test func processesWritingAtOnceLoseNoUpdate() async throws {
        try await withDaemon { daemon in
            let package = GroceryPackage(documentsDirectory: daemon.documents())
            let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let writers = (0..<3).map { n in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: bundle)
                process.arguments = ["--testing-library", "swift-testing", "--filter", "GroceryPackageProcessTests/writerProcess"]
                var environment = ProcessInfo.processInfo.environment
                environment[Self.documentsVariable] = daemon.documents()
                environment[Self.socketVariable] = daemon.socket
                environment[Self.tagVariable] = "p\(n)"
                process.environment = environment
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                return process
            }
            let exits = writers.map(ProcessExit.of)
            for process in writers { try process.run() }
            // The daemon runs in this process: the writers are awaited, never waited for on a thread it needs.
            let finished = try await firstWithin(120) { for exit in exits { await exit.wait() }; return true }
            guard finished == true else {
                for process in writers where process.isRunning { process.terminate() }
                Issue.record("the writers did not finish within 120 s")
                return
            }
            #expect(writers.map(\.terminationStatus) == [0, 0, 0])
            let names = try package.load().items.map(\.name)
            let expected = (0..<3).flatMap { n in (0..<Self.updatesPerWriter).map { "p\(n)-\($0) renamed" } }
            #expect(names.count == expected.count)
            #expect(Set(names) == Set(expected))
        }
    }

    /// One writer: adds then renames `updatesPerWriter` items, each change one coordinated save
    /// through its own connection. Runs only as a child of the test above.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[documentsVariable] != nil))
    func writerProcess() async throws {
        let environment = ProcessInfo.processInfo.environment
        let documents = try #require(environment[Self.documentsVariable])
        let socket = try #require(environment[Self.socketVariable])
        let tag = try #require(environment[Self.tagVariable])
        let package = GroceryPackage(documentsDirectory: documents)
        try await UbiquityConnection.withConnection(to: socket) { connection in
            for n in 0..<Self.updatesPerWriter {
                let item = try await package.update(connection: connection) { try $0.add(name: "\(tag)-\(n)") }
                try await package.update(connection: connection) { try $0.rename(item.id, to: "\(tag)-\(n) renamed") }
            }
        }
    }
}
