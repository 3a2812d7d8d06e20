import Foundation
import Glibc
import GroceryStore
import Testing
import UbiquityTesting

/// `grocery conflicts` and `resolve` run by another user (uid 54321 through `setpriv`), a member
/// of the container's group: it may use the container and read what the group may read, but not
/// root's 0600 copy, nor rename in root's `Documents/` (0755). The kernel decides with that user's
/// rights; the daemon (root) reads and moves nothing for it. Needs root.
@Suite(.ownThreads) struct ConflictRightsTests {
    static let otherUID: UInt32 = 54321
    static let setpriv = BuiltExecutable(path: "/usr/bin/setpriv")

    /// `grocery ARGUMENTS` as `otherUID`, whose only group is its own (the container's).
    static func groceryAsOtherUser(_ arguments: [String]) throws -> CLIResult {
        try setpriv.run(["--reuid=\(otherUID)", "--regid=\(otherUID)", "--groups=\(otherUID)", grocery.url.path] + arguments, deadline: 60)
    }

    @Test func anotherUserCannotReadOrMoveWhatItsRightsDoNotAllow() throws {
        // The container is root's, shared with group 54321 (members may use it).
        let daemon = try TestDaemon.sharedWithGroup(Self.otherUID)
        defer { daemon.stop(); daemon.cleanUp() }
        let documents = daemon.documents()
        let milk = GroceryItemID(), eggs = GroceryItemID()
        try daemon.place(milk.fileName, contents: "oat milk")
        let milkCopy = milk.fileName + ".sync-conflict-20261122-100001-NOFER4Z"
        try daemon.place(milkCopy, contents: "whole milk")
        try daemon.place(eggs.fileName, contents: "eggs")
        let eggsCopy = eggs.fileName + ".sync-conflict-20261122-100002-NOFER4Z"
        try daemon.place(eggsCopy, contents: "brown eggs")
        for name in [milk.fileName, milkCopy, eggs.fileName] { chmod(documents + "/" + name, 0o644) }
        chmod(documents + "/" + eggsCopy, 0o600)
        let milkShort = String(milk.uuidString.prefix(8)), eggsShort = String(eggs.uuidString.prefix(8))
        let entries = try FileManager.default.contentsOfDirectory(atPath: documents).sorted()

        // It may read the container: the conflict shows, with both names.
        let shown = try Self.groceryAsOtherUser(["conflicts", milkShort, "--socket", daemon.socket])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("2  whole milk"), "\(shown.stdout)")
        // But not root's 0600 copy.
        let unreadable = try Self.groceryAsOtherUser(["conflicts", eggsShort, "--socket", daemon.socket])
        #expect(unreadable.status == 1, "\(unreadable.stdout)")
        #expect(unreadable.stderr.contains(eggsCopy) && unreadable.stderr.contains("Permission denied"), "\(unreadable.stderr)")
        // Nor rename in root's directory: refused with the path and errno's text, nothing moved.
        let refused = try Self.groceryAsOtherUser(["resolve", milkShort, "--pick", "2", "--socket", daemon.socket])
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr == "grocery: \(documents)/\(milkCopy): cannot rename it to \(documents)/\(milk.fileName): Permission denied\n",
                "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: documents).sorted() == entries)
        #expect(try String(contentsOfFile: documents + "/" + milk.fileName, encoding: .utf8) == "oat milk")

        // The control: root, whose rights allow it, resolves the same way.
        let resolved = try grocery.run(["resolve", milkShort, "--pick", "2", "--socket", daemon.socket])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(try String(contentsOfFile: documents + "/" + milk.fileName, encoding: .utf8) == "whole milk")
        #expect(!FileManager.default.fileExists(atPath: documents + "/" + milkCopy))
    }
}
