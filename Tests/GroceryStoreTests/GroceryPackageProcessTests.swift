import Foundation
import GroceryStore
import Testing
import UbiquityTesting

/// Writers in separate processes: this test bundle runs itself again, once per writer, with
/// only ``writerProcess()`` enabled (by the environment) — real processes sharing one package.
@Suite(.ownThreads) struct GroceryPackageProcessTests {
    static let documentsVariable = "GROCERY_PACKAGE_WRITER_DOCUMENTS"
    static let tagVariable = "GROCERY_PACKAGE_WRITER_TAG"
    static let updatesPerWriter = 30

    @Test func processesWritingAtOnceLoseNoUpdate() throws {
        let fixture = try PackageFixture()
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let writers = (0..<3).map { n in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: bundle)
            process.arguments = ["--testing-library", "swift-testing", "--filter", "GroceryPackageProcessTests/writerProcess"]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.documentsVariable] = fixture.documents
            environment[Self.tagVariable] = "p\(n)"
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }
        for process in writers { try process.run() }
        for process in writers {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let names = try fixture.package.load().items.map(\.name)
        let expected = (0..<3).flatMap { n in (0..<Self.updatesPerWriter).map { "p\(n)-\($0) renamed" } }
        #expect(names.count == expected.count)
        #expect(Set(names) == Set(expected))
    }

    /// One writer: adds then renames `updatesPerWriter` items. Runs only as a child of the test above.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[documentsVariable] != nil))
    func writerProcess() throws {
        let environment = ProcessInfo.processInfo.environment
        let documents = try #require(environment[Self.documentsVariable])
        let tag = try #require(environment[Self.tagVariable])
        let package = GroceryPackage(documentsDirectory: documents, lockDirectory: (documents as NSString).deletingLastPathComponent)
        for n in 0..<Self.updatesPerWriter {
            let item = try package.update { try $0.add(name: "\(tag)-\(n)") }
            try package.update { try $0.rename(item.id, to: "\(tag)-\(n) renamed") }
        }
    }
}
