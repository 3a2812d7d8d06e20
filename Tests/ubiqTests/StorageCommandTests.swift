import Foundation
import Testing
import UbiquityJSON
import UbiquityTesting

/// `ubiq storage` against the real daemon: the table and --json.
@Suite(.ownThreads) struct StorageCommandTests {
    @Test func showsScopesAndTheLargestDocuments() throws {
        let daemon = try TestDaemon(prepare: { root in
            let documents = root + "/com.example.grocery/Documents"
            try Data(repeating: 0x61, count: 1000).write(to: URL(fileURLWithPath: documents + "/big"))
            try Data("Milk".utf8).write(to: URL(fileURLWithPath: documents + "/Item_1"))
            try Data(repeating: 0x62, count: 20).write(to: URL(fileURLWithPath: root + "/com.example.grocery/data.bin"))
            // An evicted item's placeholder: no data here, its last known size kept.
            let placeholder = documents + "/.gone.ubiquity-evicted"
            try Data().write(to: URL(fileURLWithPath: placeholder))
            try FileHandle(forWritingAtPath: placeholder).map { try $0.truncate(atOffset: 300); try $0.close() }
        })
        defer { daemon.stop(); daemon.cleanUp() }
        let s = ["--socket", daemon.socket]
        let shown = try ubiq.run(["storage", "--largest", "2"] + s)
        #expect(shown.status == 0)
        #expect(shown.stdout.hasPrefix("com.example.grocery\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("  documents  4 items, 1004 bytes\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("  data       1 item, 20 bytes\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("  evicted    1 item, 300 bytes when downloaded\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("  largest    1000  \(daemon.root)/com.example.grocery/Documents/big\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("                4  \(daemon.root)/com.example.grocery/Documents/Item_1\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("  sync       no sync engine shares it"))
        let json = try ubiq.run(["storage", "--json", "--largest", "0"] + s)
        let object = try JSONLine.decode(Array(json.stdout.utf8.dropLast()))
        #expect(object["documents"]?["bytes"]?.intValue == 1004 && object["largest"]?.arrayValue?.isEmpty == true, "\(json.stdout)")
        #expect(object["evicted"]?["items"]?.intValue == 1 && object["evicted"]?["bytes"]?.intValue == 300, "\(json.stdout)")
        let bad = try ubiq.run(["storage", "--largest", "101"] + s)
        #expect(bad.status == 64 && bad.stderr.contains("--largest must be from 0 to 100"), "\(bad.stderr)")
    }
}
