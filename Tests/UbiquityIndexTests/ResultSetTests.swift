@testable import UbiquityIndex
import Testing
import UbiquityPredicate
import UbiquityTesting

/// Result sets as the engine hands them out: paths built in bulk (``PathTable``), sorted byte
/// by byte, and items read back exactly as ``ResultItem``s built one by one would say.
struct ResultSetTests {
    static func query(_ text: String, _ index: MetadataIndex, sort: [String] = [], attributes: [Attribute]) throws -> LiveQuery {
        let spec = QuerySpecification(predicate: try MetadataPredicate(parsing: text),
                                      sort: try sort.map { try MetadataSortDescriptor(parsing: $0) }, attributes: attributes)
        return LiveQuery(spec, index: index, context: EvaluationContext())
    }

    /// Names whose byte order differs from a directory-first walk ("a" < "a.b" < "a/b" < "a0"),
    /// and names beyond ASCII, canonically equivalent ones among them.
    static let awkward = ["Documents/a/b", "Documents/a.b", "Documents/a0", "Documents/a", "Documents/Z",
                          "Documents/\u{E9}/x", "Documents/e\u{301}x", "Documents/\u{E9}", "Documents/d/e/f/g",
                          "Documents/d/e.txt", "Documents/d-e", "Documents/\u{1F600}", "Documents/\u{FB01}le"]

    /// An index of one container holding the ``awkward`` paths.
    static func awkwardIndex() -> MetadataIndex {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(awkward)])
        return index
    }

    @Test func pathsSortByteByByte() throws {
        let index = Self.awkwardIndex()
        let results = try Self.query("TRUEPREDICATE", index, attributes: [.name]).gather()
        let paths = results.map(\.path)
        #expect(paths.count == Set(paths).count)
        #expect(paths == paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        // "a", "a.b", "a/b", "a0": the walk of the tree would put "a/b" right after "a".
        let relative = paths.map { String($0.dropFirst(TreeBuilder.root.count + "/Documents/".count)) }
        #expect(relative.firstIndex(of: "a.b")! < relative.firstIndex(of: "a/b")!)
        #expect(relative.firstIndex(of: "a/b")! < relative.firstIndex(of: "a0")!)
    }

    /// A name hint that says all the predicate does hands its results over in name order, not
    /// id order; their paths still come out byte by byte, in one directory and across many,
    /// with names whose order as strings is not their byte order.
    @Test func aCompleteNameHintsAnswerIsInPathOrder() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        let stems = ["Item_b", "Item_a", "Item_\u{E9}", "Item_e\u{301}", "Item_Z", "Item_a.b", "Item_\u{1F600}", "Item_\u{FB01}"]
        // Listed in an order that is neither name nor path order: ids follow it.
        let paths = (Self.awkward.reversed() + ["Documents"]).flatMap { directory in stems.reversed().map { directory + "/" + $0 } }
        _ = index.apply([tree.listing(paths)])
        // Canonically equivalent names (Item_é in both forms) are two entries, as on disk.
        let entries = Set(paths.map { ExactName($0) }).count
        let query = try Self.query("name LIKE 'Item_*'", index, attributes: [.name])
        #expect(query.beginGathering().foundAsListed?.count == entries, "the hint is complete: nothing left to evaluate")
        let results = query.gather().map(\.path)
        #expect(results.count == entries)
        #expect(results == results.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    /// A name hint's listing is built into paths as listed when it keeps each directory's
    /// entries together (names numbered directory by directory), in id order when its names
    /// scatter them (random names over many directories); the answer is in path order either way.
    @Test(arguments: [false, true])
    func aListingThatScattersDirectoriesIsBuiltInIDOrder(scattered: Bool) throws {
        var random = SplitMix64(seed: 7)
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        var paths: [String] = []
        for directory in 0..<40 {
            for file in 0..<5 {
                let stem = scattered ? String(random.int(0...0xFFFFFF), radix: 16) : "\(10_000 + directory * 5 + file)"
                paths.append("Documents/dir\(directory)/Item_\(stem)_\(directory)_\(file)")
            }
        }
        _ = index.apply([tree.listing(paths)])
        let query = try Self.query("name LIKE 'Item_*'", index, attributes: [.name])
        let gathering = query.beginGathering()
        let listed = try #require(gathering.foundAsListed)
        let inIDOrder = gathering.foundInIDOrder(below: index.names.count)
        #expect(listed.count == paths.count)
        if scattered { try #require(listed != inIDOrder, "the two orders must differ for the choice to show") }
        #expect(PathTable.keepsDirectoriesTogether(listed, index: index) == !scattered)
        #expect(query.buildOrder(gathering) == (scattered ? inIDOrder : listed))
        let results = query.gather().map(\.path)
        #expect(results.count == paths.count)
        #expect(results == results.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    /// With a sort descriptor, ties on its key (one name in many directories, names equal when
    /// folded) go in path order, byte by byte.
    @Test(arguments: [["name"], ["-name"], ["displayName"]])
    func sortKeyTiesGoInPathOrder(_ sort: [String]) throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        let names = ["x", "X", "a.b", "\u{E9}"]
        let paths = Self.awkward.flatMap { directory in names.map { directory + "/" + $0 } }
        _ = index.apply([tree.listing(paths)])
        let query = try Self.query("TRUEPREDICATE", index, sort: sort, attributes: [.name, .displayName])
        let results = Array(query.gather())
        let descriptors = try sort.map { try MetadataSortDescriptor(parsing: $0) }
        let expected = results.sorted { a, b in
            for descriptor in descriptors {
                let c = MetadataSortDescriptor.order(a.values[descriptor.attribute], b.values[descriptor.attribute])
                if c != 0 { return descriptor.ascending ? c < 0 : c > 0 }
            }
            return a.path.utf8.lexicographicallyPrecedes(b.path.utf8)
        }
        #expect(results.count >= paths.count)
        #expect(results.map(\.path) == expected.map(\.path))
    }

    /// A table's path order (directory by directory, then a walk down the tree) against sorting
    /// the whole paths, on random trees whose names part around "/" ("a", "a.b", "a/…", "a0"),
    /// in two containers whose roots part the same way, and a third inside the first (where the
    /// tree walk gives way to sorting whole paths).
    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func tablePathOrderMatchesWholePaths(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let index = MetadataIndex()
        var trees = [TreeBuilder(), TreeBuilder("com.example.test.b")]
        var roots = [TreeBuilder.root, TreeBuilder.root + ".b"]
        if seed % 2 == 0 {
            trees.append(TreeBuilder("com.example.inner"))
            roots.append(TreeBuilder.root + "/Documents/a")
        }
        let stems = ["a", "a.b", "a0", "a!", "ab", "\u{E9}", "e\u{301}", "Item_0FB", "Item_0FBx"]
        for (n, root) in roots.enumerated() {
            index.addContainer(ContainerDescriptor(id: trees[n].container, root: root, packageTypes: [:]))
            var paths: [String] = []
            for _ in 0..<random.int(20...120) {
                let depth = random.int(1...4)
                paths.append((0..<depth).map { _ in random.pick(stems) }.joined(separator: "/"))
            }
            // A name used as a file and as a directory in one listing keeps the first: make it unique.
            paths = paths.filter { path in !paths.contains { $0.hasPrefix(path + "/") } }
            _ = index.apply([trees[n].listing(paths.map { "Documents/" + $0 })])
        }
        var ids = index.allItems(inContainers: nil)
        ids.shuffle(using: &random)
        let table = PathTable(ids, index: index)
        let paths = ids.map { index.path(of: $0) }
        let byPath = paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(table.sortedPositions().map { paths[$0] } == byPath)
        let key = ids.map { Int($0) % 3 }
        let byKeyThenPath = paths.indices.sorted { a, b in
            key[a] != key[b] ? key[a] < key[b] : paths[a].utf8.lexicographicallyPrecedes(paths[b].utf8)
        }
        #expect(table.sortedPositions { key[$0] - key[$1] } == byKeyThenPath)
    }

    /// Entries of one directory alone: given in byte order of their names (as a flat tree's
    /// answer comes from the name index), the table keeps that order; given in any other, or with
    /// another directory's entry among them, it sorts. Either way the order is the whole paths'.
    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func oneDirectorysEntriesInOrderOrNot(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        let stems = ["a", "a.b", "a0", "a!", "ab", "b", "\u{E9}", "e\u{301}", "Item_0FB", "Item_0FBx", "Item_0FB0"]
        var names = Set<String>()
        for _ in 0..<random.int(2...60) { names.insert(random.pick(stems) + (random.int(0...1) == 0 ? "" : "\(random.int(0...99))")) }
        let other = seed % 3 == 0 ? ["Library/x"] : []
        _ = index.apply([tree.listing(names.map { "Documents/" + $0 } + other)])
        let documents = try #require(index.allItems(inContainers: nil).first { index.path(of: $0).hasSuffix("/Documents") })
        var ids = index.allItems(inContainers: nil).filter { index.parent($0) == documents }
        ids += index.allItems(inContainers: nil).filter { index.path(of: $0).hasSuffix("/Library/x") }
        let byBytes = ids.sorted { index.path(of: $0).utf8.lexicographicallyPrecedes(index.path(of: $1).utf8) }
        for order in [byBytes, byBytes.reversed(), byBytes.shuffled(using: &random), byBytes.count > 1 ? [byBytes[1], byBytes[0]] + byBytes.dropFirst(2) : byBytes] {
            let table = PathTable(order, index: index)
            #expect(table.sortedPositions().map { order[$0] } == byBytes, "seed \(seed): \(order.map { index.path(of: $0) })")
        }
    }

    @Test func aTableHoldsTheIndexPaths() throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        _ = index.apply([tree.listing(Self.awkward + ["Library/deep/er/still"])])
        let ids = index.allItems(inContainers: nil).reversed().map { $0 }
        let table = PathTable(Array(ids), index: index)
        #expect(table.count == ids.count)
        for (i, id) in ids.enumerated() {
            #expect(table.path(i) == index.path(of: id))
            var bytes: [UInt8] = []
            index.appendPath(of: id, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == index.path(of: id))
        }
        let whole = table.wholePaths()
        let prefix = whole.bytes.withUnsafeBufferPointer { bytes in whole.ends.withUnsafeBufferPointer { PathTable.sharedPrefix(bytes, $0) } }
        #expect(prefix == TreeBuilder.root.count + 1)     // "Documents" and "Library" part there
        let sorted = table.sortedPositions().map { table.path($0) }
        #expect(sorted == ids.map { index.path(of: $0) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    /// A table's names are written into room for 48 bytes each (a short name as its whole
    /// 16-byte slot); names longer on average outgrow it, and the rest are appended: every path
    /// reads back whole either way, short, long and compressed names among them.
    @Test(arguments: [0, 1, 30, 255])
    func namesLongerThanTheRoomForThemReadBackWhole(longNames: Int) throws {
        var tree = TreeBuilder()
        let index = MetadataIndex()
        index.addContainer(tree.descriptor)
        var paths = (0..<longNames).map { "Documents/" + String(repeating: "\u{E9}long", count: 1 + $0 % 40) + "_\($0)" }
        paths += (0..<40).map { "Documents/s\($0)" } + ["Documents/fifteen_bytes_a", "Documents/sixteen_bytes_ab"]
        _ = index.apply([tree.listing(paths)])
        let ids = index.allItems(inContainers: nil)
        let table = PathTable(ids, index: index)
        #expect(table.count == ids.count)
        for (i, id) in ids.enumerated() { #expect(table.path(i) == index.path(of: id)) }
        let sorted = table.sortedPositions().map { table.path($0) }
        #expect(sorted == ids.map { index.path(of: $0) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test(arguments: [[Attribute.name], [.name, .size, .contentType, .path], [.size], [.displayName, .name, .isDirectory]])
    func itemsReadBackAsBuiltOneByOne(_ attributes: [Attribute]) throws {
        for seed in UInt64(1)...6 {
            var model = ModelTree(seed: seed)
            let index = MetadataIndex()
            index.addContainer(model.tree.descriptor)
            _ = index.apply([model.tree.listing(["Documents/", "Library/"])])
            for _ in 0..<60 { _ = index.apply(model.step()) }
            for sort in [[], ["-size"]] {
                let query = try Self.query("TRUEPREDICATE", index, sort: sort, attributes: attributes)
                let results = query.gather()
                #expect(results.count == query.order.count)
                for (i, id) in query.order.enumerated() {
                    let expected = query.result(id)
                    #expect(results[i] == expected, "seed \(seed) item \(i)")
                    #expect(results.identity(i) == expected.identity)
                    for attribute in attributes { #expect(results.value(i, attribute) == expected.values[attribute]) }
                    #expect(results.path(i) == index.path(of: id))
                }
                #expect(query.results == results)
            }
        }
    }

    /// Three containers; a query limited to the last answers from it alone, whether the name
    /// index finds its candidates or every item is walked.
    @Test func aQueryLimitedToOneContainerAnswersFromItAlone() throws {
        let index = MetadataIndex()
        let trees = ["com.example.one", "com.example.two", "com.example.three"].map(TreeBuilder.init)
        for (n, var tree) in trees.enumerated() {
            index.addContainer(ContainerDescriptor(id: tree.container, root: "/c\(n)", packageTypes: [:]))
            _ = index.apply([tree.listing(["Documents/Item_\(n)", "Documents/other_\(n)"])])
        }
        let expected = ["kMDItemFSName LIKE 'Item_*'": ["/c2/Documents/Item_2"],
                        "kMDItemFSName ENDSWITH '2'": ["/c2/Documents/Item_2", "/c2/Documents/other_2"]]
        for (predicate, paths) in expected {
            let spec = QuerySpecification(predicate: try MetadataPredicate(parsing: predicate), containers: [trees[2].container])
            let results = LiveQuery(spec, index: index, context: EvaluationContext()).gather()
            #expect(results.indices.map(results.path) == paths, "\(predicate)")
        }
    }

    @Test func aSetOfHandMadeItemsKeepsWhatTheySay() {
        let identity = ItemIdentity(id: 4, generation: 1)
        let item = ResultItem(identity: identity, path: "/r/x", values: [.name: .string("not x"), .size: .integer(3)])
        let set = ResultSet([item])
        #expect(set.attributes == [.name, .size])
        #expect(Array(set) == [item])
        #expect(!set.namesFromPaths)
        #expect(set.path(0) == "/r/x")
        #expect(set.value(0, .name) == .string("not x"))
        #expect(ResultSet().isEmpty)
        let literal: ResultSet = [item]
        #expect(literal == set)
    }

    /// The same answer, compared on the buffers (a restart's remembered answer against the query
    /// gathered again): a set is its own answer and that of its items rebuilt one by one (other
    /// directory tables, names as values); one name, one directory, one value or one identity
    /// changed is another answer, and so is a name given as a value that is not the path's.
    @Test func theSameAnswerIsComparedOnItsBuffers() throws {
        let index = Self.awkwardIndex()
        let gathered = try Self.query("TRUEPREDICATE", index, attributes: [.name, .size]).gather()
        let items = Array(gathered)
        let rebuilt = ResultSet(items, attributes: gathered.attributes)
        #expect(gathered.namesFromPaths && !rebuilt.namesFromPaths && gathered.count > 10)
        #expect(gathered.isSameAnswer(as: gathered) && gathered.isSameAnswer(as: rebuilt) && rebuilt.isSameAnswer(as: gathered))
        for k in items.indices {
            let item = items[k], slash = item.path.lastIndex(of: "/")!
            let directory = String(item.path[...slash]), name = String(item.path[item.path.index(after: slash)...])
            let changes: [(String, ResultItem)] = [
                ("name", ResultItem(identity: item.identity, path: directory + name + "x", values: item.values.merging([.name: .string(name + "x")]) { $1 })),
                ("directory", ResultItem(identity: item.identity, path: directory + "y/" + name, values: item.values)),
                ("value", ResultItem(identity: item.identity, path: item.path, values: item.values.merging([.size: .integer(-7)]) { $1 })),
                ("identity", ResultItem(identity: ItemIdentity(id: item.identity.id, generation: item.identity.generation &+ 1),
                                        path: item.path, values: item.values)),
                ("name as a value", ResultItem(identity: item.identity, path: item.path, values: item.values.merging([.name: .string("z")]) { $1 })),
            ]
            for (what, changed) in changes {
                var other = items
                other[k] = changed
                let set = ResultSet(other, attributes: gathered.attributes)
                #expect(!gathered.isSameAnswer(as: set) && !set.isSameAnswer(as: gathered), "item \(k): its \(what)")
            }
        }
    }

    /// The fast paths of the same answer: a copy sharing the gathered set's directory tables and
    /// names read from paths (as a remembered answer read back is) is the same answer, and one
    /// name byte, one item's directory or one value changed in it is not.
    @Test func theSameAnswerOnSharedTablesStillComparesEveryItem() throws {
        let index = Self.awkwardIndex()
        let gathered = try Self.query("TRUEPREDICATE", index, attributes: [.name, .size]).gather()
        func copy(_ edit: (inout [UInt8], inout [Int32], inout [Value?]) -> Void) -> ResultSet {
            var names = gathered.nameBytes, directories = gathered.itemDirectories
            var values = gathered.indices.flatMap { i in gathered.attributes.indices.map { gathered.storedValue(i, column: $0) } }
            edit(&names, &directories, &values)
            return .parts(attributes: gathered.attributes, identities: gathered.indices.map(gathered.identity),
                          directoryBytes: gathered.directoryBytes, directoryEnds: gathered.directoryEnds, nameBytes: names,
                          nameStarts: gathered.nameStarts, nameEnds: gathered.nameEnds, itemDirectories: directories,
                          values: values, namesFromPaths: gathered.namesFromPaths)
        }
        #expect(gathered.namesFromPaths && gathered.directoryEnds.count > 2)
        #expect(copy { _, _, _ in }.isSameAnswer(as: gathered))
        let size = try #require(gathered.attributes.firstIndex(of: .size))
        for k in gathered.indices {
            let name = copy { names, _, _ in names[gathered.nameStarts[k]] ^= 0x01 }
            #expect(!name.isSameAnswer(as: gathered) && !gathered.isSameAnswer(as: name), "item \(k)'s name")
            let directory = copy { _, directories, _ in
                directories[k] = (directories[k] + 1) % Int32(gathered.directoryEnds.count)
            }
            #expect(!directory.isSameAnswer(as: gathered), "item \(k)'s directory")
            let value = copy { _, _, values in values[k * gathered.attributes.count + size] = .integer(-9) }
            #expect(!value.isSameAnswer(as: gathered), "item \(k)'s size")
        }
    }
}
