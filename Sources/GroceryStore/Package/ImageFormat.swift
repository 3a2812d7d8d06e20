/// The image formats an item can carry, recognised by their first bytes (never by a file's
/// extension): PNG `89 50 4E 47 0D 0A 1A 0A`, JPEG `FF D8 FF`.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case png, jpeg

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// The format whose signature `data` starts with, or nil (GIF, text, fewer bytes than a signature).
    public static func detect(_ data: some Collection<UInt8>) -> ImageFormat? {
        if data.starts(with: pngSignature) { return .png }
        if data.starts(with: jpegSignature) { return .jpeg }
        return nil
    }

    /// The extension of the image's file inside the package: `png` or `jpg`.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        }
    }
}
