import Glibc
import Testing
import UbiquityStore
import UbiquityStoreFiles
import UbiquitySystem
import UbiquityTesting
import UbiquityErrors

/// Segment files from "remote devices" that are damaged or hostile: each is reported (which
/// device, which segment, why), never skipped and never fatal; that device's import waits at it
/// while the others go on, and resumes once sync replaces the file.
@Suite("Hostile segment files")
struct HostileSegmentTests {
    /// Device `name`'s segments 1 and 2, each inserting one item, as its log would hold them.
    static func log(_ name: String, schema: Schema = Devices.schema) throws -> [[UInt8]] {
        var replica = StoreReplica(schema: schema, device: DeviceID(name)!)
        return try (1...2).map { n in
            try replica.commit([.insert(table: "items", id: RowID(high: UInt64(n), low: UInt64(name.utf8.count)),
                                        values: ["name": .string("\(name) \(n)")])], wall: 1_767_225_600_000)!.segment.encoded()
        }
    }

    /// Recomputes the CRC-32 at the end, as a hostile device would.
    static func reseal(_ bytes: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes.dropLast(4) {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        return Array(bytes.dropLast(4)) + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
    }

    @Test func everyKindOfBadSegmentIsReportedAndOnlyItsDeviceWaits() async throws {
        let devices = try Devices()
        let laptop = try await devices.open("laptop", limits: SegmentLimits(maxSegmentBytes: 4_096))
        var v2 = Devices.schema.tables
        v2[0] = TableSchema("items", columns: v2[0].columns + [ColumnSchema("aisle", .string)])
        let newer = try Schema(version: 2, tables: v2, relationships: Devices.schema.relationships)

        // Each device: segment 1 good, segment 2 spoiled one way.
        var expected: [String: String] = [:]
        func place(_ device: String, _ second: [UInt8]?, schema: Schema = Devices.schema) throws -> [[UInt8]] {
            let log = try Self.log(device, schema: schema)
            let folder = try devices.logs("laptop", of: device)
            try FS.mkdirs(folder)
            try Devices.write(folder + "/1", log[0])
            if let second { try Devices.write(folder + "/2", second) }
            return log
        }
        let truncated = try place("truncated", nil)
        try Devices.write(try devices.logs("laptop", of: "truncated") + "/2", Array(truncated[1].prefix(truncated[1].count - 7)))
        expected["truncated"] = StoreErrorCode.segmentTruncated.rawValue
        var flipped = try Self.log("flipped")[1]
        flipped[flipped.count / 2] ^= 0x10
        let flippedLog = try place("flipped", flipped)
        expected["flipped"] = StoreErrorCode.segmentChecksum.rawValue
        _ = try place("oversized", Array(repeating: 0x55, count: 5_000))
        expected["oversized"] = StoreErrorCode.segmentOversized.rawValue
        var future = try Self.log("future")[1]
        future[4] = 3                                     // format 2 is a segment with repairs
        _ = try place("future", Self.reseal(future))
        expected["future"] = StoreErrorCode.segmentFutureFormat.rawValue
        _ = try place("linked", nil)
        try FS.symlink(try devices.logs("laptop", of: "flipped") + "/1", try devices.logs("laptop", of: "linked") + "/2")
        expected["linked"] = StoreErrorCode.segmentMalformed.rawValue
        // Wrong schema: an item column this schema does not have, sealed correctly.
        var stranger = StoreReplica(schema: newer, device: DeviceID("stranger")!)
        _ = try place("stranger", nil)
        _ = try stranger.commit([.insert(table: "items", id: RowID(high: 9, low: 1), values: ["name": .string("x")])], wall: 1)
        let foreign = try stranger.commit([.insert(table: "items", id: RowID(high: 9, low: 2), values: ["name": .string("y"), "aisle": .string("3")])], wall: 2)!.segment
        let relabelled = try Segment(device: foreign.device, sequence: 2, schemaVersion: 1, changes: foreign.changes)
        try Devices.write(try devices.logs("laptop", of: "stranger") + "/2", relabelled.encoded())
        expected["stranger"] = StoreErrorCode.segmentDoesNotMatchSchema.rawValue
        // A newer schema: not damage, an upgrade to wait for.
        var upgraded = StoreReplica(schema: newer, device: DeviceID("upgraded")!)
        let u1 = try upgraded.commit([.insert(table: "items", id: RowID(high: 8, low: 1), values: ["name": .string("u")])], wall: 1)!.segment
        try FS.mkdirs(try devices.logs("laptop", of: "upgraded"))
        try Devices.write(try devices.logs("laptop", of: "upgraded") + "/1", u1.encoded())
        // And a healthy device, which imports everything.
        _ = try place("healthy", try Self.log("healthy")[1])

        let imported = try await laptop.importAvailable()
        let states = Dictionary(uniqueKeysWithValues: laptop.syncStates.map { ($0.device.rawValue, $0) })
        #expect(states["healthy"]?.imported == 2 && states["healthy"]?.condition == .current)
        #expect(imported.filter { $0.device == DeviceID("healthy")! }.map(\.sequence) == [1, 2])
        for (device, code) in expected {
            guard case .degraded(let sequence, let found, let reason)? = states[device]?.condition else {
                Issue.record("\(device): \(String(describing: states[device]))")
                continue
            }
            #expect(states[device]?.imported == 1, "\(device) imported its good segment")
            #expect(sequence == 2 && found == code, "\(device): \(found) \(reason)")
            #expect(reason.hasPrefix("segment 2 of device \(device): "), "\(reason)")
        }
        #expect(states["upgraded"]?.condition == .needsUpgrade(sequence: 1, schemaVersion: 2))
        #expect(states["upgraded"]?.imported == 0)
        // Nothing moved past a bad segment, and the store still writes its own.
        #expect(try await laptop.commit([.insert(table: "items", id: RowID(high: 7, low: 7), values: ["name": .string("mine")])])?.sequence == 1)
        #expect(try await laptop.importAvailable().isEmpty)

        // Sync replaces the damaged file with the right one: that device goes on.
        try Devices.write(try devices.logs("laptop", of: "flipped") + "/2", flippedLog[1])
        #expect(try await laptop.importAvailable().map(\.sequence) == [2])
        #expect(laptop.syncStates.first { $0.device == DeviceID("flipped")! }?.condition == .current)
        // After the upgrade, the newer segment imports.
        let upgradedStore = try await devices.open("laptop", schema: newer, limits: SegmentLimits(maxSegmentBytes: 4_096))
        #expect(upgradedStore.syncStates.first { $0.device == DeviceID("upgraded")! }?.imported == 1)
    }
}
