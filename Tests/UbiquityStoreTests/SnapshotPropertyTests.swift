import Testing
@testable import UbiquityStore
import UbiquityTesting

/// A snapshot is the merge of a prefix of each device's log: a replica that joins one or more
/// snapshots, then receives the segments past their watermarks (in any order, with duplicates),
/// holds exactly the state of a replica that received every segment — and the bytes of a
/// snapshot survive the round trip, and no damage to them passes unnoticed.
@Suite("Snapshots: joining prefixes of the logs, then the rest, gives the same state")
struct SnapshotPropertyTests {
    typealias Simulation = ConvergencePropertyTests.Simulation

    /// The state of the segments of `log` within `marks` (each device's prefix), received in a random order.
    static func prefixState(_ log: [Segment], _ marks: [DeviceID: UInt64], schema: Schema, rng: inout SplitMix64) throws -> StoreState {
        var replica = StoreReplica(schema: schema, device: DeviceID("snapshotter")!)
        for segment in log.filter({ $0.sequence <= marks[$0.device] ?? 0 }).shuffled(using: &rng) {
            _ = try replica.receive(segment, wall: Grocery.t0)
        }
        return replica.state
    }

    func startsFromSnapshots(_ deletes: DeletePolicy, salt: UInt64, runs: Int) throws {
        var joinedRows = 0
        for run in 0 ..< runs * StoreSeeds.scale {
            let seed = StoreSeeds.seed(salt, run)
            var simulation = Simulation(seed: seed, deletes: deletes, devices: 3)
            try simulation.run(steps: 80)
            let log = simulation.log, schema = simulation.replicas[0].schema
            var rng = SplitMix64(seed: seed ^ 0x5A)
            var full = StoreReplica(schema: schema, device: DeviceID("full")!)
            for segment in log { _ = try full.receive(segment, wall: simulation.time) }
            let latest = Dictionary(log.map { ($0.device, $0.sequence) }, uniquingKeysWith: max)
            guard let writer = latest.keys.sorted().first else { continue }

            // One to three snapshots, each of random prefixes, written by `writer` and read back.
            var snapshots: [Snapshot] = []
            for _ in 0 ..< rng.int(1...3) {
                var marks: [DeviceID: UInt64] = [:]
                for (device, last) in latest { marks[device] = UInt64(rng.int(0 ... Int(last))) }
                marks[writer] = max(1, marks[writer] ?? 1)
                let state = try Self.prefixState(log, marks, schema: schema, rng: &rng)
                let snapshot = try Snapshot(device: writer, sequence: marks[writer]!, clock: HLC(milliseconds: simulation.time, device: writer),
                                            watermarks: marks, state: state)
                let bytes = snapshot.encoded()
                let read = try Snapshot(decoding: bytes, schema: schema)
                #expect(read == snapshot, "\(StoreSeeds.describe(seed)): the snapshot read back differs")
                #expect(read.encoded() == bytes, "\(StoreSeeds.describe(seed)): the same state gives other bytes")
                snapshots.append(read)
            }

            // A late replica: the snapshots joined, then what lies past them, with some duplicates.
            var late = StoreState(schema: schema)
            var marks: [DeviceID: UInt64] = [:]
            for snapshot in snapshots.shuffled(using: &rng) {
                let before = Simulation.view(late)
                let result = late.join(snapshot.state)
                let after = Simulation.view(late)
                #expect(result.inserted == after.keys.filter { before[$0] == nil }.sorted(), "\(StoreSeeds.describe(seed))")
                #expect(result.deleted == before.keys.filter { after[$0] == nil }.sorted(), "\(StoreSeeds.describe(seed))")
                for (device, mark) in snapshot.watermarks { marks[device] = max(marks[device] ?? 0, mark) }
                joinedRows += snapshot.state.rowRegisterCount
            }
            var rest = log.filter { $0.sequence > marks[$0.device] ?? 0 }
            rest += (0 ..< rng.int(0...4)).compactMap { _ in log.isEmpty ? nil : rng.pick(log) }
            for segment in rest.shuffled(using: &rng) { _ = try late.apply(segment) }
            if late != full.state {
                Issue.record("\(StoreSeeds.describe(seed)): started from \(snapshots.count) snapshot(s), differs: \(ConvergencePropertyTests.difference(late, full.state))")
            }
            // Joining is order-free and idempotent.
            if snapshots.count >= 2 {
                var ab = snapshots[0].state, ba = snapshots[1].state
                _ = ab.join(snapshots[1].state)
                _ = ba.join(snapshots[0].state)
                if ab != ba { Issue.record("\(StoreSeeds.describe(seed)): joining in the other order differs: \(ConvergencePropertyTests.difference(ab, ba))") }
                #expect(ab.join(snapshots[0].state).isEmpty, "\(StoreSeeds.describe(seed)): joining again reported changes")
            }
        }
        #expect(joinedRows > runs * 5, "the snapshots held hardly any rows")
    }

    @Test("Three replicas, deletes = \"lose\"")
    func deletesLose() throws { try startsFromSnapshots(.lose, salt: 40, runs: 25) }

    @Test("Three replicas, deletes = \"win\"")
    func deletesWin() throws { try startsFromSnapshots(.win, salt: 41, runs: 25) }

    /// Every single-bit flip is caught by the SHA-256; every truncation is refused; bytes changed
    /// and resealed with a right SHA-256, as a hostile device could, are refused or read, never a trap.
    @Test func damagedAndHostileSnapshotBytesAreRefusedNeverATrap() throws {
        var simulation = Simulation(seed: StoreSeeds.seed(42, 0), deletes: .lose, devices: 3)
        try simulation.run(steps: 60)
        let replica = simulation.replicas[0]
        let marks = Dictionary(simulation.log.map { ($0.device, $0.sequence) }, uniquingKeysWith: max)
            .merging([replica.device: replica.nextSequence - 1], uniquingKeysWith: { $1 })
        let snapshot = try Snapshot(device: replica.device, sequence: replica.nextSequence - 1, clock: replica.clock.latest,
                                    watermarks: marks, state: replica.state)
        let bytes = snapshot.encoded()
        #expect(bytes.count > 500)
        for bit in stride(from: 0, to: bytes.count * 8, by: 7) {
            var flipped = bytes
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(throws: StoreError.self) { try Snapshot(decoding: flipped, schema: replica.schema) }
        }
        for length in stride(from: 0, to: bytes.count, by: 13) {
            #expect(throws: StoreError.self) { try Snapshot(decoding: Array(bytes.prefix(length)), schema: replica.schema) }
        }
        var rng = SplitMix64(seed: 42)
        var refused = 0
        for _ in 0 ..< 2_000 {
            var mutated = Array(bytes.dropLast(32))
            for _ in 0 ..< rng.int(1...4) { mutated[rng.int(29 ... mutated.count - 1)] = UInt8(truncatingIfNeeded: rng.int(0...255)) }
            let resealed = mutated + SHA256.digest(mutated)
            if (try? Snapshot(decoding: resealed, schema: replica.schema)) == nil { refused += 1 }
        }
        #expect(refused > 0)
    }
}
