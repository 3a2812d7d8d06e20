import Testing
import UbiquityJSON
import UbiquityStore
import UbiquityTesting

/// Replicas that write while apart and receive each other's segments in any order, any number
/// of times: once every segment has reached every replica, all hold the same state — and every
/// import told its clients exactly what changed.
@Suite("Convergence: any interleaving and duplication of the same segments gives the same state")
struct ConvergencePropertyTests {
    static let devices = [DeviceID("laptop")!, DeviceID("phone")!, DeviceID("tablet")!, DeviceID("desk")!]
    /// Each device's wall clock against true time: one an hour ahead, one an hour behind.
    static let skews: [Int64] = [0, 3_600_000, -3_600_000, 250]
    static let tagNames = ["mall", "Mall", "green grocer", "grocery store", "deli"]

    struct Simulation {
        var rng: SplitMix64
        let seed: UInt64
        var replicas: [StoreReplica]
        var log: [Segment] = []
        var time: Int64 = Grocery.t0

        init(seed: UInt64, deletes: DeletePolicy, devices: Int) {
            self.seed = seed
            rng = SplitMix64(seed: seed)
            replicas = ConvergencePropertyTests.devices.prefix(devices).map { StoreReplica(schema: Grocery.schema(deletes: deletes), device: $0) }
        }

        func wall(_ index: Int) -> Int64 { time + ConvergencePropertyTests.skews[index] }

        mutating func run(steps: Int) throws {
            for _ in 0 ..< steps {
                time += Int64(rng.int(0...40))
                if rng.chance(0.55) { try write(rng.int(0 ... replicas.count - 1)) } else { try deliver() }
            }
        }

        /// One transaction of one to three operations, each chosen against the state the ones before it leave.
        mutating func write(_ index: Int) throws {
            var scratch = replicas[index]
            var operations: [StoreOperation] = []
            for _ in 0 ..< rng.int(1...3) {
                let operation = pick(scratch.state)
                _ = try scratch.commit([operation], wall: wall(index))
                operations.append(operation)
            }
            if let made = try replicas[index].commit(operations, wall: wall(index)) { log.append(made.segment) }
        }

        mutating func pick(_ state: StoreState) -> StoreOperation {
            let items = state.rowIDs("items"), tags = state.rowIDs("tags")
            let deadItems = state.deletedRowIDs("items")
            let choice = rng.int(0...9)
            if choice >= 2, choice <= 3, !items.isEmpty { return .update(table: "items", id: rng.pick(items), values: itemValues(required: false)) }
            if choice == 4, !items.isEmpty { return .delete(table: "items", id: rng.pick(items)) }
            if choice == 5, !deadItems.isEmpty { return .insert(table: "items", id: rng.pick(deadItems), values: itemValues(required: true)) }
            if choice == 6 {
                return .insert(table: "tags", id: nil, values: ["name": .string(rng.pick(ConvergencePropertyTests.tagNames)),
                                                               "color": rng.chance(0.5) ? .string(rng.pick(["red", "blue"])) : .null])
            }
            if choice == 7, !items.isEmpty, !tags.isEmpty { return .relate(relationship: "tags", from: rng.pick(items), to: rng.pick(tags)) }
            if choice == 8, !items.isEmpty {
                let item = rng.pick(items)
                let related = state.related("tags", from: item)
                if !related.isEmpty { return .unrelate(relationship: "tags", from: item, to: rng.pick(related)) }
                return .update(table: "items", id: item, values: ["done": .bool(rng.chance(0.5))])
            }
            if choice == 9, !tags.isEmpty {
                return rng.chance(0.5) ? .delete(table: "tags", id: rng.pick(tags))
                                       : .update(table: "tags", id: rng.pick(tags), values: ["color": .string(rng.pick(["green", "red"]))])
            }
            return .insert(table: "items", id: RowID.random(using: &rng), values: itemValues(required: true))
        }

        mutating func itemValues(required: Bool) -> [String: StoreValue] {
            var values: [String: StoreValue] = [:]
            if required || rng.chance(0.4) { values["name"] = .string(rng.pick(["carrots", "bread", "milk", "eggs", "tea"])) }
            if rng.chance(0.4) { values["quantity"] = rng.chance(0.2) ? .null : .integer(Int64(rng.int(-2...9))) }
            if rng.chance(0.3) { values["note"] = .string(rng.pick(["", "bio", "2 packs"])) }
            if rng.chance(0.2) { values["price"] = .double(Double(rng.int(0...500)) / 100) }
            if rng.chance(0.2) { values["extra"] = .json(.object(["aisle": .integer(Int64(rng.int(1...9)))])) }
            if values.isEmpty { values["done"] = .bool(rng.chance(0.5)) }
            return values
        }

        /// Some segments (already delivered ones, and the replica's own, included) to one replica, shuffled.
        mutating func deliver() throws {
            guard !log.isEmpty else { return }
            let index = rng.int(0 ... replicas.count - 1)
            var batch = (0 ..< rng.int(1...6)).map { _ in rng.pick(log) }
            batch.shuffle(using: &rng)
            for segment in batch { try receive(segment, at: index) }
        }

        /// Receives one segment and checks its result against what a client sees change.
        @discardableResult
        mutating func receive(_ segment: Segment, at index: Int) throws -> ImportResult {
            let before = Self.view(replicas[index].state)
            let result = try replicas[index].receive(segment, wall: wall(index))
            let after = Self.view(replicas[index].state)
            var expected = ImportResult()
            expected.inserted = after.keys.filter { before[$0] == nil }.sorted()
            expected.deleted = before.keys.filter { after[$0] == nil }.sorted()
            for (ref, now) in after {
                guard let then = before[ref] else { continue }
                let changed = Set(then.keys).union(now.keys).filter { then[$0] != now[$0] }
                if !changed.isEmpty { expected.updated[ref] = changed }
            }
            let context = "\(StoreSeeds.describe(seed)), segment \(segment.sequence) of \(segment.device) at \(replicas[index].device)"
            #expect(result.inserted == expected.inserted, "\(context)")
            #expect(result.deleted == expected.deleted, "\(context)")
            #expect(result.updated == expected.updated, "\(context)")
            return result
        }

        /// What a client sees: every row that exists, its non-null columns and its relationship ends.
        static func view(_ state: StoreState) -> [RowRef: [String: StoreValue]] {
            var view: [RowRef: [String: StoreValue]] = [:]
            for table in ["items", "tags"] {
                for id in state.rowIDs(table) {
                    var values = state.row(RowRef(table: table, id: id)) ?? [:]
                    let ends = table == "items" ? state.related("tags", from: id) : state.related("tags", to: id)
                    if !ends.isEmpty { values[table == "items" ? "tags" : "items"] = .json(.array(ends.map { .string($0.description) })) }
                    view[RowRef(table: table, id: id)] = values
                }
            }
            return view
        }

        /// Delivers every segment to every replica, and to a new one, each in its own order with duplicates.
        mutating func converge() throws -> [StoreState] {
            var states: [StoreState] = []
            for index in replicas.indices {
                var all = log + (0 ..< rng.int(0...5)).compactMap { _ in log.isEmpty ? nil : rng.pick(log) }
                all.shuffle(using: &rng)
                for segment in all { try receive(segment, at: index) }
                states.append(replicas[index].state)
            }
            var late = StoreReplica(schema: replicas[0].schema, device: DeviceID("late")!)
            for segment in log.reversed() { _ = try late.receive(segment, wall: time) }
            states.append(late.state)
            return states
        }
    }

    /// The first row or pair two states disagree on, in words (the states themselves are too long to print).
    static func difference(_ a: StoreState, _ b: StoreState) -> String {
        for table in ["items", "tags"] {
            let ids = Set(a.rowIDs(table) + a.deletedRowIDs(table) + b.rowIDs(table) + b.deletedRowIDs(table)).sorted()
            for id in ids {
                let ref = RowRef(table: table, id: id)
                if a.rowState(ref) != b.rowState(ref) { return "\(ref): \(String(describing: a.rowState(ref))) against \(String(describing: b.rowState(ref)))" }
                let ends = table == "items" ? (a.related("tags", from: id), b.related("tags", from: id)) : (a.related("tags", to: id), b.related("tags", to: id))
                if ends.0 != ends.1 { return "\(ref)'s relationship: \(ends.0) against \(ends.1)" }
            }
        }
        return "the pairs' registers"
    }

    func converges(_ deletes: DeletePolicy, salt: UInt64, runs: Int, devices: Int, steps: Int) throws {
        var contests = 0, conflicts = 0, segments = 0
        for run in 0 ..< runs * StoreSeeds.scale {
            let seed = StoreSeeds.seed(salt, run)
            var simulation = Simulation(seed: seed, deletes: deletes, devices: devices)
            try simulation.run(steps: steps)
            let states = try simulation.converge()
            segments += simulation.log.count
            for (index, state) in states.enumerated().dropFirst() where state != states[0] {
                Issue.record("\(StoreSeeds.describe(seed)): replica \(index) differs from replica 0 after every segment reached both: \(Self.difference(state, states[0]))")
            }
            // Unique by meaning: no two tags that exist share a folded name.
            let names = states[0].rowIDs("tags").compactMap { states[0].row(RowRef(table: "tags", id: $0))?["name"] }
                .compactMap { if case .string(let s) = $0 { MeaningKey.fold(s) } else { nil } }
            #expect(Set(names).count == names.count, "\(StoreSeeds.describe(seed)): \(names)")
            // Idempotence: any segment again changes nothing.
            var replica = simulation.replicas[0]
            for segment in simulation.log.prefix(10) {
                let again = try replica.receive(segment, wall: simulation.time)
                #expect(again.isEmpty, "\(StoreSeeds.describe(seed)): \(again)")
                if replica.state != states[0] { Issue.record("\(StoreSeeds.describe(seed)): a segment again changed \(Self.difference(replica.state, states[0]))") }
            }
            // Count what the runs exercised, so a generator that stopped making races is noticed.
            var probe = StoreReplica(schema: simulation.replicas[0].schema, device: DeviceID("probe")!)
            for segment in simulation.log.shuffled(using: &simulation.rng) {
                let result = try probe.receive(segment, wall: simulation.time)
                contests += result.contests.count
                conflicts += result.conflicts.count
            }
        }
        #expect(contests > 0, "no delete ever met a concurrent edit")
        #expect(conflicts > 0, "no column was ever written on two devices at once")
        #expect(segments > runs * 10)
    }

    @Test("Three replicas, deletes = \"lose\" (the default)")
    func threeReplicasDeletesLose() throws { try converges(.lose, salt: 10, runs: 25, devices: 3, steps: 80) }

    @Test("Three replicas, deletes = \"win\"")
    func threeReplicasDeletesWin() throws { try converges(.win, salt: 11, runs: 25, devices: 3, steps: 80) }

    @Test("Four replicas (one an hour ahead, one an hour behind), longer runs, both policies")
    func fourReplicas() throws {
        try converges(.lose, salt: 12, runs: 6, devices: 4, steps: 200)
        try converges(.win, salt: 13, runs: 6, devices: 4, steps: 200)
    }

    @Test("Order does not matter: the segments of a run, applied in many orders to fresh states, give one state")
    func orderIndependence() throws {
        for run in 0 ..< 10 * StoreSeeds.scale {
            let seed = StoreSeeds.seed(14, run)
            var simulation = Simulation(seed: seed, deletes: .lose, devices: 3)
            try simulation.run(steps: 60)
            var reference: StoreState?
            for _ in 0 ..< 8 {
                var state = StoreState(schema: Grocery.schema())
                for segment in simulation.log.shuffled(using: &simulation.rng) { _ = try state.apply(segment) }
                if let reference, state != reference {
                    Issue.record("\(StoreSeeds.describe(seed)): another order gave another state: \(Self.difference(state, reference))")
                }
                if reference == nil { reference = state }
            }
        }
    }
}
