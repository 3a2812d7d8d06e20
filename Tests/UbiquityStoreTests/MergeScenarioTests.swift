import Testing
@testable import UbiquityStore

/// The worked examples of docs/stores.md, "The merge rules", each on two devices that write
/// while apart and then exchange their segments.
@Suite("The merge: the documented examples, with exact results on both devices")
struct MergeScenarioTests {
    let carrots = Grocery.id(1)
    var item: RowRef { Grocery.item(carrots) }
    let t0 = Grocery.t0

    static let insertCarrots: [StoreOperation] = [.insert(table: "items", id: Grocery.id(1), values: ["name": .string("carrots"), "quantity": .integer(1)])]

    /// The laptop's first segment: carrots inserted at t0.
    func insertCarrots() throws -> Segment {
        var laptop = StoreReplica(schema: Grocery.schema(), device: Grocery.laptop)
        return try laptop.write(Self.insertCarrots, at: t0)
    }

    /// Laptop and phone, both with carrots (quantity 1), known to both.
    func pair(_ deletes: DeletePolicy = .lose) throws -> (StoreReplica, StoreReplica) {
        var laptop = StoreReplica(schema: Grocery.schema(deletes: deletes), device: Grocery.laptop)
        var phone = StoreReplica(schema: Grocery.schema(deletes: deletes), device: Grocery.phone)
        let made = try laptop.write(Self.insertCarrots, at: t0)
        let result = try phone.receive(made, wall: t0 + 100)
        #expect(result.inserted == [item])
        return (laptop, phone)
    }

    @Test("A rename on one device and a tag on the other: both changes on both, no conflict")
    func renameAndTag() throws {
        var (laptop, phone) = try pair()
        let rename = try laptop.write([.update(table: "items", id: carrots, values: ["name": .string("organic carrots")])], at: t0 + 1_000)
        let tag = try phone.write([.insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                                   .relate(relationship: "tags", from: carrots, to: Grocery.tag("mall").id)], at: t0 + 1_000)
        let onLaptop = try laptop.receive(tag, wall: t0 + 2_000)
        let onPhone = try phone.receive(rename, wall: t0 + 2_000)
        #expect(laptop.state == phone.state)
        #expect(laptop.state.row(item)?["name"] == .string("organic carrots"))
        #expect(laptop.state.related("tags", from: carrots) == [Grocery.tag("mall").id])
        #expect(laptop.state.related("tags", to: Grocery.tag("mall").id) == [carrots])
        #expect(onLaptop.inserted == [Grocery.tag("mall")])
        #expect(onLaptop.updated == [item: ["tags"]])
        #expect(onPhone.updated == [item: ["name"]])
        #expect(onLaptop.conflicts.isEmpty && onPhone.conflicts.isEmpty)
    }

    @Test("Both rename: the later reading wins on both, and both report the loser")
    func bothRename() throws {
        var (laptop, phone) = try pair()
        let a = try laptop.write([.update(table: "items", id: carrots, values: ["name": .string("carottes")])], at: t0 + 1_000)
        let b = try phone.write([.update(table: "items", id: carrots, values: ["name": .string("Möhren")])], at: t0 + 1_500)
        let onLaptop = try laptop.receive(b, wall: t0 + 2_000)
        let onPhone = try phone.receive(a, wall: t0 + 2_000)
        #expect(laptop.state == phone.state)
        #expect(laptop.state.row(item)?["name"] == .string("Möhren"))
        let expected = ColumnConflict(row: item, column: "name", winner: .string("Möhren"), winnerClock: HLC(milliseconds: t0 + 1_500, device: Grocery.phone),
                                      loser: .string("carottes"), loserClock: HLC(milliseconds: t0 + 1_000, device: Grocery.laptop))
        #expect(onLaptop.conflicts == [expected])
        #expect(onPhone.conflicts == [expected])
        #expect(onLaptop.updated == [item: ["name"]])
        #expect(onPhone.updated.isEmpty, "the phone shows its own name still")
    }

    @Test("A rename made after seeing the other's is no conflict")
    func sequentialRename() throws {
        var (laptop, phone) = try pair()
        let a = try laptop.write([.update(table: "items", id: carrots, values: ["name": .string("carottes")])], at: t0 + 1_000)
        _ = try phone.receive(a, wall: t0 + 1_100)
        let b = try phone.write([.update(table: "items", id: carrots, values: ["name": .string("Möhren")])], at: t0 + 1_200)
        var tablet = StoreReplica(schema: Grocery.schema(), device: Grocery.tablet)
        _ = try tablet.receive(insertCarrots(), wall: t0)
        // The tablet sees the phone's rename first, then the laptop's older one: no conflict, just old news.
        let first = try tablet.receive(b, wall: t0 + 2_000)
        let second = try tablet.receive(a, wall: t0 + 2_000)
        #expect(first.conflicts.isEmpty && second.conflicts.isEmpty)
        #expect(second.isEmpty)
        #expect(tablet.state.row(item)?["name"] == .string("Möhren"))
    }

    @Test("Delete against an edit, deletes = \"lose\": the edit is kept on both, and both say so")
    func deleteLoses() throws {
        var (laptop, phone) = try pair(.lose)
        let delete = try laptop.write([.delete(table: "items", id: carrots)], at: t0 + 1_000)
        let edit = try phone.write([.update(table: "items", id: carrots, values: ["quantity": .integer(5)])], at: t0 + 900)
        let onLaptop = try laptop.receive(edit, wall: t0 + 2_000)
        let onPhone = try phone.receive(delete, wall: t0 + 2_000)
        #expect(laptop.state == phone.state)
        #expect(laptop.state.row(item) == ["name": .string("carrots"), "quantity": .integer(5)], "the whole row comes back, with the edit")
        let contest = DeleteContest(row: item, deletedBy: [Grocery.laptop], editedBy: [Grocery.phone], kept: true)
        #expect(onLaptop.inserted == [item] && onLaptop.contests == [contest])
        #expect(onPhone.isEmpty == false && onPhone.deleted.isEmpty && onPhone.contests == [contest])
        // A delete made after seeing the edit deletes it.
        let again = try phone.write([.delete(table: "items", id: carrots)], at: t0 + 3_000)
        let last = try laptop.receive(again, wall: t0 + 3_000)
        #expect(last.deleted == [item] && last.contests.isEmpty)
        #expect(laptop.state == phone.state && laptop.state.row(item) == nil)
    }

    @Test("Delete against an edit, deletes = \"win\": the row is gone on both, and both name the edit overruled")
    func deleteWins() throws {
        var (laptop, phone) = try pair(.win)
        let delete = try laptop.write([.delete(table: "items", id: carrots)], at: t0 + 1_000)
        let edit = try phone.write([.update(table: "items", id: carrots, values: ["quantity": .integer(5)])], at: t0 + 1_500)
        let onLaptop = try laptop.receive(edit, wall: t0 + 2_000)
        let onPhone = try phone.receive(delete, wall: t0 + 2_000)
        #expect(laptop.state == phone.state)
        #expect(laptop.state.row(item) == nil)
        let contest = DeleteContest(row: item, deletedBy: [Grocery.laptop], editedBy: [Grocery.phone], kept: false)
        #expect(onLaptop.contests == [contest] && onLaptop.isEmpty == false && onLaptop.inserted.isEmpty)
        #expect(onPhone.deleted == [item] && onPhone.contests == [contest])
    }

    @Test("The tag mall created on two devices is one row; both devices' tagging shows")
    func mallTwice() throws {
        var (laptop, phone) = try pair()
        let bread = Grocery.id(2)
        let a = try laptop.write([.insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                                  .relate(relationship: "tags", from: carrots, to: Grocery.tag("mall").id)], at: t0 + 1_000)
        let b = try phone.write([.insert(table: "items", id: bread, values: ["name": .string("bread")]),
                                 .insert(table: "tags", id: nil, values: ["name": .string("Mall")]),
                                 .relate(relationship: "tags", from: bread, to: Grocery.tag("mall").id)], at: t0 + 1_000)
        let onLaptop = try laptop.receive(b, wall: t0 + 2_000)
        _ = try phone.receive(a, wall: t0 + 2_000)
        #expect(laptop.state == phone.state)
        #expect(laptop.state.rowIDs("tags") == [Grocery.tag("mall").id])
        #expect(laptop.state.related("tags", to: Grocery.tag("mall").id) == [carrots, bread].sorted())
        // The phone's "Mall" and the laptop's "mall" are one tag; its name is the later write's.
        #expect(laptop.state.row(Grocery.tag("mall"))?["name"] == .string("Mall"))
        #expect(onLaptop.inserted == [Grocery.item(bread)])
        #expect(onLaptop.updated == [Grocery.tag("mall"): ["name", "items"]])
        #expect(onLaptop.conflicts.count == 1, "two spellings of one key are a conflict on its display name")
        // Inserting an existing tag again is an update of it, not a second row.
        let c = try laptop.write([.insert(table: "tags", id: nil, values: ["name": .string("mall"), "color": .string("blue")])], at: t0 + 3_000)
        #expect(c.changes.count == 1)
        if case .update = c.changes[0] {} else { Issue.record("expected an update: \(c.changes)") }
    }

    @Test("Re-insert after a delete starts the next generation: no old pairs, no old columns, and a stale edit does not bring the old row back")
    func reinsert() throws {
        var (laptop, phone) = try pair()
        let tagging = try laptop.write([.insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                                        .relate(relationship: "tags", from: carrots, to: Grocery.tag("mall").id)], at: t0 + 500)
        _ = try phone.receive(tagging, wall: t0 + 600)
        let stale = try phone.write([.update(table: "items", id: carrots, values: ["note": .string("bunch")])], at: t0 + 700)
        let gone = try laptop.write([.delete(table: "items", id: carrots)], at: t0 + 1_000)
        let back = try laptop.write([.insert(table: "items", id: carrots, values: ["name": .string("carrots again")])], at: t0 + 1_100)
        #expect(laptop.state.rowState(item)?.generation == 2)
        #expect(laptop.state.row(item) == ["name": .string("carrots again")])
        #expect(laptop.state.related("tags", from: carrots) == [])
        let stalely = try laptop.receive(stale, wall: t0 + 2_000)
        #expect(stalely.isEmpty, "an edit of generation 1 changes nothing in generation 2")
        for segment in [gone, back] { _ = try phone.receive(segment, wall: t0 + 2_000) }
        #expect(laptop.state == phone.state)
        #expect(phone.state.row(item) == ["name": .string("carrots again")])
    }

    @Test("Relate against unrelate of one pair: the later reading wins on both")
    func relationshipRace() throws {
        var (laptop, phone) = try pair()
        let mall = Grocery.tag("mall").id
        let tagged = try laptop.write([.insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                                       .relate(relationship: "tags", from: carrots, to: mall)], at: t0 + 500)
        _ = try phone.receive(tagged, wall: t0 + 600)
        let untag = try phone.write([.unrelate(relationship: "tags", from: carrots, to: mall)], at: t0 + 1_000)
        let retag = try laptop.write([.unrelate(relationship: "tags", from: carrots, to: mall),
                                      .relate(relationship: "tags", from: carrots, to: mall)], at: t0 + 1_200)
        _ = try phone.receive(retag, wall: t0 + 2_000)
        _ = try laptop.receive(untag, wall: t0 + 2_000)
        #expect(laptop.state == phone.state)
        #expect(laptop.state.related("tags", from: carrots) == [mall])
    }

    @Test("Deleting a tag updates the items that had it")
    func deleteTag() throws {
        var (laptop, phone) = try pair()
        let mall = Grocery.tag("mall").id
        let tagged = try laptop.write([.insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                                       .relate(relationship: "tags", from: carrots, to: mall)], at: t0 + 500)
        _ = try phone.receive(tagged, wall: t0 + 600)
        let gone = try laptop.write([.delete(table: "tags", id: mall)], at: t0 + 1_000)
        let result = try phone.receive(gone, wall: t0 + 1_100)
        #expect(result.deleted == [Grocery.tag("mall")])
        #expect(result.updated == [item: ["tags"]])
        #expect(phone.state.related("tags", from: carrots) == [])
    }

    @Test("A device an hour ahead: its write is accepted and reported; a later edit elsewhere still wins over it")
    func clockAhead() throws {
        var (laptop, phone) = try pair()
        let hour: Int64 = 3_600_000
        let fast = try phone.write([.update(table: "items", id: carrots, values: ["name": .string("from the future")])], at: t0 + hour)
        let result = try laptop.receive(fast, wall: t0 + 1_000)
        #expect(result.clockSkew == ClockSkew(device: Grocery.phone, aheadBy: hour - 1_000))
        let fix = try laptop.write([.update(table: "items", id: carrots, values: ["name": .string("carrots")])], at: t0 + 2_000)
        #expect(laptop.clock.latest.milliseconds <= t0 + 2_000 + HybridLogicalClock.maxAhead, "the laptop's clock was not dragged an hour ahead")
        _ = try phone.receive(fix, wall: t0 + hour + 10)
        #expect(laptop.state == phone.state)
        #expect(phone.state.row(item)?["name"] == .string("carrots"))
    }

    @Test("A device an hour behind: its concurrent write loses, its write after seeing others' wins")
    func clockBehind() throws {
        var (laptop, phone) = try pair()
        let hour: Int64 = 3_600_000
        let now = try laptop.write([.update(table: "items", id: carrots, values: ["note": .string("laptop")])], at: t0 + 1_000)
        let slow = try phone.write([.update(table: "items", id: carrots, values: ["note": .string("phone, concurrent")])], at: t0 + 1_000 - hour)
        _ = try phone.receive(now, wall: t0 + 1_000 - hour)
        _ = try laptop.receive(slow, wall: t0 + 1_000)
        #expect(laptop.state.row(item)?["note"] == .string("laptop"))
        let after = try phone.write([.update(table: "items", id: carrots, values: ["note": .string("phone, after")])], at: t0 + 1_001 - hour)
        _ = try laptop.receive(after, wall: t0 + 2_000)
        #expect(laptop.state == phone.state)
        #expect(laptop.state.row(item)?["note"] == .string("phone, after"))
    }

    @Test("Importing a segment twice changes nothing the second time")
    func idempotent() throws {
        var (laptop, phone) = try pair()
        let edit = try laptop.write([.update(table: "items", id: carrots, values: ["quantity": .integer(2)]), .delete(table: "items", id: carrots)], at: t0 + 1_000)
        let first = try phone.receive(edit, wall: t0 + 2_000)
        let before = phone.state
        let second = try phone.receive(edit, wall: t0 + 2_000)
        #expect(first.deleted == [item])
        #expect(second.isEmpty && phone.state == before)
    }

    @Test("A device with the older schema refuses a newer segment, changes nothing, and imports it after upgrading")
    func needsUpgrade() throws {
        let v2 = try SchemaTests.v2(tables: SchemaTests.items([ColumnSchema("aisle", .integer)]))
        var laptop = StoreReplica(schema: v2, device: Grocery.laptop)
        var phone = StoreReplica(schema: Grocery.schema(), device: Grocery.phone)
        let made = try laptop.write([.insert(table: "items", id: carrots, values: ["name": .string("carrots"), "aisle": .integer(4)])], at: t0)
        #expect {
            _ = try phone.receive(made, wall: t0)
        } throws: { ($0 as? StoreError)?.code == .segmentNeedsUpgrade }
        #expect(phone.state == StoreState(schema: Grocery.schema()))
        try phone.upgrade(to: v2)
        #expect(try phone.receive(made, wall: t0).inserted == [item])
        #expect(phone.state.row(item)?["aisle"] == .integer(4))
    }

    static let refusals: [(String, [StoreOperation], String)] = [
        ("unknown table", [.insert(table: "shops", id: Grocery.id(9), values: [:])], "there is no table 'shops'"),
        ("missing id", [.insert(table: "items", id: nil, values: ["name": .string("x")])], "needs a row id"),
        ("required column", [.insert(table: "items", id: Grocery.id(9), values: ["quantity": .integer(1)])], "leaves the non-nullable column 'name'"),
        ("null required", [.insert(table: "items", id: Grocery.id(9), values: ["name": .null])], "leaves the non-nullable column 'name'"),
        ("wrong type", [.insert(table: "items", id: Grocery.id(9), values: ["name": .integer(3)])], "holds string, not an integer"),
        ("not finite", [.update(table: "items", id: Grocery.id(1), values: ["price": .double(.nan)])], "not a double that is not finite"),
        ("unknown column", [.insert(table: "items", id: Grocery.id(9), values: ["name": .string("x"), "aisle": .integer(3)])], "has no column 'aisle'"),
        ("relationship as column", [.update(table: "items", id: Grocery.id(1), values: ["tags": .string("mall")])], "'tags' is a relationship"),
        ("exists", [.insert(table: "items", id: Grocery.id(1), values: ["name": .string("x")])], "exists already"),
        ("no row", [.update(table: "items", id: Grocery.id(9), values: ["name": .string("x")])], "there is no row items/"),
        ("delete no row", [.delete(table: "items", id: Grocery.id(9))], "there is no row items/"),
        ("relate no row", [.relate(relationship: "tags", from: Grocery.id(1), to: Grocery.id(9))], "there is no row tags/"),
        ("no relationship", [.relate(relationship: "shops", from: Grocery.id(1), to: Grocery.id(9))], "there is no relationship 'shops'"),
        ("meaning changed", [.insert(table: "tags", id: nil, values: ["name": .string("mall")]),
                             .update(table: "tags", id: Grocery.tag("mall").id, values: ["name": .string("market")])], "unique by meaning"),
        ("second fails", [.update(table: "items", id: Grocery.id(1), values: ["name": .string("y")]), .delete(table: "items", id: Grocery.id(9))],
         "operation 2: there is no row"),
    ]

    @Test("Operations that do not fit are refused, naming the operation, and nothing is written", arguments: refusals.indices)
    func refused(_ index: Int) throws {
        let (what, operations, phrase) = Self.refusals[index]
        var (laptop, _) = try pair()
        let before = laptop.state, sequence = laptop.nextSequence
        do {
            _ = try laptop.commit(operations, wall: t0 + 1_000)
            Issue.record("accepted: \(what)")
        } catch {
            #expect(error.code == .invalidChange)
            #expect(error.message.contains(phrase), "\(what): \(error.message)")
        }
        #expect(laptop.state == before && laptop.nextSequence == sequence)
    }

    @Test("A case change of a unique key keeps its meaning and is allowed; an update to the same values writes nothing")
    func keyCase() throws {
        var (laptop, _) = try pair()
        _ = try laptop.write([.insert(table: "tags", id: nil, values: ["name": .string("mall")])], at: t0 + 100)
        _ = try laptop.write([.update(table: "tags", id: Grocery.tag("mall").id, values: ["name": .string("Mall")])], at: t0 + 200)
        #expect(laptop.state.row(Grocery.tag("mall"))?["name"] == .string("Mall"))
        #expect(try laptop.commit([.update(table: "items", id: carrots, values: ["name": .string("carrots")])], wall: t0 + 300) == nil)
        #expect(try laptop.commit([.unrelate(relationship: "tags", from: carrots, to: Grocery.tag("mall").id)], wall: t0 + 300) == nil)
    }
}

@Suite("Logs arrive in any order: a row shows only once its insert has arrived")
struct ArrivalOrderTests {
    let t0 = Grocery.t0

    @Test("An update and a tagging that come before their row's insert show nothing until it comes, then all of it")
    func updateBeforeInsert() throws {
        var laptop = StoreReplica(schema: Grocery.schema(), device: Grocery.laptop)
        var phone = StoreReplica(schema: Grocery.schema(), device: Grocery.phone)
        var tablet = StoreReplica(schema: Grocery.schema(), device: Grocery.tablet)
        let carrots = Grocery.id(1), mall = Grocery.tag("mall").id
        let insert = try laptop.write([.insert(table: "items", id: carrots, values: ["name": .string("carrots")]),
                                       .insert(table: "tags", id: nil, values: ["name": .string("mall")])], at: t0)
        _ = try phone.receive(insert, wall: t0 + 10)
        let edit = try phone.write([.update(table: "items", id: carrots, values: ["quantity": .integer(3)]),
                                    .relate(relationship: "tags", from: carrots, to: mall)], at: t0 + 20)
        // The tablet hears from the phone first.
        let early = try tablet.receive(edit, wall: t0 + 30)
        #expect(early.isEmpty)
        #expect(tablet.state.row(Grocery.item(carrots)) == nil && tablet.state.rowIDs("tags") == [])
        // A tablet user creating the tag mall meanwhile joins its generation rather than starting a new one.
        let own = try tablet.write([.insert(table: "tags", id: nil, values: ["name": .string("mall")])], at: t0 + 35)
        if case .insert(let write) = own.changes.first { #expect(write.generation == 1) } else { Issue.record("\(own.changes)") }
        let late = try tablet.receive(insert, wall: t0 + 40)
        #expect(late.inserted == [Grocery.item(carrots)])
        #expect(tablet.state.row(Grocery.item(carrots)) == ["name": .string("carrots"), "quantity": .integer(3)])
        #expect(tablet.state.related("tags", from: carrots) == [mall])
        _ = try laptop.receive(edit, wall: t0 + 50)
        _ = try laptop.receive(own, wall: t0 + 50)
        _ = try phone.receive(own, wall: t0 + 50)
        #expect(laptop.state == tablet.state && phone.state == tablet.state)
    }
}
