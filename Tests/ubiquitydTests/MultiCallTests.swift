import Foundation
import Glibc
import Testing
import UbiquityTesting

/// The Debian package's layout: `ubiq` and `grocery` are links to `ubiquityd`, which runs the
/// command its name says; any other name is the daemon.
@Suite(.ownThreads) struct MultiCallTests {
    /// A temporary folder with links to the built `ubiquityd` under `names`.
    static func links(_ names: [String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multicall-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(name),
                                                       withDestinationURL: daemon.url)
        }
        return folder
    }

    @Test func linksRunTheCommandTheirNameSays() throws {
        let folder = try Self.links(["ubiq", "grocery"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let runs: [(String, [String])] = [
            ("ubiq", ["--help"]), ("ubiq", ["--version"]), ("ubiq", ["predicate", "check", "name like 'Item_*' or size > 10"]),
            ("ubiq", ["predicate", "eval", "size > 1", "--item", "{name"]), ("ubiq", ["kv", "--help"]),
            ("grocery", ["--help"]), ("grocery", ["add", "--help"]), ("grocery", ["--no-such-option"]),
        ]
        for (name, arguments) in runs {
            let viaLink = try BuiltExecutable(path: folder.appendingPathComponent(name).path).run(arguments)
            let own = try BuiltExecutable(name).run(arguments)
            #expect(viaLink.status == own.status, "\(name) \(arguments)")
            #expect(viaLink.stdout == own.stdout, "\(name) \(arguments)")
            #expect(viaLink.stderr == own.stderr, "\(name) \(arguments)")
        }
    }

    @Test func anyOtherNameIsTheDaemon() throws {
        let folder = try Self.links(["ubiquityd", "ubiq-old", "Ubiq"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let own = try daemon.run(["--help"])
        #expect(own.stdout.hasPrefix("OVERVIEW: Watch ubiquity containers"))
        for name in ["ubiquityd", "ubiq-old", "Ubiq"] {
            let r = try BuiltExecutable(path: folder.appendingPathComponent(name).path).run(["--help"])
            #expect(r.status == 0)
            #expect(r.stdout == own.stdout, "\(name)")
        }
    }
}
