import Foundation
import Glibc
@testable import GroceryStore
import Testing
import UbiquityKit
import UbiquityProtocol
import UbiquityTesting

/// A container of a real in-process daemon for one test: its package, and a connection the
/// package's updates are saved through (coordinated by the daemon's lock).
final class PackageFixture: Sendable {
    let daemon: InProcessDaemon
    let connection: UbiquityConnection
    let package: GroceryPackage
    /// The container's directory (Documents/ is in it).
    var directory: String { daemon.root + "/com.example.grocery" }
    var documents: String { package.documentsDirectory }

    private init(daemon: InProcessDaemon, connection: UbiquityConnection) {
        self.daemon = daemon
        self.connection = connection
        package = GroceryPackage(documentsDirectory: daemon.documents())
    }

    /// Runs `body` with a fixture on a fresh daemon, and closes and stops both after it.
    static func with<T>(_ body: (PackageFixture) async throws -> T) async throws -> T {
        try await withDaemon { daemon in
            let fixture = PackageFixture(daemon: daemon, connection: try await UbiquityConnection.connect(to: daemon.socket))
            do {
                let result = try await body(fixture)
                await fixture.connection.close()
                return result
            } catch {
                await fixture.connection.close()
                throw error
            }
        }
    }

    /// One coordinated save of the package through the fixture's connection.
    @discardableResult
    func update<T>(lockTimeout: Duration = .seconds(30), _ change: (inout GroceryPackageContents) throws -> T) async throws -> T {
        try await package.update(connection: connection, lockTimeout: lockTimeout, change)
    }

    func names(in relative: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: package.path + relative)) ?? []).sorted()
    }

    func write(_ text: String, to relative: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: package.path + "/" + relative))
    }
}

enum SampleImage {
    static let png = Data(ImageFormat.pngSignature + Array("IHDR and some pixels".utf8))
    static let jpeg = Data(ImageFormat.jpegSignature + [0xE0] + Array("JFIF pixels".utf8))
    static let gif = Data("GIF89a pixels".utf8)
}

@Suite(.ownThreads) struct GroceryPackageTests {
    @Test func aMissingPackageIsEmptyAndANoOpUpdateDoesNotCreateIt() async throws {
        try await PackageFixture.with { fixture in
            #expect(!fixture.package.exists)
            #expect(try fixture.package.load() == GroceryPackageContents())
            try await fixture.update { _ in }
            #expect(!fixture.package.exists)
            #expect(fixture.package.path == fixture.documents + "/grocery.gro")
        }
    }

    @Test func everyChangeRoundTripsThroughLoad() async throws {
        try await PackageFixture.with { fixture in
            let package = fixture.package
            let milk = try await fixture.update { try $0.add(name: "Milk") }
            let bread = try await fixture.update { try $0.add(name: "Bread") }
            #expect(package.exists)
            #expect(try package.load().items == [milk, bread])
            #expect(fixture.names(in: "") == ["items.json"])     // images/ comes with the first image

            try await fixture.update { try $0.rename(milk.id, to: "Oat milk") }
            try await fixture.update { try $0.setImage(SampleImage.png, for: bread.id) }
            var loaded = try package.load()
            #expect(loaded.items.map(\.name) == ["Oat milk", "Bread"])
            #expect(loaded.item(bread.id)?.image == .png)
            #expect(loaded.item(milk.id)?.image == nil)
            #expect(loaded.item(milk.id)!.modified >= milk.modified)
            #expect(try package.image(for: bread.id)?.data == SampleImage.png)
            #expect(try package.image(for: bread.id)?.format == .png)
            #expect(try package.image(for: milk.id) == nil)
            #expect(fixture.names(in: "") == ["images", "items.json"])
            #expect(fixture.names(in: "/images").count == 1)

            // Replacing the image leaves exactly the new file.
            try await fixture.update { try $0.setImage(SampleImage.jpeg, for: bread.id) }
            #expect(try package.image(for: bread.id)?.format == .jpeg)
            #expect(try package.image(for: bread.id)?.data == SampleImage.jpeg)
            let files = fixture.names(in: "/images")
            #expect(files.count == 1 && files[0].hasPrefix(bread.id.uuidString + "-") && files[0].hasSuffix(".jpg"))

            try await fixture.update { try $0.removeImage(for: bread.id) }
            #expect(try package.image(for: bread.id) == nil)
            #expect(fixture.names(in: "/images").isEmpty)

            try await fixture.update { try $0.setImage(SampleImage.png, for: milk.id) }
            try await fixture.update { try $0.remove(milk.id) }
            loaded = try package.load()
            #expect(loaded.items.map(\.id) == [bread.id])
            #expect(fixture.names(in: "/images").isEmpty)   // removing the item dropped its image
            #expect(throws: GroceryError.unknownItem(prefix: milk.id.uuidString)) { try package.image(for: milk.id) }
        }
    }

    @Test func whatAnUpdateReturnsEqualsWhatIsLoaded() async throws {
        try await PackageFixture.with { fixture in
            // Sub-millisecond dates are kept to the millisecond, the precision items.json stores.
            let created = Date(timeIntervalSince1970: 1_795_428_000.123_456)
            let item = try await fixture.update { try $0.add(name: "Eggs", created: created) }
            #expect(item.created == Date(timeIntervalSince1970: 1_795_428_000.123))
            #expect(try fixture.package.load().items == [item])
            let json = try String(contentsOfFile: fixture.package.path + "/items.json", encoding: .utf8)
            #expect(json.contains(#""created" : "2026-11-23T10:00:00.123Z""#))
            #expect(json.contains(#""version" : 1"#))
        }
    }

    @Test func imagesAreRecognisedByTheirSignature() throws {
        #expect(ImageFormat.detect(SampleImage.png) == .png)
        #expect(ImageFormat.detect(SampleImage.jpeg) == .jpeg)
        #expect(ImageFormat.detect(SampleImage.gif) == nil)
        #expect(ImageFormat.detect(SampleImage.png.prefix(7)) == nil)     // truncated signature
        #expect(ImageFormat.detect([0xFF, 0xD8]) == nil)
        #expect(ImageFormat.detect([UInt8]()) == nil)
        #expect(ImageFormat.png.fileExtension == "png" && ImageFormat.jpeg.fileExtension == "jpg")

        var contents = GroceryPackageContents()
        let item = try contents.add(name: "Apples")
        let before = contents
        #expect(throws: GroceryError.unsupportedImage(path: "apples.gif")) {
            try contents.setImage(SampleImage.gif, for: item.id, source: "apples.gif")
        }
        #expect(throws: GroceryError.unsupportedImage(path: "the image")) {
            try contents.setImage(SampleImage.png.prefix(5), for: item.id)
        }
        // The size is checked first: a huge non-image is refused for its size.
        let limit = GroceryLimits.maxImageBytes
        #expect(throws: GroceryError.imageTooLarge(bytes: limit + 1, limit: limit)) {
            try contents.setImage(Data(count: limit + 1), for: item.id)
        }
        #expect(contents == before)
        let atLimit = SampleImage.png + Data(count: limit - SampleImage.png.count)
        try contents.setImage(atLimit, for: item.id)
        #expect(contents.item(item.id)?.image == .png)
        let stranger = GroceryItemID()
        #expect(throws: GroceryError.unknownItem(prefix: stranger.uuidString)) { try contents.setImage(SampleImage.png, for: stranger) }
    }

    /// What a save may delete from images/: only names this code gives images.
    @Test func onlyGroceryImageNamesAreEverRemoved() throws {
        let id = GroceryItemID()
        #expect(GroceryPackageContents.isImageFileName("\(id)-0123456789abcdef.png"))
        #expect(GroceryPackageContents.isImageFileName("\(id)-0123456789abcdef.jpg"))
        for other in ["\(id)-0123456789abcdef.gif", "\(id)-0123456789ABCDEF.png", "\(id)-0123456789abcde.png",
                      "\(id.uuidString.lowercased())-0123456789abcdef.png", "\(id)-0123456789abcdef.sync-conflict-20261122-034428-NOFER4Z.png",
                      ".syncthing.\(id)-0123456789abcdef.png.tmp", "notes.png", ""] {
            #expect(!GroceryPackageContents.isImageFileName(other), "\(other)")
        }
    }

    @Test(arguments: ["", "two\nlines\r\nand a CR\r", "🍎🧑‍🧑‍🧒 apples", "חלב \u{200F}ושוקו", "e\u{301} vs é", "nul\u{0}inside",
                      "  spaces  ", #"quotes " and \ backslash / slash"#, String(repeating: "ü", count: GroceryLimits.maxNameBytes / 2 - 1)])
    func namesRoundTripByteForByte(name: String) async throws {
        try await PackageFixture.with { fixture in
            let item = try await fixture.update { try $0.add(name: name) }
            let loaded = try #require(try fixture.package.load().item(item.id))
            #expect(Array(loaded.name.utf8) == Array(name.utf8))
            try await fixture.update { try $0.rename(item.id, to: name + name.prefix(1)) }
            #expect(Array(try fixture.package.load().item(item.id)!.name.utf8) == Array((name + name.prefix(1)).utf8))
        }
    }

    @Test func tooLongNamesAreRefusedAndNothingIsWritten() async throws {
        try await PackageFixture.with { fixture in
            let limit = GroceryLimits.maxNameBytes
            let long = String(repeating: "x", count: limit + 1)
            await #expect(throws: GroceryError.nameTooLong(bytes: limit + 1, limit: limit)) {
                try await fixture.update { try $0.add(name: long) }
            }
            #expect(!fixture.package.exists)
            let item = try await fixture.update { try $0.add(name: "ok") }
            await #expect(throws: GroceryError.nameTooLong(bytes: limit + 1, limit: limit)) {
                try await fixture.update { try $0.rename(item.id, to: long) }
            }
            #expect(try fixture.package.load().items == [item])
        }
    }

    @Test func unreadablePackagesGiveErrorsNamingTheFileAndTheProblem() async throws {
        try await PackageFixture.with { fixture in
            let package = fixture.package
            let items = package.path + "/items.json"
            func reason(_ body: () throws -> Void) -> (path: String, reason: String)? {
                do { try body() } catch let GroceryError.corruptPackage(path, reason) { return (path, reason) } catch {
                    Issue.record("unexpected \(error)")
                }
                return nil
            }
            let item = try await fixture.update { try $0.add(name: "Milk") }
            let good = try String(contentsOfFile: items, encoding: .utf8)

            try fixture.write("{\"version\": 1, \"items\": [", to: "items.json")
            var failure = try #require(reason { _ = try package.load() })
            #expect(failure.path == items && failure.reason.contains("not valid JSON"))
            // A writer refuses too, and leaves the file for a person to look at.
            await #expect(throws: GroceryError.corruptPackage(path: items, reason: failure.reason)) {
                try await fixture.update { _ = try $0.add(name: "x") }
            }
            #expect(try String(contentsOfFile: items, encoding: .utf8) == "{\"version\": 1, \"items\": [")

            try fixture.write(good.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 2"), to: "items.json")
            failure = try #require(reason { _ = try package.load() })
            #expect(failure.reason.contains("format version 2, newer than this grocery reads (1)"))

            try fixture.write(#"{"items": []}"#, to: "items.json")
            #expect(reason { _ = try package.load() }?.reason.contains("no \"version\" field") == true)

            try fixture.write(good.replacingOccurrences(of: "\"created\" : \"", with: "\"created\" : \"yesterday"), to: "items.json")
            #expect(reason { _ = try package.load() }?.reason.hasPrefix("items[0].created: 'yesterday") == true)

            var document = try #require(try JSONSerialization.jsonObject(with: Data(good.utf8)) as? [String: Any])
            document["items"] = [(document["items"] as! [[String: Any]])[0].filter { $0.key != "name" }]
            try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: items))
            #expect(reason { _ = try package.load() }?.reason == "items[0]: the field \"name\" is missing")

            let twice = #"{"version": 1, "items": [ITEM, ITEM]}"#.replacingOccurrences(of: "ITEM", with: try jsonOf(item))
            try fixture.write(twice, to: "items.json")
            #expect(reason { _ = try package.load() }?.reason == "item \(item.id) appears twice")

            let escaping = try jsonOf(item).dropLast() + #", "image": {"format": "png", "file": "../../etc/passwd"}}"#
            try fixture.write(#"{"version": 1, "items": [\#(escaping)]}"#, to: "items.json")
            #expect(reason { _ = try package.load() }?.reason.contains("not a plain file name inside images/") == true)

            try FileManager.default.removeItem(atPath: items)
            #expect(reason { _ = try package.load() }! == (package.path, "items.json is missing"))
            await #expect(throws: GroceryError.corruptPackage(path: package.path, reason: "items.json is missing")) {
                try await fixture.update { _ = try $0.add(name: "x") }
            }
            #expect(!FileManager.default.fileExists(atPath: items), "a writer does not make up a list")

            try FileManager.default.removeItem(atPath: package.path)
            try Data().write(to: URL(fileURLWithPath: package.path))
            #expect(reason { _ = try package.load() }! == (package.path, "it is not a directory"))
            await #expect(throws: UbiquityKitError.self) { try await fixture.update { _ = try $0.add(name: "x") } }
        }
    }

    @Test func aMissingOrWrongImageFileIsReportedNotReturned() async throws {
        try await PackageFixture.with { fixture in
            let item = try await fixture.update { try $0.add(name: "Milk") }
            try await fixture.update { try $0.setImage(SampleImage.png, for: item.id) }
            let file = fixture.package.path + "/images/" + fixture.names(in: "/images")[0]
            try SampleImage.jpeg.write(to: URL(fileURLWithPath: file))
            #expect(throws: GroceryError.corruptPackage(path: file, reason: "it is not the PNG image items.json says it is")) {
                try fixture.package.image(for: item.id)
            }
            try FileManager.default.removeItem(atPath: file)
            #expect(throws: GroceryError.corruptPackage(path: file, reason: "the image of item \(item.id) is missing")) {
                try fixture.package.image(for: item.id)
            }
        }
    }

    @Test func leftoversOfACrashedWriterAreIgnoredThenCleanedByTheNextUpdate() async throws {
        try await PackageFixture.with { fixture in
            let package = fixture.package
            // A creator that died before its rename: a half-built hidden package in Documents.
            let staging = fixture.documents + "/.ubiquity-save-999999-1"
            try FileManager.default.createDirectory(atPath: staging + "/images", withIntermediateDirectories: true)
            try Data("{\"vers".utf8).write(to: URL(fileURLWithPath: staging + "/items.json"))
            #expect(try package.load() == GroceryPackageContents())
            let milk = try await fixture.update { try $0.add(name: "Milk") }
            #expect(try package.load().items == [milk])
            try await fixture.update { try $0.setImage(SampleImage.png, for: milk.id) }
            let committed = try package.load()
            let image = fixture.names(in: "/images")

            // A writer that died after writing its image and its temporary items.json, before the rename;
            // and what a sync engine keeps in images/ (a file on its way, a conflict copy), never a writer's to delete.
            try SampleImage.jpeg.write(to: URL(fileURLWithPath: package.path + "/images/\(milk.id)-deadbeefdeadbeef.jpg"))
            try fixture.write("{\"version\": 1, \"items\": [{\"id\": tru", to: ".ubiquity-save-999999-2")
            let syncing = [".syncthing.\(milk.id)-0123456789abcdef.png.tmp", "\(image[0]).sync-conflict-20261122-034428-NOFER4Z.png"]
            for name in syncing { try SampleImage.png.write(to: URL(fileURLWithPath: package.path + "/images/" + name)) }
            #expect(try package.load() == committed)
            #expect(try package.image(for: milk.id)?.data == SampleImage.png)

            try await fixture.update { try $0.add(name: "Bread") }
            #expect(fixture.names(in: "") == ["images", "items.json"])
            #expect(fixture.names(in: "/images") == (image + syncing).sorted())
            #expect(try package.load().items.map(\.name) == ["Milk", "Bread"])
        }
    }

    /// Four writers, each on its own connection, so the daemon's lock is what keeps them apart
    /// (GroceryPackageProcessTests does it with real processes).
    @Test func concurrentWritersOnSeparateConnectionsLoseNoUpdate() async throws {
        try await PackageFixture.with { fixture in
            let package = fixture.package
            let writers = 4, perWriter = 10
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        try await UbiquityConnection.withConnection(to: fixture.daemon.socket) { connection in
                            for n in 0..<perWriter {
                                let item = try await package.update(connection: connection) { try $0.add(name: "w\(writer)-\(n)") }
                                try await package.update(connection: connection) { try $0.rename(item.id, to: "w\(writer)-\(n) renamed") }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let names = try package.load().items.map(\.name)
            #expect(names.count == writers * perWriter)
            #expect(Set(names) == Set((0..<writers).flatMap { w in (0..<perWriter).map { "w\(w)-\($0) renamed" } }))
        }
    }

    /// Fails when a package save does not wait for the daemon's lock: while another connection
    /// holds it, an update gives up after its lock timeout and writes nothing.
    @Test func anUpdateWaitsForTheLockAnotherConnectionHolds() async throws {
        try await PackageFixture.with { fixture in
            let milk = try await fixture.update { try $0.add(name: "Milk") }
            let before = try String(contentsOfFile: fixture.package.path + "/items.json", encoding: .utf8)
            try await UbiquityConnection.withConnection(to: fixture.daemon.socket) { holder in
                let lock = try await holder.send(DocumentLock(path: fixture.package.path)).lock
                await #expect(throws: UbiquityKitError.documentBusy(path: fixture.package.path, seconds: 0)) {
                    try await fixture.update(lockTimeout: .milliseconds(300)) { try $0.rename(milk.id, to: "Oat milk") }
                }
                #expect(try String(contentsOfFile: fixture.package.path + "/items.json", encoding: .utf8) == before)
                _ = try await holder.send(DocumentUnlock(lock: lock))
            }
            try await fixture.update(lockTimeout: .seconds(5)) { try $0.rename(milk.id, to: "Oat milk") }
            #expect(try fixture.package.load().items.map(\.name) == ["Oat milk"])
        }
    }

    private func jsonOf(_ item: PackagedItem) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(item), as: UTF8.self)
    }
}
