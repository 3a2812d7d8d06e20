import Testing
import UbiquityTesting
@testable import UbiquityServer

/// The `system.posix_acl_access` parser: the kernel's bytes, its validity rules, hostile values.
@Suite struct PosixACLTests {
    /// What the kernel returned for `setfacl -m u:54321:r--,g:54400:rw-,m::r--` on a 0644 file.
    static let kernelValue: [UInt8] = hex("""
        02000000 0100 0600 ffffffff 0200 0400 31d40000 0400 0400 ffffffff \
        0800 0600 80d40000 1000 0400 ffffffff 2000 0400 ffffffff
        """)

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    @Test func parsesWhatTheKernelStores() throws {
        let acl = try PosixACL(attribute: Self.kernelValue)
        #expect(acl.description == "u::rw-,u:54321:r--,g::r--,g:54400:rw-,m::r--,o::r--")
        #expect(acl.entries[1] == PosixACL.Entry(.user, 4, id: 54321))
        #expect(acl.entries[3] == PosixACL.Entry(.group, 6, id: 54400))
        #expect(acl.attribute == Self.kernelValue)
    }

    @Test func aMinimalACLNeedsNoMask() throws {
        let acl = try PosixACL(entries: [.init(.owner, 6), .init(.owningGroup, 4), .init(.other, 0)])
        #expect(try PosixACL(attribute: acl.attribute) == acl)
    }

    @Test("Values the kernel would never accept are refused with their reason", arguments: [
        ([], PosixACLError.Reason.tooShort(bytes: 0)),
        ([2, 0, 0], .tooShort(bytes: 3)),
        ([1, 0, 0, 0], .version(1)),
        ([0, 0, 0, 2], .version(0x0200_0000)),
        ([2, 0, 0, 0, 1, 0, 6, 0, 0xff, 0xff, 0xff], .partialEntry(bytes: 11)),
        ([2, 0, 0, 0], .incomplete),
        ([2, 0, 0, 0, 0x40, 0, 6, 0, 0, 0, 0, 0], .unknownTag(0x40, entry: 0)),
        ([2, 0, 0, 0, 0x03, 0, 6, 0, 0, 0, 0, 0], .unknownTag(0x03, entry: 0)),
        ([2, 0, 0, 0, 0x01, 0, 8, 0, 0, 0, 0, 0], .permissions(8, entry: 0)),
        ([2, 0, 0, 0, 0x01, 0, 0, 1, 0, 0, 0, 0], .permissions(0x100, entry: 0)),
    ] as [([UInt8], PosixACLError.Reason)])
    func hostileBytes(_ value: [UInt8], _ reason: PosixACLError.Reason) {
        #expect(throws: PosixACLError(reason)) { try PosixACL(attribute: value) }
    }

    @Test("Entries out of the kernel's order are refused (posix_acl_valid)", arguments: [
        ([.init(.owner, 6), .init(.owner, 6), .init(.owningGroup, 4), .init(.other, 0)], PosixACLError.Reason.order(entry: 1)),
        ([.init(.owningGroup, 4), .init(.owner, 6), .init(.other, 0)], .order(entry: 0)),
        ([.init(.owner, 6), .init(.owningGroup, 4), .init(.user, 4, id: 1), .init(.mask, 4), .init(.other, 0)], .order(entry: 2)),
        // A named entry needs a mask.
        ([.init(.owner, 6), .init(.user, 4, id: 1), .init(.owningGroup, 4), .init(.other, 0)], .order(entry: 3)),
        ([.init(.owner, 6), .init(.owningGroup, 4), .init(.other, 0), .init(.group, 4, id: 1)], .order(entry: 3)),
        ([.init(.owner, 6), .init(.owningGroup, 4), .init(.mask, 4)], .incomplete),
        ([.init(.owner, 6), .init(.owningGroup, 4), .init(.mask, 4), .init(.mask, 4), .init(.other, 0)], .order(entry: 3)),
    ] as [([PosixACL.Entry], PosixACLError.Reason)])
    func outOfOrder(_ entries: [PosixACL.Entry], _ reason: PosixACLError.Reason) {
        #expect(throws: PosixACLError(reason)) { try PosixACL(entries: entries) }
        // The same through the bytes, which the encoder writes whatever the order.
        var bytes: [UInt8] = [2, 0, 0, 0]
        for entry in entries {
            bytes += [UInt8(entry.tag.rawValue), 0, entry.permissions, 0, 0xff, 0xff, 0xff, 0xff]
        }
        #expect(throws: PosixACLError(reason)) { try PosixACL(attribute: bytes) }
    }

    /// The most entries a value of `XATTR_SIZE_MAX` bytes holds parse; one more entry is too long.
    @Test func hugeCounts() throws {
        let users = (PosixACL.maxBytes - 4) / 8 - 4
        let entries = [PosixACL.Entry(.owner, 7)] + (0..<users).map { PosixACL.Entry(.user, 5, id: UInt32($0)) }
            + [.init(.owningGroup, 5), .init(.mask, 5), .init(.other, 0)]
        let value = try PosixACL(entries: entries).attribute
        #expect(try PosixACL(attribute: value).entries.count == entries.count)
        let longer = value + [0x02, 0, 4, 0, 0, 0, 0, 0]
        #expect(throws: PosixACLError(.tooLong(bytes: longer.count))) { try PosixACL(attribute: longer) }
        #expect(throws: PosixACLError(.tooLong(bytes: 1 << 20))) { try PosixACL(attribute: [UInt8](repeating: 2, count: 1 << 20)) }
    }

    /// Random values — valid ACLs with one byte changed or cut short, and random entries — never
    /// trap, and whatever parses is written back as the same bytes.
    @Test func randomBytesNeverTrap() throws {
        let seed: UInt64 = 0xAC1_5EED
        var random = SplitMix64(seed: seed)
        func randomByte() -> UInt8 { UInt8.random(in: 0...255, using: &random) }
        var parsed = 0
        for _ in 0..<20_000 {
            var bytes: [UInt8]
            if random.chance(0.5) {
                let named = random.int(0...3)
                let entries = [PosixACL.Entry(.owner, 6)] + (0..<named).map { PosixACL.Entry(.user, 4, id: UInt32($0)) }
                    + [.init(.owningGroup, 4)] + (named > 0 || random.chance(0.5) ? [.init(.mask, 5)] : []) + [.init(.other, 0)]
                bytes = try PosixACL(entries: entries).attribute
                if random.chance(0.5) { bytes[random.int(0...(bytes.count - 1))] = randomByte() }
            } else {
                bytes = random.chance(0.9) ? [2, 0, 0, 0] : (0..<random.int(0...5)).map { _ in randomByte() }
                for _ in 0..<random.int(0...8) {
                    let tag = random.chance(0.9) ? random.pick([1, 2, 4, 8, 0x10, 0x20] as [UInt8]) : randomByte()
                    let permissions = random.chance(0.9) ? UInt8(random.int(0...7)) : randomByte()
                    bytes += [tag, 0, permissions, 0] + (0..<4).map { _ in randomByte() }
                }
            }
            if random.chance(0.1) { bytes.removeLast(random.int(0...min(3, bytes.count))) }
            if let acl = try? PosixACL(attribute: bytes) {
                parsed += 1
                #expect(acl.attribute == bytes, "seed \(seed): \(bytes)")
            }
        }
        print("PosixACLTests: seed \(seed), \(parsed) of 20000 random values valid")
        #expect(parsed > 2000)
    }
}
