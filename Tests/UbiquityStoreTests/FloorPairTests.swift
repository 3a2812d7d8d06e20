import Testing
import UbiquityStore

/// Which pair registers a floor drops: those that can never show again, whatever arrives.
@Suite("Floors drop the pairs that can never show again")
struct FloorPairTests {
    static let t = Grocery.t0

    /// carrots tagged mall, then carrots deleted; with `again`, carrots inserted again (a new generation).
    static func state(_ deletes: DeletePolicy, again: Bool) throws -> StoreReplica {
        var laptop = StoreReplica(schema: Grocery.schema(deletes: deletes), device: Grocery.laptop)
        let carrots = Grocery.id(1)
        _ = try laptop.write([.insert(table: "items", id: carrots, values: ["name": .string("carrots")]),
                              .insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                              .relate(relationship: "tags", from: carrots, to: Grocery.tag("mall").id)], at: t)
        _ = try laptop.write([.delete(table: "items", id: carrots)], at: t + 1)
        if again { _ = try laptop.write([.insert(table: "items", id: carrots, values: ["name": .string("carrots")])], at: t + 2) }
        return laptop
    }

    @Test func aPairOfAGenerationLeftBehindGoesWithEitherPolicy() throws {
        for policy in DeletePolicy.allCases {
            var replica = try Self.state(policy, again: true)
            let floors = replica.floorDeletedRows()
            #expect(floors.rows.isEmpty, "carrots is alive again: nothing to shrink")
            #expect(floors.droppedPairs.count == 1)
            #expect(replica.state.pairRegisters.isEmpty)
        }
    }

    @Test func aDeletedRowsPairGoesWhenTheDeleteWinsAndStaysWhenALateEditCanBringItBack() throws {
        var win = try Self.state(.win, again: false)
        #expect(win.floorDeletedRows().droppedPairs.count == 1)
        var lose = try Self.state(.lose, again: false)
        let floors = lose.floorDeletedRows()
        #expect(floors.rows == [Grocery.item(Grocery.id(1))] && floors.droppedPairs.isEmpty)
        #expect(lose.state.rowState(Grocery.item(Grocery.id(1)))?.columns.isEmpty == true)
        #expect(lose.state.rowState(Grocery.item(Grocery.id(1)))?.generation == 1)
    }
}
