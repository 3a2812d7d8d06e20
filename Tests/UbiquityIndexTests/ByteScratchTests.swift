import Testing
import UbiquityBinary
import UbiquityTesting

/// A scratch buffer writes the bytes the writer's own methods of the same names write: the saved
/// index's statuses go through it, and files written before it must read the same.
struct ByteScratchTests {
    @Test func writesWhatTheWriterWrites() {
        var random = SplitMix64(seed: 5)
        // Values at every varint width's edges, and random ones.
        var values: [UInt64] = [0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, UInt64(UInt32.max), 1 << 63, .max]
        for _ in 0..<2_000 { values.append(random.next() >> (random.next() % 64)) }
        for value in values {
            var plain = ByteWriter(), scratched = ByteWriter()
            let signed = Int64(bitPattern: value)
            plain.byte(UInt8(truncatingIfNeeded: value))
            plain.varint(value)
            plain.int64(signed)
            plain.zigzag(signed)
            plain.varint(UInt32(truncatingIfNeeded: value))
            plain.varint(Int(truncatingIfNeeded: signed))
            scratched.byte(0xEE)
            scratched.scratch { fields in
                fields.byte(UInt8(truncatingIfNeeded: value))
                fields.varint(value)
                fields.int64(signed)
                fields.zigzag(signed)
                fields.varint(UInt32(truncatingIfNeeded: value))
                fields.varint(Int(truncatingIfNeeded: signed))
            }
            #expect(scratched.bytes == [0xEE] + plain.bytes, "value \(value)")
        }
    }
}
