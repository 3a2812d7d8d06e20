import Foundation
import Glibc
import Testing
import UbiquityIndex
import UbiquityPredicate
import UbiquityWatch

/// Two 5 EiB sparse files in one package used to trap in the package size sum, at every start.
@Suite("Sparse files beyond Int64 in sum")
struct SparseFileSizeTests {
    @Test func aPackageOfTwo5EiBSparseFilesHasTheSaturatedSize() async throws {
        // tmpfs allows 5 EiB sparse files; most disk file systems refuse them (EFBIG).
        let base = "/dev/shm/ubq-sparse-\(UUID().uuidString)"
        let root = base + "/com.example.sparse"
        try FileManager.default.createDirectory(atPath: root + "/Documents/big.gro", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let fiveEiB: Int64 = 5 << 60
        for name in ["a", "b"] {
            let fd = open(root + "/Documents/big.gro/" + name, O_CREAT | O_WRONLY, 0o644)
            try #require(fd >= 0)
            defer { close(fd) }
            try #require(ftruncate(fd, off_t(fiveEiB)) == 0, "tmpfs at /dev/shm should take a 5 EiB sparse file")
        }
        let descriptor = ContainerDescriptor(id: try ContainerID("com.example.sparse"), root: root,
                                             packageTypes: ["gro": "com.example.grocery.package"])
        let watcher = try FileWatcher(containers: [descriptor])
        let engine = QueryEngine(containers: [descriptor], source: WatcherChangeSource(watcher))
        try watcher.start()
        let runner = Task { await engine.run() }
        let spec = QuerySpecification(predicate: try MetadataPredicate(parsing: "name == 'big.gro'"),
                                      sort: [try MetadataSortDescriptor(parsing: "path")], attributes: [.name, .size])
        let id = try await engine.start(spec)
        let results = try await engine.results(id)
        #expect(results.map(\.path) == [root + "/Documents/big.gro"])
        #expect(results.first?.values[.size] == .integer(.max))
        await watcher.stop()
        runner.cancel()
    }
}
