import Foundation
import Testing
import UbiquityTesting

/// What `grocery add` does on disk before it prints the id, as the kernel saw it (strace): the
/// item file is fsynced, renamed or linked into place, and then `Documents/` itself is fsynced, so
/// the new name survives a power loss once the id is printed (UbiquityKit's `Document.create`).
@Suite(.ownThreads) struct DurabilityTests {
    @Test func addFsyncsTheDocumentsDirectoryAfterTheRename() async throws {
        try await withTestDaemon { daemon in
            let log = daemon.directory + "/strace.log"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
            process.arguments = ["-f", "-qq", "-o", log, "-e", "trace=openat,openat2,rename,renameat,renameat2,link,linkat,fsync",
                                 grocery.url.path, "add", "Milk", "--socket", daemon.socket]
            process.environment = BuiltExecutable.environment
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
            let documents = daemon.documents()
            // The descriptors that name Documents/ itself.
            let directoryFDs = Set(lines.compactMap { line -> String? in
                guard line.contains("openat"), line.contains("\"\(documents)\""), line.contains("O_DIRECTORY"),
                      let result = line.split(separator: "=").last?.trimmingCharacters(in: .whitespaces) else { return nil }
                return result
            })
            // Renamed or linked into place, by path or relative to the directory's descriptor
            // (UbiquityKit's `Document.create`: `linkat(5, ".ubiquity-save-…", 5, "Item_…", 0)`).
            let rename = try #require(lines.firstIndex { ($0.contains("rename") || $0.contains("link"))
                                          && ($0.contains("/Item_") || $0.contains("\"Item_")) },
                                      "no rename or link into Item_… in\n\(lines.joined(separator: "\n"))")
            let syncedAfter = lines[(rename + 1)...].contains { line in
                directoryFDs.contains { line.contains("fsync(\($0))") }
            }
            #expect(syncedAfter, "no fsync of Documents/ after the rename:\n\(lines.joined(separator: "\n"))")
        }
    }
}
