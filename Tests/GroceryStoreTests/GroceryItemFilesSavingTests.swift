import Foundation
import Glibc
import GroceryStore
import Testing
import UbiquityKit
import UbiquityTesting

/// File mode renames: coordinated saves through UbiquityKit's `Document` and the real daemon.
@Suite(.ownThreads) struct GroceryItemFilesSavingTests {
    /// Runs `body` on the list of a fresh daemon's grocery container.
    private func withList(_ body: (GroceryList) async throws -> Void) async throws {
        try await withTestDaemon { daemon in
            let list = try await GroceryList.open(socketPath: daemon.socket, container: "com.example.grocery", format: .files)
            do { try await body(list) } catch { await list.close(); throw error }
            await list.close()
        }
    }

    @Test func renameRewritesAtomicallyAndLeavesNoTemporaryFile() async throws {
        try await withList { list in
            let files = list.files
            let id = try await files.add(name: "milk")
            var before = stat()
            #expect(stat(files.path(of: id), &before) == 0)
            let outcome = try await files.rename(id, to: "oat milk", connection: list.connection)
            if case .savedAsConflictVersion = outcome { Issue.record("nobody else wrote, yet the rename became a conflict version") }
            var after = stat()
            #expect(stat(files.path(of: id), &after) == 0)
            #expect(before.st_ino != after.st_ino, "a new file renamed over the old one, not an in-place write")
            #expect(try files.readName(at: files.path(of: id))?.name == "oat milk")
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.documents) == [id.fileName])
            await #expect(throws: GroceryError.unknownItem(prefix: "3F2A9C1E-0000-4000-8000-000000000001")) {
                try await files.rename(GroceryItemID(uuidString: "3F2A9C1E-0000-4000-8000-000000000001")!, to: "x",
                                       connection: list.connection)
            }
        }
    }

    /// Grocery's save is a coordinated one: a writer that read the item before grocery renamed it
    /// does not overwrite the new name; its bytes become a conflict version beside the item.
    @Test func aWriterThatReadBeforeTheRenameKeepsItsSaveAsAConflictVersion() async throws {
        try await withList { list in
            let files = list.files
            let id = try await files.add(name: "milk")
            let other = try await Document.open(files.path(of: id), connection: list.connection)
            #expect(try other.read() == Data("milk".utf8))
            let outcome = try await files.rename(id, to: "oat milk", connection: list.connection)
            if case .savedAsConflictVersion = outcome { Issue.record("nobody else wrote, yet the rename became a conflict version") }
            guard case .savedAsConflictVersion(let copy) = try await other.save(Data("whole milk".utf8)) else {
                Issue.record("the stale save overwrote grocery's rename")
                await other.close()
                return
            }
            await other.close()
            #expect(try files.readName(at: files.path(of: id))?.name == "oat milk")
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data("whole milk".utf8))
        }
    }
}
