import Glibc
import Synchronization
import Testing
import UbiquityTesting
import UbiquityIndex
@testable import UbiquityWatch

@Suite("Crawler")
struct CrawlerTests {
    private func temporaryTree() throws -> String {
        let base = try FS.temporaryDirectory()
        try FS.chmod(base, 0o755)
        try FS.mkdirs(base + "/root/Documents/sub")
        try FS.write(base + "/root/Documents/a.txt", "alpha")
        try FS.write(base + "/root/Documents/sub/b.bin", "bravo!")
        try FS.mkdir(base + "/outside")
        try FS.write(base + "/outside/secret.txt", "secret")
        try FS.symlink(base + "/outside", base + "/root/link")
        return base
    }

    @Test func crawlsKindsSizesAndBirthTimesWithoutFollowingSymlinks() throws {
        let base = try temporaryTree()
        defer { try? FS.removeTree(base) }
        let result = try Crawler().crawl(root: base + "/root")
        #expect(result.skipped.isEmpty)
        #expect(result.listing.root?.kind == .directory)
        let entries = try crawlSnapshot(root: base + "/root")
        #expect(Set(entries.keys) == ["Documents", "Documents/a.txt", "Documents/sub", "Documents/sub/b.bin", "link"])
        #expect(entries["Documents/a.txt"]?.kind == .regular)
        #expect(entries["Documents/a.txt"]?.size == 5)
        #expect(entries["Documents/sub/b.bin"]?.size == 6)
        #expect(entries["Documents/sub"]?.kind == .directory)
        #expect(entries["link"]?.kind == .symlink)
        let a = try #require(result.listing.entries.first { $0.name == "a.txt" }).stat
        var raw = stat()
        #expect(lstat(base + "/root/Documents/a.txt", &raw) == 0)
        #expect(a.inode == UInt64(raw.st_ino))
        #expect(a.modified == Int64(raw.st_mtim.tv_sec) * 1_000_000_000 + Int64(raw.st_mtim.tv_nsec))
        #expect(a.mode == UInt32(raw.st_mode) & 0o7777)
        #expect(a.created > 0 && a.created <= a.modified)
    }

    @Test func crawlsASubtreeAFileAndNothing() throws {
        let base = try temporaryTree()
        defer { try? FS.removeTree(base) }
        let crawler = Crawler()
        let subtree = try crawler.crawlSubtree(containerRoot: base + "/root", relative: ["Documents"])
        #expect(subtree.listing.root?.kind == .directory)
        #expect(Set(listingPaths(subtree.listing)) == ["a.txt", "sub", "sub/b.bin"])

        let file = try crawler.crawlSubtree(containerRoot: base + "/root", relative: ["Documents", "a.txt"])
        #expect(file.listing.root?.kind == .regular)
        #expect(file.listing.entries.isEmpty)

        let missing = try crawler.crawlSubtree(containerRoot: base + "/root", relative: ["Documents", "nope"])
        #expect(missing.listing.root == nil)
        #expect(try crawler.crawl(root: base + "/no-such-root").listing.root == nil)

        // Through a symlink is not inside the container: nothing is there.
        let through = try crawler.crawlSubtree(containerRoot: base + "/root", relative: ["link", "secret.txt"])
        #expect(through.listing.root == nil)
        let link = try crawler.crawlSubtree(containerRoot: base + "/root", relative: ["link"])
        #expect(link.listing.root?.kind == .symlink)
        #expect(link.listing.entries.isEmpty)
    }

    @Test func rejectsRelativeRootsAndHostileComponents() throws {
        let crawler = Crawler()
        for relative in [[".."], ["a/b"], [""], ["."]] {
            #expect {
                _ = try crawler.crawlSubtree(containerRoot: "/tmp", relative: relative)
            } throws: { error in
                (error as? WatchError)?.code == .invalidPath
            }
        }
        #expect {
            _ = try crawler.crawl(root: "relative/root")
        } throws: { error in
            (error as? WatchError)?.code == .invalidPath
        }
    }

    @Test func cookieFilesAreNeverListed() throws {
        let base = try temporaryTree()
        defer { try? FS.removeTree(base) }
        try FS.write(base + "/root/\(Crawler.cookiePrefix)123-4", "")
        let names = try Crawler().crawl(root: base + "/root").listing.entries.map(\.name)
        #expect(!names.contains { $0.hasPrefix(Crawler.cookiePrefix) })
        #expect(names.contains("Documents"))
    }

    @Test func unreadableDirectoryIsListedButItsContentsSkipped() throws {
        let base = try temporaryTree()
        defer {
            _ = chmod(base + "/root/locked", 0o755)
            try? FS.removeTree(base)
        }
        try FS.mkdir(base + "/root/locked")
        try FS.write(base + "/root/locked/hidden.txt", "hidden")
        try FS.chmod(base + "/root/locked", 0)
        // As root, permissions do not apply; a thread with another file-system uid drops
        // CAP_DAC_OVERRIDE for itself only (capabilities(7)).
        let result = try onThreadWithFilesystemUID(65534) { try Crawler().crawl(root: base + "/root") }
        let paths = listingPaths(result.listing)
        #expect(paths.contains("locked"))
        #expect(!paths.contains("locked/hidden.txt"))
        #expect(paths.contains("Documents/sub/b.bin"))
        let skipped = try #require(result.skipped.first)
        #expect(result.skipped.count == 1)
        #expect(skipped.path == ["locked"])
        #expect(skipped.errno == EACCES)
        #expect(skipped.call == "openat")
        #expect(skipped.reason.contains("EACCES"))
    }
}

/// Runs `body` on a new thread whose file-system uid is `uid` (when running as root; otherwise
/// permissions apply anyway) and returns its result.
func onThreadWithFilesystemUID<T: Sendable>(_ uid: UInt32, _ body: @escaping @Sendable () throws -> T) throws -> T {
    let job = FilesystemUIDJob(uid: uid) { () -> any Sendable in Result<T, any Error> { try body() } }
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { argument in
        let job = Unmanaged<FilesystemUIDJob>.fromOpaque(argument!).takeUnretainedValue()
        typealias SetFSUID = @convention(c) (UInt32) -> Int32
        let handle = dlopen(nil, RTLD_NOW)
        let setfsuid = dlsym(handle, "setfsuid").map { unsafeBitCast($0, to: SetFSUID.self) }
        if geteuid() == 0 { _ = setfsuid?(job.uid) }
        let outcome = job.body()
        if geteuid() == 0 { _ = setfsuid?(0) }
        job.result.withLock { $0 = outcome }
        return nil
    }, Unmanaged.passUnretained(job).toOpaque())
    try #require(started == 0)
    pthread_join(thread, nil)
    let outcome = try #require(job.result.withLock { $0 } as? Result<T, any Error>)
    return try outcome.get()
}

private final class FilesystemUIDJob: Sendable {
    let uid: UInt32
    let body: @Sendable () -> any Sendable
    let result = Mutex<(any Sendable)?>(nil)
    init(uid: UInt32, body: @escaping @Sendable () -> any Sendable) {
        self.uid = uid
        self.body = body
    }
}
