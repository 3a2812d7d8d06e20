import UbiquityKit
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStore

// The Swift example of docs/stores.md ("From Swift"), kept compiling (never called: it would need
// the default socket). If this file stops building, update the doc with it.
func storesExample(schema: Schema) async throws {
    let connection = try await UbiquityConnection.connect()
    let store = try await PersistentStore.open("grocery", schema: schema, container: "com.example.grocery",
                                               connection: connection)        // store.open
    let context = store.newContext()
    let carrots = try context.insert(into: "items", ["name": .string("carrots"), "quantity": .integer(2)])
    let mall = try context.insert(into: "tags", ["name": .string("mall")])   // 98471ebd…: from the name
    context.relate("tags", from: carrots, to: mall)
    try await context.save()                                                  // one store.save, fsynced

    var request = StoreFetchRequest(table: "items")
    request.conditions = [StoreCondition("quantity", .greaterOrEqual, .integer(2))]
    request.sortDescriptors = [StoreSortDescriptor(key: "name")]
    request.related = ["tags"]                                                // each row's tag ids
    for row in try await store.fetch(request) { print(row.id, row.string("name") ?? "", row.related["tags"] ?? []) }

    let live = try await store.fetchedResults(request)                       // store.watch
    for try await snapshot in live { print(snapshot.rows.count, snapshot.added.count, snapshot.removed.count) }

    for await note in store.importNotifications() {                           // store.changed
        print(note.devices, note.inserted, note.updated, note.deleted, note.conflicts)
    }
}
