/// CRC-32 (IEEE 802.3, the polynomial of zlib, gzip and Python's `zlib.crc32`), eight bytes per
/// step (slicing-by-8): the checksum at the end of every segment, which catches a torn or
/// flipped byte. It is not a defence against a hostile device, which can compute it too; the
/// decoder's limits are.
enum CRC32 {
    /// Eight tables of 256 one after the other: entry 256·k + n is the CRC of byte n followed by k zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            tables[n] = c
        }
        for k in 1..<8 {
            for n in 0..<256 {
                let previous = tables[256 * (k - 1) + n]
                tables[256 * k + n] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { t in
            bytes.withUnsafeBufferPointer { buffer in
                var i = 0
                let count = buffer.count
                while i + 8 <= count {
                    let one = crc ^ (UInt32(buffer[i]) | UInt32(buffer[i + 1]) << 8 | UInt32(buffer[i + 2]) << 16 | UInt32(buffer[i + 3]) << 24)
                    crc = t[1792 + Int(one & 0xFF)] ^ t[1536 + Int(one >> 8 & 0xFF)] ^ t[1280 + Int(one >> 16 & 0xFF)] ^ t[1024 + Int(one >> 24)]
                        ^ t[768 + Int(buffer[i + 4])] ^ t[512 + Int(buffer[i + 5])] ^ t[256 + Int(buffer[i + 6])] ^ t[Int(buffer[i + 7])]
                    i += 8
                }
                while i < count {
                    crc = t[Int((crc ^ UInt32(buffer[i])) & 0xFF)] ^ (crc >> 8)
                    i += 1
                }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
