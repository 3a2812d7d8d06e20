// Generated container trees on the real file system, reproducible from a seed.
//
// Layout of a tree of N entries (N counts every file and directory below the container root):
//
//     <base>/tree-<N>/com.example.bench/          the container root
//         Documents/                               entry 1; everything else is below it
//             dir_<k>/                             2% of entries: subdirectories, filled in turn
//             List_<k>.gro/                        0.1%: a package with 3 files (4 entries)
//                 contents.json  meta.plist  thumb.png
//             Item_<UUID>                          10% of plain files (as Grocery names them)
//             file_<k>.txt|.png|.md|.json|(none)   the other plain files
//
// Directories are filled breadth-first with 100 entries each, so a tree of N entries has about
// N/100 directories. Files hold 0–64 bytes. Names, sizes and shape depend only on the seed.
import BenchmarkSupport
import Glibc

/// What was generated, for checking the watcher's answer.
struct GeneratedTree {
    /// The container root (absolute, no trailing slash).
    let root: String
    /// Files and directories below the root.
    let entries: Int
    let directories: Int
    let packages: Int
    /// Plain files named `Item_<UUID>`: what `kMDItemFSName LIKE 'Item_*'` must find.
    let itemNames: Int
}

enum Tree {
    static let entriesPerDirectory = 100
    static let packageFiles = ["contents.json", "meta.plist", "thumb.png"]
    static let extensions = [".txt", ".png", ".md", ".json", ""]
    /// File contents: a prefix of this, 0–64 bytes.
    static let payload = Array("Ubiquity watch benchmark: small file contents, 0 to 64 bytes....".utf8)

    /// Creates `<parent>/com.example.bench` holding `count` entries.
    static func generate(in parent: String, entries count: Int, seed: UInt64) throws -> GeneratedTree {
        precondition(count >= 1)
        let root = parent + "/com.example.bench"
        try makeDirectory(parent)
        try makeDirectory(root)
        var rng = SplitMix64(state: seed)
        var created = 0
        var directories = 1, packages = 0, itemNames = 0
        try makeDirectory(root + "/Documents")
        created = 1
        var queue = ["Documents"]
        var next = 0
        var lastReport = 0
        while created < count {
            guard next < queue.count else { throw BenchmarkError("tree generation ran out of directories") }
            let relative = queue[next]
            next += 1
            let fd = open(root + "/" + relative, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw BenchmarkError("open \(relative): errno \(errno)") }
            defer { close(fd) }
            var inDirectory = 0
            while inDirectory < entriesPerDirectory && created < count {
                inDirectory += 1
                let r = rng.next()
                if r % 100 < 2 {
                    let name = "dir_\(created)"
                    guard mkdirat(fd, name, 0o755) == 0 else { throw BenchmarkError("mkdir \(name): errno \(errno)") }
                    queue.append(relative + "/" + name)
                    created += 1
                    directories += 1
                    continue
                }
                if r % 1000 == 2 && created + 1 + packageFiles.count <= count {
                    let name = "List_\(created).gro"
                    guard mkdirat(fd, name, 0o755) == 0 else { throw BenchmarkError("mkdir \(name): errno \(errno)") }
                    let package = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                    guard package >= 0 else { throw BenchmarkError("open \(name): errno \(errno)") }
                    defer { close(package) }
                    for file in packageFiles { try writeFile(package, file, size: Int(rng.next() % 65)) }
                    created += 1 + packageFiles.count
                    packages += 1
                    continue
                }
                let nameDraw = rng.next()
                let name: String
                if nameDraw % 10 == 0 {
                    name = "Item_" + uuid(&rng)
                    itemNames += 1
                } else {
                    name = "file_\(created)" + extensions[Int((nameDraw / 10) % UInt64(extensions.count))]
                }
                try writeFile(fd, name, size: Int(rng.next() % 65))
                created += 1
            }
            if created - lastReport >= 100_000 {
                lastReport = created
                Log.progress("  generated \(grouped(created)) / \(grouped(count)) entries")
            }
        }
        return GeneratedTree(root: root, entries: created, directories: directories, packages: packages,
                             itemNames: itemNames)
    }

    /// `8-4-4-4-12` upper-case hex, version 4, from the generator.
    static func uuid(_ rng: inout SplitMix64) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<2 { withUnsafeBytes(of: rng.next()) { bytes.append(contentsOf: $0) } }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func writeFile(_ directory: Int32, _ name: String, size: Int) throws {
        let fd = openat(directory, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchmarkError("create \(name): errno \(errno)") }
        defer { close(fd) }
        if size > 0 {
            let written = payload.withUnsafeBytes { write(fd, $0.baseAddress, size) }
            guard written == size else { throw BenchmarkError("write \(name): errno \(errno)") }
        }
    }

    static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw BenchmarkError("mkdir \(path): errno \(errno)") }
    }
}
