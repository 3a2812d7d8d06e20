import CUbiquitySystem
import Foundation
import Glibc
import Testing
import UbiquitySystem
import UbiquityTesting
@testable import UbiquityServer

/// Whether a peer may read or write an item, as the kernel would decide: the evaluator alone, the
/// walk from a container root with real files, and both against the kernel itself (`setpriv` as
/// each peer, `test -r`/`test -w`/creating a file) on a random tree with random modes, owners and
/// ACLs. The file-system tests need root (chown, setfacl, setpriv, mount).
@Suite(.ownThreads) struct PeerAccessTests {
    static let alice = PeerCredentials(pid: 1, uid: 54321, gid: 54321)
    static let aliceInTeam = PeerCredentials(pid: 1, uid: 54321, gid: 54321, groups: [54400])
    static let bob = PeerCredentials(pid: 1, uid: 54322, gid: 54322)
    static let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
    static let peers = [alice, aliceInTeam, bob, root]

    static func file(_ mode: UInt32, owner: UInt32 = 0, group: UInt32 = 0, _ acl: String? = nil) throws -> PeerAccess.Entry {
        PeerAccess.Entry(mode: 0o100000 | mode, uid: owner, gid: group, acl: try acl.map(parse))
    }

    /// `u::rw-,u:54321:r--,…` as entries, in the order given.
    static func parse(_ text: String) throws -> PosixACL {
        try PosixACL(entries: text.split(separator: ",").map { part in
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            let tags: [Substring: PosixACL.Tag] = ["u": fields[1].isEmpty ? .owner : .user, "g": fields[1].isEmpty ? .owningGroup : .group,
                                                   "m": .mask, "o": .other]
            let permissions = zip(fields[2], [UInt8(4), 2, 1]).reduce(UInt8(0)) { $0 | ($1.0 == "-" ? 0 : $1.1) }
            return PosixACL.Entry(tags[fields[0]]!, permissions, id: UInt32(fields[1]) ?? .max)
        })
    }

    // MARK: The evaluator

    @Test func modeBitsWithoutAnACL() throws {
        let shared = try Self.file(0o640, group: 54400)
        #expect(PeerAccess.allows(.read, shared, peer: Self.aliceInTeam))
        #expect(!PeerAccess.allows(.write, shared, peer: Self.aliceInTeam))
        #expect(!PeerAccess.allows(.read, shared, peer: Self.alice))
        // The owner is judged by the owner bits alone, even when others may do more.
        let ownerLocked = try Self.file(0o077, owner: 54321)
        #expect(!PeerAccess.allows(.read, ownerLocked, peer: Self.alice))
        #expect(PeerAccess.allows(.read, ownerLocked, peer: Self.bob))
    }

    @Test func rootReadsAndWritesEverythingButExecutesOnlyWithAnXBit() throws {
        let none = try Self.file(0o000, owner: 54321)
        #expect(PeerAccess.allows(.read, none, peer: Self.root))
        #expect(PeerAccess.allows(.write, none, peer: Self.root))
        #expect(!PeerAccess.allows(.search, none, peer: Self.root))
        #expect(PeerAccess.allows(.search, try Self.file(0o001, owner: 54321), peer: Self.root))
        let closedDirectory = PeerAccess.Entry(mode: 0o040000, uid: 54321, gid: 54321)
        #expect(PeerAccess.allows(.search, closedDirectory, peer: Self.root))
        #expect(!PeerAccess.allows(.search, closedDirectory, peer: Self.bob))
    }

    @Test func aNamedUserIsMasked() throws {
        let entry = try Self.file(0o640, "u::rw-,u:54321:rw-,g::r--,m::r--,o::---")
        #expect(PeerAccess.allows(.read, entry, peer: Self.alice))
        #expect(!PeerAccess.allows(.write, entry, peer: Self.alice))
        #expect(!PeerAccess.allows(.read, entry, peer: Self.bob))
    }

    /// A peer in the group class is never judged by other, even when other grants more.
    @Test func aMatchingGroupThatGrantsNothingShutsOutOther() throws {
        let entry = try Self.file(0o666, "u::rw-,g::---,g:54400:r--,m::rw-,o::rw-")
        #expect(!PeerAccess.allows(.write, entry, peer: Self.aliceInTeam))
        #expect(PeerAccess.allows(.read, entry, peer: Self.aliceInTeam))
        #expect(PeerAccess.allows(.write, entry, peer: Self.alice))
    }

    @Test func anyMatchingGroupMayGrant() throws {
        let entry = try Self.file(0o660, owner: 0, group: 54321, "u::rw-,g::---,g:54400:rw-,m::rw-,o::---")
        #expect(PeerAccess.allows(.write, entry, peer: Self.aliceInTeam))
        #expect(!PeerAccess.allows(.write, entry, peer: Self.alice))
    }

    /// With `mask::---` the group bits of the mode are clear and the kernel skips the ACL: a named
    /// user then gets what other gets (measured on Linux 6.18; the differential test covers it).
    @Test func anEmptyMaskMeansTheClassicCheck() throws {
        let entry = try Self.file(0o604, "u::rw-,u:54321:rw-,g::r--,m::---,o::r--")
        #expect(PeerAccess.allows(.read, entry, peer: Self.alice))
        #expect(!PeerAccess.allows(.write, entry, peer: Self.alice))
    }

    // MARK: The walk

    /// `root/Documents/Item_1` (0644, root's), a link to it and a link to `Documents`, all 0755.
    static func container() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        chmod(directory.path, 0o755)
        let root = directory.path + "/root"
        try FS.mkdir(root, mode: 0o755)
        try FS.mkdir(root + "/Documents", mode: 0o755)
        try FS.write(root + "/Documents/Item_1", "milk")
        chmod(root + "/Documents/Item_1", 0o644)
        try FS.check(symlink("Item_1", root + "/Documents/link"), "symlink")
        try FS.check(symlink("Documents", root + "/Docs"), "symlink")
        return (directory, root)
    }

    static func check(_ right: PeerAccess.Right, _ path: String, in root: String, as peer: PeerCredentials) throws -> Result<Void, PeerAccessDenial> {
        let fd = open(root, UBQ_O_PATH | O_DIRECTORY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        return PeerAccess.check(right, try RelativePath(path), beneath: fd, peer: peer)
    }

    static func denial(_ result: Result<Void, PeerAccessDenial>) -> PeerAccessDenial? {
        if case .failure(let denial) = result { return denial }
        return nil
    }

    @Test func aDenialSaysWhoMayNotDoWhatToWhich() throws {
        try #require(geteuid() == 0, "needs root (chown, setfacl)")
        let (directory, root) = try Self.container()
        defer { withExtendedLifetime(directory) {} }
        #expect(Self.denial(try Self.check(.read, "Documents/Item_1", in: root, as: Self.alice)) == nil)
        let write = try #require(Self.denial(try Self.check(.write, "Documents/Item_1", in: root, as: Self.alice)))
        #expect(write.message == "uid 54321 may not write 'Documents/Item_1' (mode 0644, owner 0, group 0)")
        #expect(write.versionError.code == .forbidden)

        try FS.check(chown(root + "/Documents", 0, 54400), "chown")
        try FS.check(chmod(root + "/Documents", 0o750), "chmod")
        let search = try #require(Self.denial(try Self.check(.read, "Documents/Item_1", in: root, as: Self.alice)))
        #expect(search.message == "uid 54321 may not search 'Documents' (mode 0750, owner 0, group 54400)")
        #expect(Self.denial(try Self.check(.read, "Documents/Item_1", in: root, as: Self.aliceInTeam)) == nil)

        let setfacl = try BuiltExecutable(path: "/usr/bin/setfacl").run(["-m", "u:54322:r-x", root + "/Documents/Item_1"])
        #expect(setfacl.status == 0, "\(setfacl.stderr)")
        let acl = try #require(Self.denial(try Self.check(.write, "Documents/Item_1", in: root, as: Self.aliceInTeam)))
        #expect(acl.message == "uid 54321 may not write 'Documents/Item_1' (mode 0654, owner 0, group 0, with an ACL)")
    }

    @Test func missingItemsAndLinks() throws {
        try #require(geteuid() == 0, "needs root (chown)")
        let (directory, root) = try Self.container()
        defer { withExtendedLifetime(directory) {} }
        let missing = try #require(Self.denial(try Self.check(.read, "Documents/Item_2", in: root, as: Self.alice)))
        #expect(missing.isNotFound)
        #expect(missing.versionError.code == .notFound)
        let deeper = try #require(Self.denial(try Self.check(.write, "Nothing/Item_2", in: root, as: Self.root)))
        #expect(deeper.reason == .notFound && deeper.component == Array("Nothing".utf8))

        // Creating needs write on the directory that would hold it.
        let create = try #require(Self.denial(try Self.check(.write, "Documents/Item_2", in: root, as: Self.alice)))
        #expect(create.message == "uid 54321 may not create 'Documents/Item_2': no write permission on its directory (mode 0755, owner 0, group 0)")
        try FS.check(chown(root + "/Documents", 54321, 54321), "chown")
        #expect(Self.denial(try Self.check(.write, "Documents/Item_2", in: root, as: Self.alice)) == nil)

        let link = try #require(Self.denial(try Self.check(.read, "Documents/link", in: root, as: Self.root)))
        #expect(link.reason == .symbolicLink && link.versionError.code == .forbidden)
        let through = try #require(Self.denial(try Self.check(.read, "Docs/Item_1", in: root, as: Self.root)))
        #expect(through.reason == .notADirectory && through.component == Array("Docs".utf8))
        #expect(through.versionError.code == .notFound)
    }

    /// A peer that may not search the root learns nothing below it, not even what exists, and
    /// nothing of the root's mode or owner (it may not be able to list the root's parent).
    @Test func aClosedRootHidesEverything() throws {
        try #require(geteuid() == 0, "needs root (chown)")
        let (directory, root) = try Self.container()
        defer { withExtendedLifetime(directory) {} }
        try FS.check(chmod(root, 0o700), "chmod")
        for path in ["Documents/Item_1", "Documents/Item_2", "Nothing/Item_1"] {
            for right in [PeerAccess.Right.read, .write] {
                let denial = try #require(Self.denial(try Self.check(right, path, in: root, as: Self.bob)))
                #expect(denial.message == "uid 54322 may not search the container's root")
            }
        }
        #expect(Self.denial(try Self.check(.write, "Documents/Item_1", in: root, as: Self.root)) == nil)
    }

    @Test func writeIsRefusedOnAReadOnlyMountEvenToRoot() throws {
        try #require(geteuid() == 0, "needs root (mount)")
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let mountPoint = directory.path + "/ro"
        try FS.mkdir(mountPoint)
        let mount = BuiltExecutable(path: "/usr/bin/mount")
        let mounted = try mount.run(["-t", "tmpfs", "-o", "size=64k,mode=0777", "tmpfs", mountPoint])
        try #require(mounted.status == 0, "\(mounted.stderr)")
        defer { _ = try? BuiltExecutable(path: "/usr/bin/umount").run(["-l", mountPoint]) }
        try FS.write(mountPoint + "/f", "x")
        chmod(mountPoint + "/f", 0o666)
        let remounted = try mount.run(["-o", "remount,ro", mountPoint])
        try #require(remounted.status == 0, "\(remounted.stderr)")

        for path in ["f", "new"] {
            let denial = try #require(Self.denial(try Self.check(.write, path, in: mountPoint, as: Self.root)))
            #expect(denial.reason == .readOnlyFileSystem, "\(denial)")
        }
        #expect(Self.denial(try Self.check(.read, "f", in: mountPoint, as: Self.root)) == nil)
        let kernel = try BuiltExecutable(path: "/bin/sh").run(["-c", "test -w \(mountPoint)/f || echo refused"])
        #expect(kernel.stdout == "refused\n")
    }

    // MARK: Against the kernel

    /// One entry of the random tree, below the container root.
    struct Node {
        var path: String
        var isDirectory: Bool
    }

    /// Random trees, eight rounds from one fixed seed: modes (x bits likelier on directories, so
    /// that walks go deep), owners among 54321, 54322 and 0, groups among those and 54400, and
    /// ACLs with named users and groups and masks (empty ones too); the root varied as well. Every
    /// read and write of every entry, and creating a file in every directory, by each of four
    /// peers, compared with what the kernel answers the same peer.
    @Test func agreesWithTheKernel() throws {
        try #require(geteuid() == 0, "needs root (chown, setfacl, setpriv)")
        let seed: UInt64 = 0x5EED_0ACC
        print("PeerAccessTests.agreesWithTheKernel: seed \(seed)")
        var random = SplitMix64(seed: seed)
        var compared = 0
        var mismatches: [String] = []
        var allowedByKernel = 0
        for round in 0..<8 {
            let directory = try TemporaryDirectory()
            defer { withExtendedLifetime(directory) {} }
            chmod(directory.path, 0o755)
            let root = directory.path + "/root"
            let nodes = try Self.randomTree(root, using: &random)
            let rootFD = open(root, UBQ_O_PATH | O_DIRECTORY | O_CLOEXEC)
            try #require(rootFD >= 0)
            defer { close(rootFD) }

            // Every question as (right, path below the root), the same list for every peer.
            var questions: [(PeerAccess.Right, String)] = []
            for node in nodes {
                questions += [(.read, node.path), (.write, node.path)]
            }
            let directories = [""] + nodes.filter(\.isDirectory).map(\.path)
            for (peerIndex, peer) in Self.peers.enumerated() {
                // Ours first: the kernel's turn creates the new files.
                var lines = questions
                lines += directories.map { (.write, ($0.isEmpty ? "" : $0 + "/") + "new.\(peerIndex)") }
                let ours = try lines.map { right, path in
                    try PeerAccess.check(right, RelativePath(path), beneath: rootFD, peer: peer)
                }
                var script = questions.map { right, path in
                    "test -\(right == .read ? "r" : "w") '\(root)/\(path)' && echo 1 || echo 0"
                }
                script += directories.map { path in
                    // Not `:`: a special built-in whose redirection fails ends the shell.
                    "{ true > '\(root)/\(path.isEmpty ? "" : path + "/")new.\(peerIndex)'; } 2>/dev/null && echo 1 || echo 0"
                }
                let kernel = try Self.run(script.joined(separator: "\n"), as: peer)
                try #require(kernel.count == lines.count, "the shell answered \(kernel.count) of \(lines.count) questions")
                for (index, (right, path)) in lines.enumerated() {
                    compared += 1
                    if kernel[index] { allowedByKernel += 1 }
                    let allowed = (try? ours[index].get()) != nil
                    guard allowed != kernel[index] else { continue }
                    let why = Self.denial(ours[index]).map { ": \($0)" } ?? ""
                    mismatches.append("round \(round), uid \(peer.uid) groups \(peer.groups.sorted()) \(right) '\(path)': "
                        + "kernel \(kernel[index] ? "allows" : "refuses"), PeerAccess \(allowed ? "allows" : "refuses")\(why)\n"
                        + Self.describe(path, below: root))
                }
            }
        }
        print("PeerAccessTests.agreesWithTheKernel: seed \(seed), \(compared) cases compared (\(allowedByKernel) allowed by the kernel), \(mismatches.count) mismatches")
        #expect(compared > 4000)
        #expect(allowedByKernel > compared / 5 && allowedByKernel < compared * 4 / 5, "one answer should not dominate")
        #expect(mismatches.count == 0, "seed \(seed): \(mismatches.count) mismatches, the first:\n\(mismatches.prefix(5).joined(separator: "\n"))")
    }

    /// Builds a random tree at `root` and returns its entries (not the root), parents first.
    static func randomTree(_ root: String, using random: inout SplitMix64) throws -> [Node] {
        try FS.mkdir(root, mode: 0o700)
        var nodes: [Node] = []
        var pending: [(path: String, depth: Int)] = [("", 0)]
        while let next = pending.popLast() {
            let (parent, depth) = next
            for index in 0..<(depth == 0 ? 8 : random.int(3...6)) {
                let path = (parent.isEmpty ? "" : parent + "/") + "e\(index)"
                let isDirectory = depth < 2 && random.chance(0.5)
                if isDirectory {
                    try FS.mkdir(root + "/" + path, mode: 0o700)
                    pending.append((path, depth + 1))
                } else {
                    try FS.write(root + "/" + path, "x")
                }
                nodes.append(Node(path: path, isDirectory: isDirectory))
            }
        }
        // Attributes last, so that creating entries needed no permissions; ACLs in one shell.
        var setfacl: [String] = []
        for node in [Node(path: "", isDirectory: true)] + nodes {
            let full = root + (node.path.isEmpty ? "" : "/" + node.path)
            let owner = random.pick([54321, 54322, 0] as [UInt32])
            let group = random.pick([54321, 54322, 54400, 0] as [UInt32])
            let mode = (0..<9).reduce(UInt32(0)) { mode, bit in
                let xBit = bit % 3 == 0
                return mode | (random.chance(node.isDirectory && xBit ? 0.8 : 0.5) ? 1 << bit : 0)
            }
            try FS.check(chown(full, owner, group), "chown \(full)")
            try FS.check(chmod(full, mode_t(mode)), "chmod \(full)")
            if random.chance(0.45) {
                setfacl.append("setfacl --set='\(randomACL(mode: mode, directory: node.isDirectory, using: &random))' '\(full)'")
            }
        }
        let result = try BuiltExecutable(path: "/bin/sh").run(["-ec", setfacl.joined(separator: "\n")])
        try #require(result.status == 0, "\(result.stderr)")
        return nodes
    }

    /// An ACL keeping the owner and other bits of `mode`, with a random owning group entry, named
    /// users and groups, and a mask (always with named entries, sometimes `---`).
    static func randomACL(mode: UInt32, directory: Bool, using random: inout SplitMix64) -> String {
        func rwx(_ bits: UInt32) -> String {
            (bits & 4 != 0 ? "r" : "-") + (bits & 2 != 0 ? "w" : "-") + (bits & 1 != 0 ? "x" : "-")
        }
        func randomBits() -> UInt32 {
            UInt32(random.int(0...3) << 1) | (random.chance(directory ? 0.75 : 0.5) ? 1 : 0)
        }
        var parts = ["u::" + rwx(mode >> 6 & 7), "g::" + rwx(randomBits()), "o::" + rwx(mode & 7)]
        var named = false
        for user in [54321, 54322] where random.chance(0.4) {
            parts.append("u:\(user):" + rwx(randomBits()))
            named = true
        }
        for group in [54321, 54322, 54400] where random.chance(0.35) {
            parts.append("g:\(group):" + rwx(randomBits()))
            named = true
        }
        if named || random.chance(0.3) {
            parts.append("m::" + rwx(random.chance(0.15) ? 0 : randomBits()))
        }
        return parts.joined(separator: ",")
    }

    /// Runs `script` with `/bin/sh` as `peer` (its uid, gid and groups, no capabilities unless
    /// root) and reads one answer a line: `1` yes, `0` no.
    static func run(_ script: String, as peer: PeerCredentials) throws -> [Bool] {
        let groups = peer.groups.sorted().map(String.init).joined(separator: ",")
        let result = try BuiltExecutable(path: "/usr/bin/setpriv").run(
            ["--reuid=\(peer.uid)", "--regid=\(peer.gid)", "--groups=\(groups)", "/bin/sh", "-s"],
            stdin: Data(script.utf8), deadline: 120)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map { $0 == "1" }
    }

    /// `getfacl -n` of the root and every component of `path` that exists, for a mismatch.
    static func describe(_ path: String, below root: String) -> String {
        var paths = [root]
        for component in path.split(separator: "/") { paths.append(paths.last! + "/" + component) }
        let result = try? BuiltExecutable(path: "/usr/bin/getfacl").run(["-n", "-p"] + paths.filter { access($0, F_OK) == 0 })
        return result?.stdout ?? ""
    }
}
