import Foundation
import Testing
@testable import UbiquityIndex
import UbiquityPredicate
import UbiquityTesting

/// A model file system that emits the changes a watcher would.
struct ModelTree {
    var tree: TreeBuilder
    var files: [String: Int64] = [:]          // relative path → size
    var directories: Set<String> = ["Documents", "Library"]
    var rng: SplitMix64

    init(seed: UInt64) {
        tree = TreeBuilder()
        rng = SplitMix64(seed: seed)
    }

    func parts(_ p: String) -> [String] { p.split(separator: "/").map(String.init) }

    mutating func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }

    mutating func name() -> String {
        let stems = ["Item_", "item_", "note", ".tmp", "Item_x", "photo"]
        return pick(stems) + String(rng.next() % 50) + pick(["", ".txt", ".png"])
    }

    /// One random operation and its changes.
    mutating func step() -> [FileSystemChange] {
        let c = tree.container
        let dirs = directories.sorted()
        switch rng.next() % 9 {
        case 0, 1: // create a file
            let path = pick(dirs) + "/" + name()
            guard files[path] == nil, !directories.contains(path) else { return [] }
            let size = Int64(rng.next() % 100)
            files[path] = size
            return [.stat(c, parts(path), tree.file(size))]
        case 2: // write
            guard let path = files.keys.sorted().randomElement(using: &rng) else { return [] }
            let size = Int64(rng.next() % 100)
            files[path] = size
            return [.stat(c, parts(path), tree.file(size))]
        case 3: // delete a file
            guard let path = files.keys.sorted().randomElement(using: &rng) else { return [] }
            files[path] = nil
            return [.remove(c, parts(path))]
        case 4: // rename a file, maybe over an existing one (atomic save)
            guard let from = files.keys.sorted().randomElement(using: &rng) else { return [] }
            let to = rng.next() % 3 == 0 ? (files.keys.sorted().randomElement(using: &rng) ?? from) : pick(dirs) + "/" + name()
            guard from != to, !directories.contains(to) else { return [] }
            let size = files.removeValue(forKey: from)!
            files[to] = size
            let stat = tree.file(size)
            return [.move(c, from: parts(from), to: parts(to), stat: stat)]
        case 5: // mkdir
            let path = pick(dirs) + "/d" + String(rng.next() % 20)
            guard !directories.contains(path), files[path] == nil, path.split(separator: "/").count < 5 else { return [] }
            directories.insert(path)
            return [.stat(c, parts(path), tree.directory())]
        case 6: // rm -rf a directory
            let candidates = dirs.filter { $0 != "Documents" && $0 != "Library" }
            guard !candidates.isEmpty else { return [] }
            let path = pick(candidates)
            directories = directories.filter { $0 != path && !$0.hasPrefix(path + "/") }
            files = files.filter { !$0.key.hasPrefix(path + "/") }
            return [.remove(c, parts(path))]
        case 7: // rename a directory (moves its subtree)
            let candidates = dirs.filter { $0 != "Documents" && $0 != "Library" }
            guard !candidates.isEmpty else { return [] }
            let from = pick(candidates)
            let to = pick(dirs.filter { $0 != from && !$0.hasPrefix(from + "/") }) + "/m" + String(rng.next() % 20)
            guard !directories.contains(to), files[to] == nil, to.split(separator: "/").count < 6 else { return [] }
            func moved(_ p: String) -> String { p == from ? to : (p.hasPrefix(from + "/") ? to + p.dropFirst(from.count) : p) }
            directories = Set(directories.map(moved))
            files = Dictionary(uniqueKeysWithValues: files.map { (moved($0.key), $0.value) })
            return [.move(c, from: parts(from), to: parts(to), stat: nil)]
        default: // move between Documents and Library (scope change)
            guard let from = files.keys.sorted().randomElement(using: &rng) else { return [] }
            let to = (from.hasPrefix("Documents/") ? "Library/" : "Documents/") + (from.split(separator: "/").last.map(String.init) ?? "x")
            guard files[to] == nil, !directories.contains(to) else { return [] }
            files[to] = files.removeValue(forKey: from)
            return [.move(c, from: parts(from), to: parts(to), stat: nil)]
        }
    }
}

@Suite("Live queries", .ownThreads)
struct LiveQueryTests {
    static let context = EvaluationContext(now: 1_795_341_600, timeZone: .utc)

    func query(_ text: String, _ index: MetadataIndex, sort: [String] = [], scopes: Set<Scope> = Set(Scope.allCases),
               attributes: [Attribute] = [.name, .size], changes: ChangeReporting = .all) throws -> LiveQuery {
        let spec = QuerySpecification(predicate: try MetadataPredicate(parsing: text), scopes: scopes,
                                      sort: try sort.map { try MetadataSortDescriptor(parsing: $0) }, attributes: attributes,
                                      changes: changes)
        return LiveQuery(spec, index: index, context: LiveQueryTests.context)
    }

    @Test func gatheringUsesTheNameIndexAndSorts() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(["Documents/Item_b", "Documents/Item_a", "Documents/other", "Library/Item_c",
                                       "Documents/.Item_hidden"])])
        let q = try query("kMDItemFSName LIKE 'Item_*'", index, sort: ["name"])
        #expect(q.gather().map(\.path).map { $0.split(separator: "/").last! } == ["Item_a", "Item_b", "Item_c"])
        let documentsOnly = try query("name LIKE 'Item_*'", index, scopes: [.documents])
        #expect(documentsOnly.gather().count == 2)
        let hidden = try query("name LIKE '*Item_*' AND isHidden == YES", index)
        #expect(hidden.gather().map { $0.values[.name] } == [.string(".Item_hidden")])
        let descending = try query("TRUEPREDICATE", index, sort: ["-name"])
        #expect(descending.gather().first?.values[.name] == .string("other"))
    }

    @Test func updatesReportAddedChangedRemovedAndRenames() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(["Documents/Item_1", "Documents/Item_2", "Documents/x"])])
        let q = try query("name LIKE 'Item_*'", index)
        var view = ClientView(q.gather())
        let c = tree.container
        let delta = q.apply(index.apply([
            .stat(c, ["Documents", "Item_3"], tree.file(5)),                        // added
            .stat(c, ["Documents", "Item_1"], tree.file(99)),                       // changed (size)
            .move(c, from: ["Documents", "Item_2"], to: ["Documents", "gone"], stat: nil),   // stops matching
            .move(c, from: ["Documents", "x"], to: ["Documents", "Item_x"], stat: nil),      // starts matching
        ]))
        #expect(delta.added.map(\.path).sorted() == ["/containers/com.example.test/Documents/Item_3",
                                                     "/containers/com.example.test/Documents/Item_x"])
        #expect(delta.changed.map(\.values[.size]) == [.integer(99)])
        #expect(delta.removed.map(\.path) == ["/containers/com.example.test/Documents/Item_2"])
        #expect(view.apply(delta) == nil)
        #expect(view.summary == summaryOf(try query("name LIKE 'Item_*'", index).gather()))

        // A rename that keeps matching is one `changed` with the old path.
        let rename = q.apply(index.apply([.move(c, from: ["Documents", "Item_1"], to: ["Documents", "Item_one"], stat: nil)]))
        #expect(rename.added.isEmpty && rename.removed.isEmpty)
        #expect(rename.changed.map(\.oldPath) == ["/containers/com.example.test/Documents/Item_1"])
        #expect(rename.changed.map(\.path) == ["/containers/com.example.test/Documents/Item_one"])
    }

    /// New members take their place in path order whether they are placed by their names alone
    /// (a sibling of the member they meet) or by whole paths (a member elsewhere): long names
    /// (kept compressed: the name column's codec is trained first, on names outside the query's
    /// scope), non-ASCII names, and names that are prefixes of each other, arriving one at a time
    /// in a scrambled order, in two directories and a subdirectory.
    @Test func newMembersArePlacedInPathOrderByNameOrByPath() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(["Documents/", "Documents/a/", "Documents/a/b/", "Documents/z/", "Library/pad/"])])
        // Created one by one (a listing's names are not the codec's sample): 87 KB of names over 48 bytes.
        _ = index.apply((0..<1_400).map {
            .stat(tree.container, ["Library", "pad", "a_padding_file_name_of_some_length_number_\($0)_for_training.txt"], tree.file(1))
        })
        let q = try query("TRUEPREDICATE", index, scopes: [.documents])
        let before = q.gather().count
        // The long ones in the words the codec learnt, so that it shortens them.
        let stems = ["Item_", "Item", "Itém_", "日本語の名前_", "a_padding_file_name_of_some_length_é_number_",
                     "a_padding_file_name_of_some_length_日本語_number_"]
        var names: [String] = []
        for (i, stem) in stems.enumerated() {
            for n in [7, 70, 700] { names.append(stem + String(n * (i + 1))) }
        }
        var rng = SplitMix64(seed: 5)
        let directories = [["Documents"], ["Documents", "a"], ["Documents", "a", "b"], ["Documents", "z"]]
        let c = tree.container
        for name in names.shuffled(using: &rng) {
            let directory = directories[Int(rng.next() % UInt64(directories.count))]
            _ = q.apply(index.apply([.stat(c, directory + [name], tree.file(1))]))
            let fresh = try query("TRUEPREDICATE", index, scopes: [.documents])
            _ = fresh.gather()
            #expect(q.order == fresh.order, "after \(directory + [name])")
        }
        #expect(q.count == before + names.count)
        let compressed = q.order.filter { id in index.names.withReader { $0.isCompressed(Int(id)) } }
        let compressedNames = compressed.map { index.name($0) }
        #expect(compressedNames.contains { $0.contains("é") } && compressedNames.contains { $0.contains("日本語") },
                "the long names were not compressed: \(compressedNames)")
    }

    @Test func anInvisibleChangeIsNotReported() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(["Documents/Item_1"])])
        let q = try query("name LIKE 'Item_*'", index, attributes: [.name])
        _ = q.gather()
        var stat = index.entry(index.lookup(container: 0, ["Documents", "Item_1"])!).stat
        stat.changed += 5     // a chmod: the query neither asks for nor tests anything that changed
        stat.mode = 0o600
        #expect(q.apply(index.apply([.stat(tree.container, ["Documents", "Item_1"], stat)])).isEmpty)
    }

    @Test("An edit, new tags or a new date is a change for a query that shows only names; carrying what it asked for")
    func anyChangeOfAMemberIsAChangeByDefault() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(["Documents/Item_1", "Documents/Item_2", "Documents/Item_3"])])
        let q = try query("name LIKE 'Item_*'", index, attributes: [.name])
        var view = ClientView(q.gather())
        let c = tree.container
        func stat(_ name: String) -> FileStat { index.entry(index.lookup(container: 0, ["Documents", name])!).stat }
        var tagged = stat("Item_2")
        tagged.tags = ["urgent"]
        var touched = stat("Item_3")
        touched.modified += 1_000_000_000
        let delta = q.apply(index.apply([
            .stat(c, ["Documents", "Item_1"], tree.file(99)),       // an edit: its size moved
            .stat(c, ["Documents", "Item_2"], tagged),             // a tag
            .stat(c, ["Documents", "Item_3"], touched),            // touch: only its date moved
        ]))
        #expect(delta.added.isEmpty && delta.removed.isEmpty)
        #expect(delta.changed.map { $0.values[.name] }.sorted { "\($0!)" < "\($1!)" }
                == [.string("Item_1"), .string("Item_2"), .string("Item_3")])
        #expect(delta.changed.allSatisfy { Set($0.values.keys) == [.name] }, "only the attributes the query asked for")
        #expect(view.apply(delta) == nil)
    }

    @Test("changes: requested hears only of the attributes the query asks for, sorts by or tests")
    func requestedChangesOnlyReportAttributesTheQueryReads() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(["Documents/Item_1", "Documents/Item_2"])])
        let namesOnly = try query("name LIKE 'Item_*'", index, attributes: [.name], changes: .requested)
        let sortedBySize = try query("name LIKE 'Item_*'", index, sort: ["size"], attributes: [.name], changes: .requested)
        _ = namesOnly.gather()
        _ = sortedBySize.gather()
        let edit = index.apply([.stat(tree.container, ["Documents", "Item_1"], tree.file(99))])
        #expect(namesOnly.apply(edit).isEmpty)
        #expect(sortedBySize.apply(edit).changed.map { $0.values[.name] } == [.string("Item_1")])
        let rename = index.apply([.move(tree.container, from: ["Documents", "Item_2"], to: ["Documents", "Item_two"], stat: nil)])
        #expect(namesOnly.apply(rename).changed.map(\.oldPath) == ["/containers/com.example.test/Documents/Item_2"])
    }

    /// The "live equals rescan" property over random operations, several queries at once.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func liveEqualsRescan(seed: UInt64) throws {
        var model = ModelTree(seed: seed)
        let index = MetadataIndex()
        index.addContainer(model.tree.descriptor)
        _ = index.apply([model.tree.listing(["Documents/", "Library/"])])
        let texts = ["name LIKE 'Item_*'", "size > 50", "name BEGINSWITH[c] 'item' AND size < 30", "TRUEPREDICATE",
                     "name ENDSWITH '.png' OR isHidden == YES"]
        let sorts: [[String]] = [["name"], ["-size"], [], ["name:desc"], ["modified"]]
        // Two queries ask for fewer attributes: the items the others make are not theirs to share.
        let attributes: [[Attribute]] = [[.name, .size], [.name, .size], [.name], [.name, .size], [.size]]
        var queries: [LiveQuery] = []
        var views: [ClientView] = []
        for i in texts.indices {
            let q = try query(texts[i], index, sort: sorts[i], scopes: texts[i] == "size > 50" ? [.documents] : Set(Scope.allCases),
                              attributes: attributes[i])
            views.append(ClientView(q.gather()))
            queries.append(q)
        }
        for round in 0..<150 {
            var batch: [FileSystemChange] = []
            for _ in 0..<(1 + Int(model.rng.next() % 6)) { batch += model.step() }
            let changes = index.apply(batch)
            // As the engine delivers: the queries of one change set share the items they make.
            let shared = SharedResultItems(forQueries: queries.count)
            for i in queries.indices {
                let delta = queries[i].apply(changes, sharing: shared)
                let problem = views[i].apply(delta)
                #expect(problem == nil, "seed \(seed) round \(round) query \(texts[i]): \(problem ?? "")")
                let fresh = try query(texts[i], index, sort: sorts[i], scopes: queries[i].specification.scopes,
                                      attributes: attributes[i])
                let expected = fresh.gather()
                #expect(views[i].summary == summaryOf(expected), "seed \(seed) round \(round) query \(texts[i])")
                #expect(queries[i].order == fresh.order, "seed \(seed) round \(round): sorted order drifted for \(texts[i])")
            }
        }
        // The index itself matches the model.
        let indexed = Set(contents(index).filter { $0.contains(" regular ") }.map { $0.components(separatedBy: " ")[0] })
        #expect(indexed == Set(model.files.keys), "seed \(seed)")
    }
}
