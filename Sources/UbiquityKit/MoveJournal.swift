import Glibc
import UbiquityJSON
import UbiquitySystem

/// The moves between file systems that are under way, one small file each, so that a crash in the
/// middle of one never leaves the item in both places, nor in neither (``ItemMove``).
///
/// A record is written (and `fsync`ed) before the copy starts, written again with the copy's
/// identity (device and inode) once the copy is whole, and removed once the source is gone.
/// ``finishPending()`` — run before every move — reads what a crash left and finishes or undoes
/// it from what is on disk: the copy waits under its hidden temporary name until the single
/// `rename` that commits the move, so a temporary still there means "not committed" (it is
/// removed, the source stays); the destination holding the recorded copy means "committed" (the
/// source, if still there, is removed); anything else — the destination missing, or something
/// else there — leaves the source alone.
///
/// The records live in `$XDG_STATE_HOME/ubiquity/moves` (else `~/.local/state/ubiquity/moves`),
/// the user's own: a move runs with the user's rights, and so does its recovery. A record is
/// held under `flock` by the process doing the move (``LockedFile``): another process's recovery
/// leaves a move that is still going on alone, and a crash releases the lock.
struct MoveJournal: Sendable {
    /// One move: where the item was, where it goes, and the hidden name the copy is made under in
    /// the destination's directory.
    struct Record: Sendable, Hashable {
        var source: String
        var destination: String
        var temporary: String
        /// The whole copy's device and inode (a rename keeps them); nil while it is being made.
        var copy: FileIdentity?
    }

    /// A file's identity: `st_dev` and `st_ino`.
    struct FileIdentity: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64

        init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }

        init(_ status: stat) {
            self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        }
    }

    /// Records larger than this are not ours (a record is three paths): left alone.
    static let maxRecordBytes = 3 * Int(PATH_MAX) + 256

    let directory: String

    /// The user's journal, from the environment.
    static func user() -> MoveJournal {
        let environment = { (name: String) -> String? in getenv(name).map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } }
        let state = environment("XDG_STATE_HOME") ?? ((environment("HOME") ?? "/") + "/.local/state")
        return MoveJournal(directory: state + "/ubiquity/moves")
    }

    /// A record being held: its file, locked, and its name.
    struct Entry: Sendable {
        let file: LockedFile
        let name: [UInt8]
    }

    /// Writes `record` durably under a name of its own, held locked until ``end(_:)``.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    func begin(_ record: Record) throws(SystemCallError) -> Entry {
        let folder = try openCreating()
        var generator = SystemRandomNumberGenerator()
        let name = Array("move-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max, using: &generator), radix: 16))".utf8)
        let entry = Entry(file: try LockedFile.create(name, in: folder), name: name)
        try entry.file.write(Self.bytes(record))
        try folder.sync()
        return entry
    }

    /// Writes the record again, durably (with the copy's identity, once it is whole).
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    func update(_ entry: Entry, _ record: Record) throws(SystemCallError) {
        try entry.file.write(Self.bytes(record))
    }

    static func bytes(_ record: Record) -> [UInt8] {
        var fields: [String: JSONValue] = ["source": .string(record.source), "destination": .string(record.destination),
                                           "temporary": .string(record.temporary)]
        if let copy = record.copy {
            fields["device"] = .string(String(copy.device))
            fields["inode"] = .string(String(copy.inode))
        }
        return Array(JSONLine.encode(.object(fields)).utf8)
    }

    /// The move of `entry` is over (done or undone).
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    func end(_ entry: Entry) throws(SystemCallError) {
        try end(entry.name)
    }

    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    private func end(_ name: [UInt8]) throws(SystemCallError) {
        let folder = try Directory.open(directory)
        try folder.remove(name)
        try folder.sync()
    }

    /// Finishes or undoes every move a crash interrupted (see the type's description); returns
    /// what it did, a line per move, for the caller to say. A record another process holds (its
    /// move is under way) or that cannot be read is left.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    func finishPending() -> [String] {
        guard let folder = try? Directory.open(directory) else { return [] }
        var done: [String] = []
        for name in (try? folder.names()) ?? [] where LockedFile.isHeld(name, in: folder) == false {
            guard case .success(let bytes)? = folder.read(name, limit: Self.maxRecordBytes, singleLink: true),
                  let record = Self.record(bytes) else { continue }
            // Held by nobody now (checked above); a move that starts after the check makes a record of its own.
            do {
                done.append(try Self.finish(record))
                try end(name)
            } catch {
                done.append("could not finish the move of \(record.source) to \(record.destination): \(error)")
            }
        }
        return done
    }

    /// Reads a record; nil for anything that is not one.
    static func record(_ bytes: [UInt8]) -> Record? {
        guard case .object(let fields)? = try? JSONLine.parse(bytes),
              case .string(let source)? = fields["source"], case .string(let destination)? = fields["destination"],
              case .string(let temporary)? = fields["temporary"], !temporary.isEmpty, !temporary.contains("/") else { return nil }
        var copy: FileIdentity?
        if case .string(let device)? = fields["device"], case .string(let inode)? = fields["inode"] {
            guard let device = UInt64(device), let inode = UInt64(inode) else { return nil }
            copy = FileIdentity(device: device, inode: inode)
        }
        return Record(source: source, destination: destination, temporary: temporary, copy: copy)
    }

    /// What is on disk decides: see the type's description.
    @available(*, noasync, message: "a removal waits for the disk: run it on an NIOThreadPool or a thread of its own")
    static func finish(_ record: Record) throws(SystemCallError) -> String {
        let target = try Directory.open(ItemMove.parent(of: record.destination), followingLink: true)
        if try target.status(of: Array(record.temporary.utf8)) != nil {
            try target.removeTree(Array(record.temporary.utf8))
            try target.sync()
            return "undid the unfinished move of \(record.source) to \(record.destination): the source stays"
        }
        guard let copy = record.copy, let there = try target.status(of: Array(PathBytes.lastComponent(of: record.destination).utf8)),
              FileIdentity(there) == copy else {
            return "the move of \(record.source) to \(record.destination) had not committed: the source stays"
        }
        let origin = try Directory.open(ItemMove.parent(of: record.source), followingLink: true)
        try origin.removeTree(Array(PathBytes.lastComponent(of: record.source).utf8))
        try origin.sync()
        return "finished the move of \(record.source) to \(record.destination): the source is removed"
    }

    private func openCreating() throws(SystemCallError) -> Directory {
        var path = ""
        for component in directory.utf8.split(separator: UInt8(ascii: "/")) {
            path += "/" + String(decoding: component, as: UTF8.self)
            do {
                try System.call("mkdir", path: path) { mkdir(path, 0o700) }
            } catch where error.errno == EEXIST {}
        }
        return try Directory.open(directory)
    }
}
