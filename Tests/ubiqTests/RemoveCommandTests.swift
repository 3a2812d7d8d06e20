import Foundation
import Glibc
import Testing
import UbiquityTesting

/// `ubiq rm --everywhere` against the real daemon: files and packages removed under the item's
/// lock with the caller's own rights, nothing removed without --everywhere, and another user
/// (uid 54321 through `setpriv`) refused — by the daemon for the lock of a file it may not write,
/// by the kernel for a directory it may not write. Needs root.
@Suite(.ownThreads) struct RemoveCommandTests {
    static let otherUID: UInt32 = 54321

    @Test func removesFilesAndPackagesOnlyWhenToldEverywhere() throws {
        let daemon = try TestDaemon(prepare: { root in
            let documents = root + "/com.example.grocery/Documents"
            try FileManager.default.createDirectory(atPath: documents + "/Trip.pages/Data", withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: documents + "/Trip.pages/index.json"))
            try Data("png".utf8).write(to: URL(fileURLWithPath: documents + "/Trip.pages/Data/photo.png"))
            try Data("Milk".utf8).write(to: URL(fileURLWithPath: documents + "/Item_1"))
        })
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket], documents = daemon.documents()
        let item = documents + "/Item_1", package = documents + "/Trip.pages"

        let unsaid = try ubiq.run(["rm", item] + s)
        #expect(unsaid.status == 64 && unsaid.stderr.contains("say --everywhere"), "\(unsaid.stderr)")
        #expect(FileManager.default.fileExists(atPath: item))

        let removed = try ubiq.run(["rm", "--everywhere", item, package] + s)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "removed \(item)\nremoved \(package)\n", "\(removed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: item) && !FileManager.default.fileExists(atPath: package))
        #expect(try FileManager.default.contentsOfDirectory(atPath: documents).isEmpty)

        let missing = try ubiq.run(["rm", "--everywhere", "--json", item] + s)
        #expect(missing.status == 1 && missing.stderr.contains("there is no such item"), "\(missing.stderr)")
        let outside = try ubiq.run(["rm", "--everywhere", "/etc/hostname"] + s)
        #expect(outside.status == 1 && FileManager.default.fileExists(atPath: "/etc/hostname"), "\(outside.stderr)")
    }

    @Test func removesTheDataScopeAsOneUnitAndKeepsDocumentsAndWhatTheDaemonKeeps() throws {
        let daemon = try TestDaemon(prepare: { root in
            let container = root + "/com.example.grocery"
            for directory in ["/Documents", "/cache/thumbnails", "/.ubiquity-kv"] {
                try FileManager.default.createDirectory(atPath: container + directory, withIntermediateDirectories: true)
            }
            for (file, text) in [("/Documents/Item_1", "Milk"), ("/cache/thumbnails/1.png", "png"), ("/settings.plist", "{}"),
                                 ("/.hidden", "h"), ("/.stignore", "(?d).ubiquity-sync-*\n"), ("/.ubiquity-kv/laptop.json", "{}")] {
                try Data(text.utf8).write(to: URL(fileURLWithPath: container + file))
            }
        })
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket], container = daemon.root + "/com.example.grocery"

        let mixed = try ubiq.run(["rm", "--everywhere", "--data", container + "/settings.plist"] + s)
        #expect(mixed.status == 64 && mixed.stderr.contains("name no paths with it"), "\(mixed.stderr)")
        let removed = try ubiq.run(["rm", "--everywhere", "--data", "--container", "com.example.grocery"] + s)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == ["/.hidden", "/cache", "/settings.plist"].map { "removed \(container)\($0)\n" }.joined(), "\(removed.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: container).sorted() == [".stignore", ".ubiquity-kv", "Documents"])
        #expect(try String(contentsOfFile: container + "/Documents/Item_1", encoding: .utf8) == "Milk")

        let again = try ubiq.run(["rm", "--everywhere", "--data", "--json"] + s)
        #expect(again.status == 0 && again.stdout.isEmpty && again.stderr.contains("the data scope is empty"), "\(again.stdout)\(again.stderr)")
    }

    /// `café` precomposed and decomposed are two entries side by side (equal as strings): both go.
    @Test func removesBothOfTwoCanonicallyEqualDataEntries() throws {
        let names = ["caf\u{E9}", "cafe\u{301}"]
        let daemon = try TestDaemon(prepare: { root in
            let container = root + "/com.example.grocery"
            try FileManager.default.createDirectory(atPath: container + "/Documents", withIntermediateDirectories: true)
            for name in names { try Data(name.utf8).write(to: URL(fileURLWithPath: container + "/" + name)) }
        })
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket], container = daemon.root + "/com.example.grocery"
        let removed = try ubiq.run(["rm", "--everywhere", "--data", "--container", "com.example.grocery"] + s)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.split(separator: "\n").count == 2, "\(removed.stdout)")
        for name in names { #expect(access(container + "/" + name, F_OK) != 0, "\(Array(name.utf8)) is left") }
    }

    @Test func anotherUserMovesOutAndRemovesTheDataScopeOnlyWithItsOwnRights() throws {
        let daemon = try TestDaemon.sharedWithGroup(Self.otherUID)
        defer { daemon.stop(); daemon.cleanUp() }
        let container = daemon.root + "/com.example.grocery"
        let item = try daemon.place("Item_1", contents: "root's milk")
        try Data("root's cache".utf8).write(to: URL(fileURLWithPath: container + "/cache.db"))
        chmod(daemon.documents(), 0o755)
        chmod(container, 0o755)
        let setpriv = BuiltExecutable(path: "/usr/bin/setpriv")
        func asOtherUser(_ arguments: [String]) throws -> CLIResult {
            try setpriv.run(["--reuid=\(Self.otherUID)", "--regid=\(Self.otherUID)", "--groups=\(Self.otherUID)", ubiq.url.path]
                            + arguments + ["--socket", daemon.socket], deadline: 60)
        }
        // The item's lock needs the right to write it: the daemon refuses; nothing moves.
        let moved = try asOtherUser(["move-out", item, "/tmp/stolen-\(getpid())"])
        #expect(moved.status == 1 && moved.stderr.contains("may not write 'Documents/Item_1'"), "\(moved.stderr)")
        #expect(try String(contentsOfFile: item, encoding: .utf8) == "root's milk")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/stolen-\(getpid())"))
        // The data scope is removed with the caller's rights: the kernel refuses, the daemon lends none.
        let removed = try asOtherUser(["rm", "--everywhere", "--data", "--container", "com.example.grocery"])
        #expect(removed.status == 1 && removed.stderr.contains("Permission denied"), "\(removed.stderr)")
        #expect(try String(contentsOfFile: container + "/cache.db", encoding: .utf8) == "root's cache")
    }

    @Test func anotherUserRemovesOnlyWhatItsRightsAllow() throws {
        // The container is root's, shared with group 54321: members may use it, and remove in
        // Documents/ only once the directory lets the group write.
        let daemon = try TestDaemon.sharedWithGroup(Self.otherUID)
        defer { daemon.stop(); daemon.cleanUp() }
        let documents = daemon.documents()
        let item = try daemon.place("Item_1", contents: "root's milk")
        chmod(documents, 0o755)
        let setpriv = BuiltExecutable(path: "/usr/bin/setpriv")
        func rmAsOtherUser() throws -> CLIResult {
            try setpriv.run(["--reuid=\(Self.otherUID)", "--regid=\(Self.otherUID)", "--groups=\(Self.otherUID)", ubiq.url.path,
                             "rm", "--everywhere", item, "--socket", daemon.socket], deadline: 60)
        }

        // Root's 0644 file: the item's lock needs the right to write it, which the daemon judges.
        let locked = try rmAsOtherUser()
        #expect(locked.status == 1 && locked.stderr.contains("may not write 'Documents/Item_1'"), "\(locked.stderr)")
        #expect(try String(contentsOfFile: item, encoding: .utf8) == "root's milk")
        // The group may write the file but not the directory: the lock is granted, and the kernel
        // refuses the removal itself (the daemon removes nothing for anyone).
        chown(item, 0, Self.otherUID)
        chmod(item, 0o664)
        let refused = try rmAsOtherUser()
        #expect(refused.status == 1 && refused.stderr.contains("Permission denied"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: item, encoding: .utf8) == "root's milk")

        chown(documents, 0, Self.otherUID)
        chmod(documents, 0o775)
        let allowed = try rmAsOtherUser()
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: item))
    }
}
