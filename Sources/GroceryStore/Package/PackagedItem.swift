public import Foundation

/// One entry of the package's list, as stored in `items.json` (docs/grocery-package.md).
///
/// Dates are kept to the millisecond, the precision `items.json` stores, so an item read back
/// from disk equals the one that was written.
public struct PackagedItem: Sendable, Equatable, Codable {
    public let id: GroceryItemID
    public var name: String
    public let created: Date
    public var modified: Date
    /// nil = no image.
    public var image: ImageFormat?
    /// The image's file name inside `images/` (`<ID>-<token>.<ext>`); set together with `image`.
    var imageFile: String?

    init(id: GroceryItemID, name: String, created: Date) {
        self.id = id
        self.name = name
        self.created = PackageTimestamp.rounded(created)
        self.modified = self.created
    }

    private enum CodingKeys: String, CodingKey { case id, name, created, modified, image }
    private struct StoredImage: Codable {
        var format: ImageFormat
        var file: String
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(GroceryItemID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        created = try PackageTimestamp.decode(container.decode(String.self, forKey: .created), at: decoder.codingPath + [CodingKeys.created])
        modified = try PackageTimestamp.decode(container.decode(String.self, forKey: .modified), at: decoder.codingPath + [CodingKeys.modified])
        if let stored = try container.decodeIfPresent(StoredImage.self, forKey: .image) {
            // The file name comes from disk: refuse anything that could point outside images/.
            guard !stored.file.isEmpty, !stored.file.hasPrefix("."), !stored.file.contains("/") else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [CodingKeys.image],
                                                        debugDescription: "'\(stored.file)' is not a plain file name inside images/"))
            }
            image = stored.format
            imageFile = stored.file
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(PackageTimestamp.encode(created), forKey: .created)
        try container.encode(PackageTimestamp.encode(modified), forKey: .modified)
        if let image, let imageFile {
            try container.encode(StoredImage(format: image, file: imageFile), forKey: .image)
        }
    }
}

/// `items.json` dates: ISO 8601 in UTC with milliseconds, `2026-11-22T10:00:00.123Z`, read back exactly.
enum PackageTimestamp {
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    static func rounded(_ date: Date) -> Date { self.date(milliseconds: milliseconds(date)) }

    static func encode(_ date: Date) -> String {
        let total = milliseconds(date)
        let (seconds, millis) = (floorDivide(total, 1000), total - floorDivide(total, 1000) * 1000)
        let whole = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(seconds)))
        let fraction = String(millis + 1000).dropFirst()  // always three digits
        return whole.dropLast() + "." + fraction + "Z"
    }

    static func decode(_ text: String, at path: [any CodingKey]) throws -> Date {
        var whole = Substring(text)
        var millis: Int64 = 0
        if let dot = text.firstIndex(of: "."), text.hasSuffix("Z") {
            let digits = text[text.index(after: dot)..<text.index(before: text.endIndex)]
            guard (1...3).contains(digits.count), let value = Int64(digits), digits.allSatisfy(\.isASCII) else {
                throw badDate(text, at: path)
            }
            millis = value * [100, 10, 1][digits.count - 1]
            whole = text[..<dot] + "Z"
        }
        guard let seconds = try? Date.ISO8601FormatStyle().parse(String(whole)) else { throw badDate(text, at: path) }
        return date(milliseconds: Int64(seconds.timeIntervalSince1970.rounded()) * 1000 + millis)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    private static func badDate(_ text: String, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: "'\(text)' is not a date like 2026-11-22T10:00:00.123Z"))
    }
}
