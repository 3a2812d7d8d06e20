import UbiquityProtocol

/// The secrets of publishing: a URL's token and a snapshot's file name, from the kernel's CSPRNG
/// (`SystemRandomNumberGenerator` is `getrandom(2)` on Linux). Pure apart from the generator.
enum PublishToken {
    /// 24 random bytes (192 bits) as 32 characters of base64url (``PublishTokenFormat``).
    static func make(using generator: inout some RandomNumberGenerator) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<3 { withUnsafeBytes(of: generator.next() as UInt64) { bytes += $0 } }
        var out: [UInt8] = []
        for i in stride(from: 0, to: bytes.count, by: 3) {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for shift in [18, 12, 6, 0] { out.append(PublishTokenFormat.alphabet[Int(n >> UInt32(shift) & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A snapshot file's name: `snapshot-` and 32 hex digits (128 random bits).
    static func makeFileName(using generator: inout some RandomNumberGenerator) -> String {
        let hex = (0..<2).map { _ in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return "snapshot-" + hex.joined()
    }

    static func isWellFormedFileName(_ name: String) -> Bool {
        name.hasPrefix("snapshot-") && name.utf8.count == 41
            && name.utf8.dropFirst(9).allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
