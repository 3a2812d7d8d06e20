import Testing
import UbiquityBinary
@testable import UbiquityStore

@Suite("Row ids: random, or derived from meaning with SHA-256; the checksum is zlib's CRC-32")
struct RowIdentityTests {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    @Test("SHA-256 matches FIPS 180-4's examples (one block, empty, two blocks)")
    func sha256() {
        #expect(hex(SHA256.digest(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(SHA256.digest([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("CRC-32 is zlib's, at every length around the eight-byte steps")
    func crc32() {
        #expect(CRC32.checksum(Array("123456789".utf8)[...]) == 0xCBF4_3926)
        #expect(CRC32.checksum([][...]) == 0)
        // Against the one-byte-at-a-time definition, for every length 0...40 and every start offset.
        let bytes = (0..<48).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        func reference(_ slice: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in slice {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            }
            return crc ^ 0xFFFF_FFFF
        }
        for start in 0..<8 {
            for length in 0...40 { #expect(CRC32.checksum(bytes[start ..< start + length]) == reference(bytes[start ..< start + length])) }
        }
    }

    @Test("The tags of the book have the ids Python's hashlib gives for the documented recipe")
    func meaning() throws {
        // hashlib.sha256(b"ubiquity-store-row-v1\0tags\0s" + name + b"\0").hexdigest()[:32]
        #expect(Grocery.tag("mall").id.description == "98471ebd5834f35ea8bba0281d3c03c2")
        #expect(Grocery.tag("green grocer").id.description == "2226abeb6aeef0e3df8979f0af5a7924")
        #expect(Grocery.tag("grocery store").id.description == "5abf8b8307e4a42eaf61208b8f0d2f1a")
    }

    @Test("Keys are folded: case, runs of white space, the ends, and canonically equal spellings are one key")
    func folding() throws {
        #expect(MeaningKey.fold("  Green\t\nGrocer ") == "green grocer")
        #expect(MeaningKey.fold("Cafe\u{301}") == MeaningKey.fold("caf\u{E9}"))
        #expect(Array(MeaningKey.fold("Cafe\u{301}").utf8) == [0x63, 0x61, 0x66, 0xC3, 0xA9])
        #expect(Grocery.tag("MALL") == Grocery.tag(" mall "))
        #expect(Grocery.tag("mall") != Grocery.tag("malls"))
        let numbered = TableSchema("aisles", columns: [ColumnSchema("number", .integer, nullable: false)], uniqueBy: ["number"])
        #expect(try MeaningKey.rowID(table: numbered, values: ["number": .integer(7)])
            != MeaningKey.rowID(table: numbered, values: ["number": .integer(8)]))
        #expect(throws: StoreError.self) { try MeaningKey.rowID(table: numbered, values: [:]) }
    }

    @Test("Ids print as 32 hex digits and read back; random ones come from the generator passed in")
    func text() {
        let id = RowID(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        #expect(id.description == "0123456789abcdeffedcba9876543210")
        #expect(RowID(id.description) == id)
        #expect(RowID("0123456789ABCDEFFEDCBA9876543210") == id)
        #expect(RowID("0123") == nil)
        #expect(RowID("0123456789abcdeffedcba987654321g") == nil)
        #expect(RowID(bytes: id.bytes) == id)
        var a = FixedGenerator(), b = FixedGenerator()
        #expect(RowID.random(using: &a) == RowID.random(using: &b))
    }

    struct FixedGenerator: RandomNumberGenerator {
        var state: UInt64 = 41
        mutating func next() -> UInt64 { state &+= 0x9E37_79B9_7F4A_7C15; return state }
    }

    @Test("Device ids are 1 to 64 of A-Z a-z 0-9 - _")
    func devices() {
        #expect(DeviceID("3f0c9a") != nil)
        #expect(DeviceID("a_b-C") != nil)
        #expect(DeviceID("") == nil)
        #expect(DeviceID("a/b") == nil)
        #expect(DeviceID("é") == nil)
        #expect(DeviceID(String(repeating: "a", count: 64)) != nil)
        #expect(DeviceID(String(repeating: "a", count: 65)) == nil)
    }
}
