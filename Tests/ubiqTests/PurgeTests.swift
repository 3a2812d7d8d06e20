import Foundation
import Testing
import UbiquityTesting

/// `debian/ubiquityd.postrm` as dpkg runs it on `apt purge`, unchanged: in a private mount
/// namespace whose `/var/lib` and `/run` are directories of the test (bind mounts, invisible to the
/// rest of the machine), so the script's own paths are the ones checked. Purge removes the daemon's
/// state and runtime directory and keeps users' containers. Needs root (unshare, mount).
@Suite(.ownThreads) struct PurgeTests {
    static let postrm = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../debian/ubiquityd.postrm").standardized.path

    /// A fresh directory holding `var/lib` and `run`, the machine as the package left it.
    static func machine() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ubq-purge-\(UUID().uuidString)").path
        for directory in ["var/lib/ubiquity/containers", "var/lib/ubiquity/state", "var/lib/other", "run/ubiquity"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        try "index".write(toFile: root + "/var/lib/ubiquity/state/index.snapshot", atomically: false, encoding: .utf8)
        try "socket".write(toFile: root + "/run/ubiquity/ubiquityd.sock", atomically: false, encoding: .utf8)
        try "someone else's".write(toFile: root + "/var/lib/other/file", atomically: false, encoding: .utf8)
        return root
    }

    /// Runs the postrm with `argument`, `/var/lib` and `/run` being `root`'s.
    static func postrm(_ argument: String, root: String) throws -> CLIResult {
        try BuiltExecutable(path: "/usr/bin/unshare").run(
            ["--mount", "--propagation", "private", "--", "/bin/sh", "-c",
             #"mount --bind "$1/var/lib" /var/lib && mount --bind "$1/run" /run && exec /bin/sh "$2" "$3""#,
             "sh", root, postrm, argument],
            deadline: 30)
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test func purgeRemovesStateAndRuntimeDirectoryAndKeepsTheContainers() throws {
        let root = try Self.machine()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let document = root + "/var/lib/ubiquity/containers/com.example.grocery/Documents/Item_1"
        try FileManager.default.createDirectory(atPath: (document as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "milk".write(toFile: document, atomically: false, encoding: .utf8)

        let purged = try Self.postrm("purge", root: root)
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect((try? String(contentsOfFile: document, encoding: .utf8)) == "milk", "a user's document was deleted")
        #expect(!Self.exists(root + "/var/lib/ubiquity/state"))
        #expect(!Self.exists(root + "/run/ubiquity"))
        #expect(Self.exists(root + "/var/lib/other/file"))
        let said = purged.stdout.split(separator: "\n")
        #expect(said.count == 1 && said.first?.contains("kept the containers") == true
                && said.first?.contains("/var/lib/ubiquity/containers") == true, "\(purged.stdout)")
    }

    @Test func purgeWithNoContainersLeavesNoUbiquityDirectory() throws {
        let root = try Self.machine()
        defer { try? FileManager.default.removeItem(atPath: root) }

        let purged = try Self.postrm("purge", root: root)
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(!Self.exists(root + "/var/lib/ubiquity"))
        #expect(!Self.exists(root + "/run/ubiquity"))
        #expect(Self.exists(root + "/var/lib/other/file"))
        #expect(purged.stdout.isEmpty, "\(purged.stdout)")
    }

    @Test func removeAndUpgradeTouchNothing() throws {
        let root = try Self.machine()
        defer { try? FileManager.default.removeItem(atPath: root) }
        for argument in ["remove", "upgrade"] {
            let result = try Self.postrm(argument, root: root)
            #expect(result.status == 0, "\(argument): \(result.stderr)")
        }
        #expect(Self.exists(root + "/var/lib/ubiquity/state/index.snapshot"))
        #expect(Self.exists(root + "/var/lib/ubiquity/containers"))
        #expect(Self.exists(root + "/run/ubiquity/ubiquityd.sock"))
    }
}
