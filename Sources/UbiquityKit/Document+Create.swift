public import FoundationEssentials
import Glibc
import NIOPosix
import Synchronization
import UbiquitySystem
import UbiquityProtocol

extension Document {
    /// Creates the document at `path` (an absolute path inside a container; nothing may be there
    /// yet) holding `data`, durably: the bytes are fsynced under a hidden temporary name, linked
    /// to `path` — which fails when anything is there, so a create never replaces someone else's
    /// item — and the directory is fsynced, so the new item survives a power loss once this returns.
    ///
    /// No lock is taken: nobody can have read (and so be about to overwrite) an item that does
    /// not exist. Later saves of the item go through
    /// ``open(_:connection:)`` and ``save(_:policy:lockTimeout:)``.
    ///
    /// It waits for the disk, so it runs on NIO's thread pool, never on the cooperative pool the
    /// caller's tasks share.
    ///
    /// - Throws: ``UbiquityKitError/documentFile(path:reason:)`` when `path` exists or a step fails.
    public static func create(_ path: String, contents data: Data) async throws {
        try await NIOThreadPool.singleton.runIfActive { try createNow(path, contents: data) }
    }

    /// ``create(_:contents:)``'s work, on the thread that may wait.
    private static func createNow(_ path: String, contents data: Data) throws {
        let directory = PathBytes.directory(of: path), name = PathBytes.lastComponent(of: path)
        // Below zero: never the name of a save's attempt (those count up from 1 per document).
        let attempt = -createAttempts.add(1, ordering: .relaxed).newValue
        let temporary = CoordinatedSave.temporaryName(pid: getpid(), attempt: attempt)
        do throws(SystemCallError) {
            // The door's durable create: the temporary file written and fsynced, linked to the
            // name (EEXIST when anything is there), removed, the directory fsynced.
            let folder = try Directory.open(directory, followingLink: true)
            try data.withUnsafeBytes { bytes in
                Result { () throws(SystemCallError) in try folder.createNew(name, with: bytes, temporary: temporary) }
            }.get()
        } catch where error.call == "linkat" && error.errno == EEXIST {
            throw UbiquityKitError.documentFile(path: path, reason: "it already exists")
        } catch {
            throw UbiquityKitError.documentFile(path: path, reason: "cannot write it: \(error)")
        }
    }
}

/// Creates in this process so far: each create's temporary name is its own.
private let createAttempts = Atomic<Int>(0)
