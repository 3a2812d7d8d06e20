import UbiquityKit

// The Swift example of README.md, kept compiling (never called: it would need the default socket).
// If this file stops building, update the README with it.
func readmeExample() async throws {
    
    let connection = try await UbiquityConnection.connect()          // the default socket
    let query = MetadataQuery(connection: connection, predicateFormat: "kMDItemFSName LIKE 'Item_*'")
    query.searchScopes = .documents
    query.sortDescriptors = [.init(key: "name", ascending: true)]
    for try await notification in try await query.start() {
        switch notification {
        case .didFinishGathering: print(query.results.map(\.name))
        case .didUpdate(let added, let changed, let removed): print(added.count, changed.count, removed.count)
        default: break
        }
    }
}
