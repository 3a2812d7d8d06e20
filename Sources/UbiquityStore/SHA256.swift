internal import CLibcrypto

/// SHA-256 (FIPS 180-4), computed by the system's libcrypto, for row ids derived from meaning:
/// any language can recompute them (`hashlib.sha256` in Python), and no device can pick a key
/// that lands on another row's id.
enum SHA256 {
    /// The 32-byte digest of `message`.
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        message.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                // Never fails: SHA256 returns its output pointer. An empty message's null base
                // address is fine (it reads no bytes).
                _ = CLibcrypto.SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }
}
