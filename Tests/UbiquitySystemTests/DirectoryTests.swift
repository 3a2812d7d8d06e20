import Glibc
import Testing
@testable import UbiquitySystem
import UbiquityTesting

/// The door's directory against the real kernel: the durable replace, bounded reads, listing and
/// removal, with links, FIFOs and hard links planted where a hostile owner would put them.
@Suite("Directory and the durable replace")
struct DirectoryTests {
    /// A temporary directory `base` holding `inside/` (opened) and `outside/` (must stay untouched).
    struct Fixture {
        let base: String
        let inside: Directory

        init() throws {
            base = try FS.temporaryDirectory()
            try FS.mkdir(base + "/inside")
            try FS.mkdir(base + "/outside")
            try FS.write(base + "/outside/secret", "secret")
            inside = try Directory.open(base + "/inside")
        }

        func names() throws -> [String] { try inside.names().map { String(decoding: $0, as: UTF8.self) }.sorted() }
        func text(_ path: String) -> String? {
            (try? Directory.open(PathBytes.directory(of: path)))?.read(PathBytes.lastComponent(of: path), limit: 1 << 20)
                .flatMap { try? $0.get() }.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test func replaceWritesAndReplacesLeavingOnlyTheName() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        try fixture.inside.replace("a.json", with: Array("one".utf8), mode: 0o600)
        try fixture.inside.replace("a.json", with: Array("two".utf8), mode: 0o600)
        #expect(fixture.text(fixture.base + "/inside/a.json") == "two")
        #expect(try fixture.names() == ["a.json"])
        let status = try #require(try fixture.inside.status(of: Array("a.json".utf8)))
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func aFailedReplaceLeavesNoTemporaryFileAndNamesTheCall() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        // A non-empty directory at the name: the temporary file is written and synced, then the
        // rename over the name fails.
        try FS.mkdir(fixture.base + "/inside/a.json")
        try FS.write(fixture.base + "/inside/a.json/keep", "x")
        #expect {
            try fixture.inside.replace("a.json", with: Array("new".utf8))
        } throws: { error in
            let error = error as? SystemCallError
            return error?.call == "renameat" && error?.errno == EISDIR && error?.path?.hasPrefix(fixture.base + "/inside/.a.json.") == true
        }
        #expect(try fixture.names() == ["a.json"])
        // A FIFO planted at the temporary name asked for: refused at once (O_EXCL), never opened.
        #expect(mkfifo(fixture.base + "/inside/.b.tmp", 0o600) == 0)
        #expect {
            try fixture.inside.replace("b", with: Array("new".utf8), temporary: ".b.tmp")
        } throws: { error in
            (error as? SystemCallError)?.call == "openat" && (error as? SystemCallError)?.errno == EEXIST
        }
        #expect(try fixture.names() == [".b.tmp", "a.json"])
    }

    @Test func createNewNeverReplacesAnythingAndLeavesNoTemporaryFile() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        try Array("one".utf8).withUnsafeBytes { try fixture.inside.createNew("a", with: $0) }
        #expect(fixture.text(fixture.base + "/inside/a") == "one")
        // Anything at the name, a dangling link included: EEXIST, nothing replaced, no temporary left.
        try FS.symlink(fixture.base + "/outside/none", fixture.base + "/inside/b")
        for name in ["a", "b"] {
            #expect {
                try Array("two".utf8).withUnsafeBytes { try fixture.inside.createNew(name, with: $0) }
            } throws: { error in
                (error as? SystemCallError)?.call == "linkat" && (error as? SystemCallError)?.errno == EEXIST
            }
        }
        #expect(fixture.text(fixture.base + "/inside/a") == "one")
        #expect(try fixture.names() == ["a", "b"])
    }

    @Test func aLinkInPlaceOfTheDirectoryIsRefusedAndALinkAtTheNameIsReplacedNotFollowed() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        try FS.symlink(fixture.base + "/outside", fixture.base + "/inside/sub")
        try FS.symlink(fixture.base + "/outside", fixture.base + "/linked")
        for attempt in [{ _ = try fixture.inside.openDirectory("sub") }, { _ = try Directory.open(fixture.base + "/linked") }] {
            #expect {
                try attempt()
            } throws: { error in
                // O_DIRECTORY | O_NOFOLLOW on a link: ENOTDIR (ELOOP without O_DIRECTORY).
                (error as? SystemCallError)?.isLinkOrNotDirectory == true
            }
        }
        // A link at the name itself: the rename replaces the link; what it pointed to is untouched.
        try FS.symlink(fixture.base + "/outside/secret", fixture.base + "/inside/a.json")
        try fixture.inside.replace("a.json", with: Array("mine".utf8))
        #expect(fixture.text(fixture.base + "/outside/secret") == "secret")
        #expect(fixture.text(fixture.base + "/inside/a.json") == "mine")
    }

    @Test func readIsBoundedAndRefusesWhatIsNotARegularFileOfOneName() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        try FS.write(fixture.base + "/inside/ten", "0123456789")
        #expect(try fixture.inside.read("ten", limit: 10)?.get() == Array("0123456789".utf8))
        #expect(fixture.inside.read("ten", limit: 9) == .failure(.tooLarge(size: 10, limit: 9)))
        #expect(fixture.inside.read("missing", limit: 9) == nil)
        #expect(mkfifo(fixture.base + "/inside/fifo", 0o600) == 0)
        guard case .failure(.notRegular)? = fixture.inside.read("fifo", limit: 9) else { Issue.record("a FIFO was read"); return }
        try FS.symlink(fixture.base + "/outside/secret", fixture.base + "/inside/link")
        guard case .failure(.notRegular)? = fixture.inside.read("link", limit: 99) else { Issue.record("a link was followed"); return }
        try FS.link(fixture.base + "/outside/secret", fixture.base + "/inside/hard")
        #expect(fixture.inside.read("hard", limit: 99, singleLink: true) == .failure(.hardLinks(2)))
        #expect(try fixture.inside.read("hard", limit: 99)?.get() == Array("secret".utf8))
        // Sizes and limits from outside never trap: a size hint of Int.max, a negative limit.
        let fd = open(fixture.base + "/inside/ten", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        #expect(try Directory.readAll(fd, limit: 4, sizeHint: .max) == Array("01234".utf8))
        #expect(try Directory.readAll(fd, limit: -1, sizeHint: -5) == Array("5".utf8))
        #expect(try Directory.readAll(fd, limit: .max) == Array("6789".utf8))
    }

    /// A sync engine renames each download over the file it replaces: one renamed in between
    /// the status and the open is read as the newer file it is, once its own status passes the
    /// same checks; what is not a regular file is refused. (Refused as replaced, another
    /// device's newer acknowledgement held a store's compaction back, in CI.)
    @Test func aFileRenamedOverTheNameBetweenTheStatusAndTheOpenIsCheckedByItsOwnStatus() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        let name = Array("ack".utf8), path = fixture.base + "/inside/ack", staged = fixture.base + "/inside/.ack.new"
        /// `path` holds "old"; `make` makes `staged`, renamed over `path` between the status and the open.
        func read(limit: Int, singleLink: Bool, swappingIn make: @escaping (String) throws -> Void) throws -> Result<[UInt8], ReadRefusal>? {
            unlink(path)
            try FS.write(path, "old")
            return fixture.inside.read(name, limit: limit, singleLink: singleLink, betweenStatusAndOpen: {
                do {
                    try make(staged)
                    #expect(rename(staged, path) == 0)
                } catch {
                    Issue.record("\(error)")
                }
            })
        }
        let newer = try read(limit: 99, singleLink: true) { try FS.write($0, #"{"b":52}"#) }
        #expect(try newer?.get() == Array(#"{"b":52}"#.utf8))
        let larger = try read(limit: 9, singleLink: false) { try FS.write($0, "0123456789") }
        #expect(larger == .failure(.tooLarge(size: 10, limit: 9)))
        let linked = try read(limit: 99, singleLink: true) { try FS.link(fixture.base + "/outside/secret", $0) }
        #expect(linked == .failure(.hardLinks(2)))
        let fifo = try read(limit: 99, singleLink: false) { try FS.check(mkfifo($0, 0o600), "mkfifo \($0)") }
        #expect(fifo == .failure(.replaced))
        #expect(fixture.text(fixture.base + "/outside/secret") == "secret")
    }

    @Test func readAllReadsTheWholeFileWhateverItsSizeHint() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        // Megabytes (the first buffer advised for huge pages), with every byte telling its place.
        let big = (0..<(3 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        let out = open(fixture.base + "/inside/big", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(out >= 0)
        #expect(big.withUnsafeBytes { Glibc.write(out, $0.baseAddress, $0.count) } == big.count)
        close(out)
        for (hint, expected) in [(big.count, big), (big.count * 2, big), (100, big), (0, big)] {
            let fd = open(fixture.base + "/inside/big", O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            #expect(try Directory.readAll(fd, limit: 1 << 30, sizeHint: hint) == expected, "size hint \(hint)")
        }
        let fd = open(fixture.base + "/inside/big", O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        // A hint of the whole size and a smaller limit: the limit's bytes and one more.
        #expect(try Directory.readAll(fd, limit: 1 << 20, sizeHint: big.count) == Array(big[..<((1 << 20) + 1)]))
    }

    /// A read that steps aside for other work (the daemon's saved index, while an answer is
    /// written) reads a piece at a time and looks before each, and still reads the whole file.
    @Test func aReadInPiecesLooksBeforeEachPieceAndReadsTheWholeFile() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        let size = 2 * Directory.readPieceBytes + 7
        let big = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        let out = open(fixture.base + "/inside/big", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(out >= 0)
        #expect(big.withUnsafeBytes { Glibc.write(out, $0.baseAddress, $0.count) } == big.count)
        close(out)
        var looks = 0
        let read = fixture.inside.read("big", limit: 1 << 30, betweenPieces: { looks += 1 })
        guard case .success(let bytes)? = read else { Issue.record("read: \(String(describing: read))"); return }
        #expect(bytes == big)
        // Three pieces, and the read that finds the end.
        #expect(looks >= 3, "looked \(looks) times")
        for hint in [100, 0] {
            let fd = open(fixture.base + "/inside/big", O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            var pieces = 0
            #expect(try Directory.readAll(fd, limit: 1 << 30, sizeHint: hint, betweenPieces: { pieces += 1 }) == big,
                    "size hint \(hint)")
            #expect(pieces >= 1, "size hint \(hint)")
        }
    }

    @Test func removeTreeIsBoundedAndNeverFollowsALink() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        try FS.mkdirs(fixture.base + "/inside/tree/a/b")
        try FS.write(fixture.base + "/inside/tree/a/b/file", "x")
        try FS.symlink(fixture.base + "/outside", fixture.base + "/inside/tree/a/out")
        try fixture.inside.removeTree("tree")
        #expect(try fixture.names() == [])
        #expect(fixture.text(fixture.base + "/outside/secret") == "secret")
        // Deeper than the bound: stopped, the directory there left in place.
        var deep = fixture.base + "/inside/deep"
        for level in 0...Directory.maxDepth { deep += "/\(level)" }
        try FS.mkdirs(deep)
        #expect {
            try fixture.inside.removeTree("deep")
        } throws: { error in
            (error as? SystemCallError)?.errno == ENOTEMPTY
        }
        try fixture.inside.removeTree("nothing-here")
    }

    @Test func namesAreBytesAndTextNamesOnlyValidUTF8() throws {
        let fixture = try Fixture()
        defer { try? FS.removeTree(fixture.base) }
        let invalid: [UInt8] = [0x61, 0xFF, 0x62]
        try fixture.inside.createFile(invalid, with: UnsafeRawBufferPointer(start: nil, count: 0))
        try fixture.inside.replace("ok", with: [])
        #expect(Set(try fixture.inside.names()) == [invalid, Array("ok".utf8)])
        #expect(fixture.inside.textNames() == ["ok"])
    }
}
