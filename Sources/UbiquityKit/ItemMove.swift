import Glibc
import Synchronization
import UbiquityProtocol
import UbiquitySystem

/// Moving an item — a file, or a package or folder with everything inside — from one directory
/// to another with the caller's own rights, never leaving it in both places or in neither:
/// what `Document.moveIn` and `moveOut` do on disk.
///
/// On one file system it is a single `renameat2(RENAME_NOREPLACE)`. Across file systems the item
/// is copied under a hidden temporary name beside the destination (`.ubiquity-save-…`: never an
/// item, never sent by a sync engine told so), `fsync`ed, renamed to the destination in one step —
/// the commit — and only then removed at the source; a ``MoveJournal`` record spans the steps so
/// that a crash anywhere is finished or undone by the next move.
enum ItemMove {
    /// Moves `source` to `destination` (absolute paths; nothing may be at `destination`). Finishes
    /// what an interrupted move left first. `copying` forces the cross-file-system way (tests).
    ///
    /// - Throws: ``UbiquityKitError/documentFile(path:reason:)`` naming the step that failed.
    @available(*, noasync, message: "a move waits for the disk: run it on an NIOThreadPool or a thread of its own")
    static func move(_ source: String, to destination: String, journal: MoveJournal, copying: Bool = false) throws -> ItemMoveMethod {
        for path in [source, destination] where !isPlain(path) {
            throw UbiquityKitError.documentFile(path: path, reason: "not a plain absolute path (it must start with / and have no empty, . or .. component): nothing was moved")
        }
        _ = journal.finishPending()
        let name = Array(PathBytes.lastComponent(of: source).utf8), targetName = Array(PathBytes.lastComponent(of: destination).utf8)
        let origin: Directory, target: Directory, found: (source: Bool, destination: Bool)
        do throws(SystemCallError) {
            origin = try Directory.open(parent(of: source), followingLink: true)
            target = try Directory.open(parent(of: destination), followingLink: true)
            found = (try origin.status(of: name) != nil, try target.status(of: targetName) != nil)
        } catch {
            throw UbiquityKitError.documentFile(path: error.path ?? source, reason: "cannot open its directory: \(error)")
        }
        guard found.source else { throw UbiquityKitError.documentFile(path: source, reason: "there is no such item") }
        guard !found.destination else {
            throw UbiquityKitError.documentFile(path: destination, reason: "something is there already: nothing was moved")
        }
        if !copying {
            do {
                try origin.move(name, to: targetName, in: target)
                try origin.sync()
                try target.sync()
                return .renamed
            } catch where error.errno == EXDEV {
                // Another file system: copied below.
            } catch {
                throw failure(error, moving: source, to: destination)
            }
        }
        // The source's directory must let us remove the item, or the copy would be left in both places.
        guard faccessat(origin.fd, ".", W_OK | X_OK, AT_EACCESS) == 0 else {
            throw UbiquityKitError.documentFile(path: source, reason: "cannot remove it from its directory (\(String(cString: strerror(errno)))): nothing was moved")
        }
        try copy(name, of: source, from: origin, to: targetName, of: destination, in: target, journal: journal)
        return .copied
    }

    @available(*, noasync, message: "a move waits for the disk: run it on an NIOThreadPool or a thread of its own")
    private static func copy(_ name: [UInt8], of source: String, from origin: Directory, to targetName: [UInt8], of destination: String,
                             in target: Directory, journal: MoveJournal) throws {
        // Below -2^32: never the attempt of a save (counting up from 1) or of a create (down from -1).
        let attempt = -(1 << 32) - moveAttempts.add(1, ordering: .relaxed).newValue
        let temporary = CoordinatedSave.temporaryName(pid: getpid(), attempt: attempt)
        var record = MoveJournal.Record(source: source, destination: destination, temporary: temporary, copy: nil)
        let entry: MoveJournal.Entry
        do throws(SystemCallError) {
            entry = try journal.begin(record)
        } catch {
            throw UbiquityKitError.documentFile(path: journal.directory, reason: "cannot record the move (\(error)): nothing was moved")
        }
        do throws(SystemCallError) {
            try origin.copyTree(name, to: Array(temporary.utf8), in: target)
            guard let copied = try target.status(of: Array(temporary.utf8)) else {
                throw SystemCallError("fstatat", errno: ENOENT, path: target.path(of: Array(temporary.utf8)))
            }
            record.copy = MoveJournal.FileIdentity(copied)
            try journal.update(entry, record)
            try target.move(Array(temporary.utf8), to: targetName, in: target)
            try target.sync()
        } catch {
            try? target.removeTree(Array(temporary.utf8))
            try? target.sync()
            try? journal.end(entry)
            throw failure(error, moving: source, to: destination)
        }
        do throws(SystemCallError) {
            try origin.removeTree(name)
            try origin.sync()
            try journal.end(entry)
        } catch {
            throw UbiquityKitError.documentFile(path: source, reason: "moved to \(destination), but removing it here failed (\(error)); the next move removes it")
        }
    }

    /// Absolute, with no empty, `.` or `..` component (a move names exactly the place it means).
    static func isPlain(_ path: String) -> Bool {
        let parts = PathBytes.split(path.utf8)
        return parts.count >= 2 && parts[0].isEmpty && parts.dropFirst().allSatisfy { !$0.isEmpty && $0.elementsEqual(".".utf8) == false && $0.elementsEqual("..".utf8) == false }
    }

    /// The directory holding `path` (`/` for a name right below the root).
    static func parent(of path: String) -> String {
        let directory = PathBytes.directory(of: path)
        return directory.isEmpty ? "/" : directory
    }

    private static func failure(_ error: SystemCallError, moving source: String, to destination: String) -> UbiquityKitError {
        switch error.errno {
        case EEXIST, ENOTEMPTY: .documentFile(path: destination, reason: "something is there already: nothing was moved")
        default: .documentFile(path: source, reason: "cannot move it to \(destination): \(error); nothing was moved")
        }
    }
}

/// Moves across file systems in this process so far: each one's temporary name is its own.
private let moveAttempts = Atomic<Int>(0)
