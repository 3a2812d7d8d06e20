import Foundation
import Glibc
import Synchronization
@testable import GroceryStore
import Testing

/// A throw-away container (`<dir>/Documents` and the lock beside it) for one test.
final class PackageFixture {
    let directory: String
    let package: GroceryPackage
    var documents: String { package.documentsDirectory }

    init() throws {
        var template = Array("/tmp/grocery-pkg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw GroceryError.io(path: "/tmp", operation: "mkdtemp", message: "failed") }
        directory = String(cString: made)
        try FileManager.default.createDirectory(atPath: directory + "/Documents", withIntermediateDirectories: false)
        package = GroceryPackage(documentsDirectory: directory + "/Documents", lockDirectory: directory)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

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

@Suite struct GroceryPackageTests {
    @Test func aMissingPackageIsEmptyAndANoOpUpdateDoesNotCreateIt() throws {
        let fixture = try PackageFixture()
        #expect(!fixture.package.exists)
        #expect(try fixture.package.load() == GroceryPackageContents())
        try fixture.package.update { _ in }
        #expect(!fixture.package.exists)
        #expect(fixture.package.path == fixture.documents + "/grocery.gro")
    }

    @Test func everyChangeRoundTripsThroughLoad() throws {
        let fixture = try PackageFixture()
        let package = fixture.package
        let milk = try package.update { try $0.add(name: "Milk") }
        let bread = try package.update { try $0.add(name: "Bread") }
        #expect(package.exists)
        #expect(try package.load().items == [milk, bread])
        #expect(fixture.names(in: "") == ["images", "items.json"])

        try package.update { try $0.rename(milk.id, to: "Oat milk") }
        try package.update { try $0.setImage(SampleImage.png, for: bread.id) }
        var loaded = try package.load()
        #expect(loaded.items.map(\.name) == ["Oat milk", "Bread"])
        #expect(loaded.item(bread.id)?.image == .png)
        #expect(loaded.item(milk.id)?.image == nil)
        #expect(loaded.item(milk.id)!.modified >= milk.modified)
        #expect(try package.image(for: bread.id)?.data == SampleImage.png)
        #expect(try package.image(for: bread.id)?.format == .png)
        #expect(try package.image(for: milk.id) == nil)
        #expect(fixture.names(in: "/images").count == 1)

        // Replacing the image leaves exactly the new file.
        try package.update { try $0.setImage(SampleImage.jpeg, for: bread.id) }
        #expect(try package.image(for: bread.id)?.format == .jpeg)
        #expect(try package.image(for: bread.id)?.data == SampleImage.jpeg)
        let files = fixture.names(in: "/images")
        #expect(files.count == 1 && files[0].hasPrefix(bread.id.uuidString + "-") && files[0].hasSuffix(".jpg"))

        try package.update { try $0.removeImage(for: bread.id) }
        #expect(try package.image(for: bread.id) == nil)
        #expect(fixture.names(in: "/images").isEmpty)

        try package.update { try $0.setImage(SampleImage.png, for: milk.id) }
        try package.update { try $0.remove(milk.id) }
        loaded = try package.load()
        #expect(loaded.items.map(\.id) == [bread.id])
        #expect(fixture.names(in: "/images").isEmpty)   // removing the item dropped its image
        #expect(throws: GroceryError.unknownItem(prefix: milk.id.uuidString)) { try package.image(for: milk.id) }
    }

    @Test func whatAnUpdateReturnsEqualsWhatIsLoaded() throws {
        let fixture = try PackageFixture()
        // Sub-millisecond dates are kept to the millisecond, the precision items.json stores.
        let created = Date(timeIntervalSince1970: 1_795_428_000.123_456)
        let item = try fixture.package.update { try $0.add(name: "Eggs", created: created) }
        #expect(item.created == Date(timeIntervalSince1970: 1_795_428_000.123))
        #expect(try fixture.package.load().items == [item])
        let json = try String(contentsOfFile: fixture.package.path + "/items.json", encoding: .utf8)
        #expect(json.contains(#""created" : "2026-11-23T10:00:00.123Z""#))
        #expect(json.contains(#""version" : 1"#))
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

    @Test(arguments: ["", "two\nlines\r\nand a CR\r", "🍎🧑‍🧑‍🧒 apples", "חלב \u{200F}ושוקו", "e\u{301} vs é", "nul\u{0}inside",
                      "  spaces  ", #"quotes " and \ backslash / slash"#, String(repeating: "ü", count: GroceryLimits.maxNameBytes / 2 - 1)])
    func namesRoundTripByteForByte(name: String) throws {
        let fixture = try PackageFixture()
        let item = try fixture.package.update { try $0.add(name: name) }
        let loaded = try #require(try fixture.package.load().item(item.id))
        #expect(Array(loaded.name.utf8) == Array(name.utf8))
        try fixture.package.update { try $0.rename(item.id, to: name + name.prefix(1)) }
        #expect(Array(try fixture.package.load().item(item.id)!.name.utf8) == Array((name + name.prefix(1)).utf8))
    }

    @Test func tooLongNamesAreRefusedAndNothingIsWritten() throws {
        let fixture = try PackageFixture()
        let limit = GroceryLimits.maxNameBytes
        let long = String(repeating: "x", count: limit + 1)
        #expect(throws: GroceryError.nameTooLong(bytes: limit + 1, limit: limit)) {
            try fixture.package.update { try $0.add(name: long) }
        }
        #expect(!fixture.package.exists)
        let item = try fixture.package.update { try $0.add(name: "ok") }
        #expect(throws: GroceryError.nameTooLong(bytes: limit + 1, limit: limit)) {
            try fixture.package.update { try $0.rename(item.id, to: long) }
        }
        #expect(try fixture.package.load().items == [item])
    }

    @Test func unreadablePackagesGiveErrorsNamingTheFileAndTheProblem() throws {
        let fixture = try PackageFixture()
        let package = fixture.package
        let items = package.path + "/items.json"
        func reason(_ body: () throws -> Void) -> (path: String, reason: String)? {
            do { try body() } catch let GroceryError.corruptPackage(path, reason) { return (path, reason) } catch {
                Issue.record("unexpected \(error)")
            }
            return nil
        }
        let item = try package.update { try $0.add(name: "Milk") }
        let good = try String(contentsOfFile: items, encoding: .utf8)

        try fixture.write("{\"version\": 1, \"items\": [", to: "items.json")
        var failure = try #require(reason { _ = try package.load() })
        #expect(failure.path == items && failure.reason.contains("not valid JSON"))
        // A writer refuses too, and leaves the file for a person to look at.
        #expect(reason { try package.update { _ = try $0.add(name: "x") } }?.path == items)
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

        try FileManager.default.removeItem(atPath: package.path)
        try Data().write(to: URL(fileURLWithPath: package.path))
        #expect(reason { _ = try package.load() }! == (package.path, "it is not a directory"))
    }

    @Test func aMissingOrWrongImageFileIsReportedNotReturned() throws {
        let fixture = try PackageFixture()
        let item = try fixture.package.update { try $0.add(name: "Milk") }
        try fixture.package.update { try $0.setImage(SampleImage.png, for: item.id) }
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

    @Test func leftoversOfACrashedWriterAreIgnoredThenCleanedByTheNextUpdate() throws {
        let fixture = try PackageFixture()
        let package = fixture.package
        // A creator that died before its rename: a half-built hidden package in Documents.
        let staging = fixture.documents + "/.grocery.gro.tmp-0123456789abcdef"
        try FileManager.default.createDirectory(atPath: staging + "/images", withIntermediateDirectories: true)
        try Data("{\"vers".utf8).write(to: URL(fileURLWithPath: staging + "/items.json"))
        #expect(try package.load() == GroceryPackageContents())
        let milk = try package.update { try $0.add(name: "Milk") }
        #expect(!FileManager.default.fileExists(atPath: staging))
        try package.update { try $0.setImage(SampleImage.png, for: milk.id) }
        let committed = try package.load()
        let image = fixture.names(in: "/images")

        // A writer that died after writing its image and its temp items.json, before the rename.
        try SampleImage.jpeg.write(to: URL(fileURLWithPath: package.path + "/images/\(milk.id)-deadbeefdeadbeef.jpg"))
        try fixture.write("{\"version\": 1, \"items\": [{\"id\": tru", to: ".items.json.tmp-deadbeefdeadbeef")
        #expect(try package.load() == committed)
        #expect(try package.image(for: milk.id)?.data == SampleImage.png)

        try package.update { try $0.add(name: "Bread") }
        #expect(fixture.names(in: "") == ["images", "items.json"])
        #expect(fixture.names(in: "/images") == image)
        #expect(try package.load().items.map(\.name) == ["Milk", "Bread"])
    }

    /// Each thread opens the lock file itself, and flock locks belong to the open file
    /// description, so the threads exclude each other exactly as separate processes would
    /// (GroceryPackageProcessTests does it with real processes).
    @Test func concurrentWritersOnSeparateDescriptorsLoseNoUpdate() throws {
        let fixture = try PackageFixture()
        let package = fixture.package
        let writers = 4, perWriter = 15
        let failures = LockedFailures()
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for n in 0..<perWriter {
                do {
                    let item = try package.update { try $0.add(name: "w\(writer)-\(n)") }
                    try package.update { try $0.rename(item.id, to: "w\(writer)-\(n) renamed") }
                } catch { failures.append("\(error)") }
            }
        }
        #expect(failures.all.isEmpty)
        let names = try package.load().items.map(\.name)
        #expect(names.count == writers * perWriter)
        #expect(Set(names) == Set((0..<writers).flatMap { w in (0..<perWriter).map { "w\(w)-\($0) renamed" } }))
    }

    private func jsonOf(_ item: PackagedItem) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(item), as: UTF8.self)
    }
}

/// Errors collected from several threads.
final class LockedFailures: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ failure: String) { storage.withLock { $0.append(failure) } }
    var all: [String] { storage.withLock { $0 } }
}
