import Testing
@testable import UbiquityStore

/// A transaction's writer works on copies of the registers it touches, not on a copy of the whole
/// state: what it returns as "before", and that a refused transaction leaves the state as it was.
@Suite("A commit: the registers it touched, as they were; nothing changed when refused")
struct StoreReplicaCommitTests {
    let t0 = Grocery.t0

    @Test("Before holds the touched rows' registers as they were, and nothing for rows new to the store")
    func beforeIsTheTouchedRegisters() throws {
        var laptop = StoreReplica(schema: Grocery.schema(), device: Grocery.laptop)
        let carrots = Grocery.id(1), bread = Grocery.id(2), milk = Grocery.id(3)
        _ = try laptop.write([.insert(table: "items", id: carrots, values: ["name": .string("carrots")]),
                              .insert(table: "items", id: bread, values: ["name": .string("bread")])], at: t0)
        let previous = laptop.state
        let made = try #require(try laptop.commit([
            .update(table: "items", id: carrots, values: ["quantity": .integer(2)]),
            .insert(table: "items", id: milk, values: ["name": .string("milk")]),
            .insert(table: "tags", id: nil, values: ["name": .string("mall")]),
            .relate(relationship: "tags", from: milk, to: Grocery.tag("mall").id),
        ], wall: t0 + 1_000))
        #expect(Set(made.before.keys) == [Grocery.item(carrots)])
        #expect(made.before[Grocery.item(carrots)] == previous.rowState(Grocery.item(carrots)))
        // Each operation saw the ones before it: milk and the tag existed for the relate.
        #expect(laptop.state.related("tags", from: milk) == [Grocery.tag("mall").id])
        #expect(laptop.state.row(Grocery.item(carrots))?["quantity"] == .integer(2))
        #expect(laptop.state.row(Grocery.item(bread)) == previous.row(Grocery.item(bread)))
    }

    @Test("A transaction refused at its last operation changes nothing, not even what its first operations wrote")
    func refusedChangesNothing() throws {
        var laptop = StoreReplica(schema: Grocery.schema(), device: Grocery.laptop)
        let carrots = Grocery.id(1)
        _ = try laptop.write([.insert(table: "items", id: carrots, values: ["name": .string("carrots")])], at: t0)
        let previous = laptop.state, sequence = laptop.nextSequence
        #expect(throws: StoreError.self) {
            try laptop.commit([.update(table: "items", id: carrots, values: ["name": .string("leeks")]),
                               .delete(table: "items", id: carrots),
                               .update(table: "items", id: carrots, values: ["quantity": .integer(3)])], wall: t0 + 1_000)
        }
        #expect(laptop.state == previous)
        #expect(laptop.nextSequence == sequence)
    }
}
