import CUbiquitySystem
import Glibc
import Testing
import UbiquitySystem
import UbiquityTesting

/// Random client paths — `/`, `..`, `.`, NUL, the names of planted links, grapheme "prepend" and
/// combining characters, invalid UTF-8, long components — opened below a container that holds
/// links to `/`, to another container and to a file outside. Whatever opens must be inside the
/// container; nothing may trap. Both the `openat2` walk and the component-by-component fallback.
@Suite("Client paths fuzzed against planted links")
struct ClientPathFuzzTests {
    /// A container `c` beside another container `other` and a secret outside both.
    struct Fixture {
        let base: String
        let container: String
        let root: Int32

        init() throws {
            base = try FS.temporaryDirectory()
            container = base + "/c"
            try FS.mkdir(container)
            try FS.mkdir(base + "/other")
            try FS.write(base + "/other/secret", "other's")
            try FS.write(base + "/outside", "outside")
            try FS.mkdirs(container + "/Documents/sub")
            try FS.write(container + "/Documents/Item_1", "milk")
            try FS.write(container + "/Documents/sub/Item_2", "bread")
            try FS.symlink("/", container + "/L\u{600}")
            try FS.symlink("/", container + "/Documents/root")
            try FS.symlink(base + "/other", container + "/Documents/other")
            try FS.symlink("../../outside", container + "/Documents/up")
            try FS.symlink("/proc/self/root", container + "/Documents/magic")
            root = open(container, UBQ_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if root < 0 { try FS.check(-1, "open \(container)") }
        }

        func remove() {
            close(root)
            _ = try? FS.removeTree(base)
        }
    }

    /// Where `fd` really is (`/proc/self/fd`), as bytes.
    static func location(of fd: Int32) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 8192)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count)
        return n > 0 ? buffer[..<n].map { UInt8(bitPattern: $0) } : []
    }

    @Test("50,000 random paths per walk (100,000 in all) never open anything outside the container", arguments: [Beneath.Strategy.openat2, .componentByComponent])
    func nothingOutside(strategy: Beneath.Strategy) throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        var random = SplitMix64(seed: strategy == .openat2 ? 33 : 34)
        let inside = Array(fixture.container.utf8) + [PathBytes.separator]
        var opened = 0, refused = 0, invalid = 0
        for _ in 0..<50_000 {
            let raw = HostilePaths.random(&random)
            // Absolute or not: a client path is made relative by the caller; here both are tried.
            let relative = raw.first == PathBytes.separator ? Array(raw.drop { $0 == PathBytes.separator }) : raw
            guard let path = try? RelativePath(relative) else { invalid += 1; continue }
            for flags in [UBQ_O_PATH, O_RDONLY | O_NONBLOCK] {
                switch Beneath.open(path, in: fixture.root, flags: flags, strategy: strategy) {
                case .success(let fd):
                    let place = Self.location(of: fd)
                    close(fd)
                    #expect(place.starts(with: inside), "\(String(decoding: relative, as: UTF8.self)) opened \(String(decoding: place, as: UTF8.self))")
                    opened += 1
                case .failure:
                    refused += 1
                }
            }
            if case .success(let parent) = Beneath.openParent(of: path, in: fixture.root, strategy: strategy) {
                let place = Self.location(of: parent)
                close(parent)
                #expect(place.starts(with: inside) || place == Array(fixture.container.utf8))
            }
        }
        // The fuzz must reach both outcomes, or it proves nothing.
        #expect(opened > 5_000 && refused > 10_000 && invalid > 10_000, "opened \(opened), refused \(refused), invalid \(invalid)")
    }

    @Test("The grapheme-prepend trick: 'L\\u{600}/etc' is two components, and the link is refused")
    func prependCharacterBeforeSlash() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        // As Swift's String sees it, a single component: the bug this module exists for.
        #expect("L\u{600}/etc/passwd".split(separator: "/").count == 2)
        let path = try RelativePath("L\u{600}/etc/passwd")
        #expect(path.components.count == 3)
        for strategy in [Beneath.Strategy.openat2, .componentByComponent] {
            let result = Beneath.open(path, in: fixture.root, flags: O_RDONLY, strategy: strategy)
            guard case .failure(let error) = result else {
                Issue.record("\(strategy) opened a file through a link"); continue
            }
            #expect(error.isLinkOrNotDirectory, "\(error)")
        }
    }

    @Test("Validation: empty, dot, NUL and over-long components; what is valid opens")
    func validation() throws {
        #expect(throws: PathError(.emptyComponent)) { try RelativePath("a//b") }
        #expect(throws: PathError(.emptyComponent)) { try RelativePath("") }
        #expect(throws: PathError(.emptyComponent)) { try RelativePath("a/") }
        #expect(throws: PathError(.dotComponent)) { try RelativePath("a/../b") }
        #expect(throws: PathError(.dotComponent)) { try RelativePath("./a") }
        #expect(throws: PathError(.nulByte)) { try RelativePath([0x61, 0, 0x62]) }
        #expect(throws: PathError(.componentTooLong)) { try RelativePath(String(repeating: "x", count: 256)) }
        #expect(throws: PathError(.pathTooLong)) { try RelativePath(Array(repeating: 0x61, count: 4097)) }
        #expect(try RelativePath("...").components == [Array("...".utf8)])
        let fixture = try Fixture()
        defer { fixture.remove() }
        for strategy in [Beneath.Strategy.openat2, .componentByComponent] {
            let fd = try Beneath.open(try RelativePath("Documents/sub/Item_2"), in: fixture.root, flags: O_RDONLY, strategy: strategy).get()
            var buffer = [UInt8](repeating: 0, count: 16)
            #expect(read(fd, &buffer, 16) == 5)
            close(fd)
            // A final link is refused too, unless O_PATH asks for the link itself.
            #expect(throws: PathError.self) { try Beneath.open(try RelativePath("Documents/up"), in: fixture.root, flags: O_RDONLY, strategy: strategy).get() }
        }
    }

    @Test("Byte helpers: relative-below compares bytes, not characters")
    func byteHelpers() {
        #expect(PathBytes.relative(Array("/c/x".utf8), below: Array("/c".utf8)).map(Array.init) == Array("x".utf8))
        #expect(PathBytes.relative(Array("/c\u{301}/x".utf8), below: Array("/c".utf8)) == nil)
        #expect(PathBytes.relative(Array("/c".utf8), below: Array("/c".utf8)) == nil)
        #expect(PathBytes.relative(Array("/c/x".utf8), below: Array("/c/".utf8)).map(Array.init) == Array("x".utf8))
        #expect(PathBytes.lastComponent(of: "/a/L\u{600}/etc") == "etc")
        #expect(PathBytes.directory(of: "/a/L\u{600}/etc") == "/a/L\u{600}")
        #expect(PathBytes.components(of: "/var//lib/") == ["var", "lib"])
    }
}
