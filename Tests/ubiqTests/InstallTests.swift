import Foundation
import Testing
import UbiquityTesting

/// `Packaging/install.sh` (what `make install` runs) into a staging root, with the built
/// binaries: completions generated from the commands' own definitions, man pages copied.
@Suite(.ownThreads) struct InstallTests {
    @Test func installStagesCompletionsAndManPages() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ubq-install-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        // A man page as `make man` leaves it (the generator itself is swift-argument-parser's).
        let manSource = root + "-man"
        defer { try? FileManager.default.removeItem(atPath: manSource) }
        try FileManager.default.createDirectory(atPath: manSource, withIntermediateDirectories: true)
        try ".Dt UBIQ 1\n".write(toFile: manSource + "/ubiq.1", atomically: true, encoding: .utf8)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Packaging/install.sh").standardized.path

        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["--prefix", "/usr", "--destdir", root, "--from", BuiltExecutable.folder.path, "--man-dir", manSource]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        for (path, subcommand) in [("/usr/share/bash-completion/completions/ubiq", "query"),
                                   ("/usr/share/zsh/site-functions/_ubiq", "watch"),
                                   ("/usr/share/fish/vendor_completions.d/ubiq.fish", "containers"),
                                   ("/usr/share/bash-completion/completions/grocery", "rename"),
                                   ("/usr/share/zsh/site-functions/_grocery", "delete"),
                                   ("/usr/share/fish/vendor_completions.d/grocery.fish", "image")] {
            let text = (try? String(contentsOfFile: root + path, encoding: .utf8)) ?? ""
            #expect(text.contains(subcommand), "\(path) is missing or does not complete '\(subcommand)'")
        }
        #expect(FileManager.default.fileExists(atPath: root + "/usr/share/man/man1/ubiq.1"))
        #expect(FileManager.default.isExecutableFile(atPath: root + "/usr/bin/ubiq"))
    }
}
