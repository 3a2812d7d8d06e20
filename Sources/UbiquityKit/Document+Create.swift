public import Foundation
import Glibc
import Synchronization
import UbiquityPaths
import UbiquityProtocol

extension Document {
    /// Creates the document at `path` (an absolute path inside a container; nothing may be there
    /// yet) holding `data`, durably: the bytes are fsynced under a hidden temporary name, linked
    /// to `path` — which fails when anything is there, so a create never replaces someone else's
    /// item — and the directory is fsynced, so the new item survives a power loss once this returns.
    ///
    /// No lock is taken: the daemon locks only an item that exists, and nobody can have read (and
    /// so be about to overwrite) one that does not. Later saves of the item go through
    /// ``open(_:connection:)`` and ``save(_:policy:lockTimeout:)``.
    ///
    /// - Throws: ``UbiquityKitError/documentFile(path:reason:)`` when `path` exists or a step fails.
    public static func create(_ path: String, contents data: Data) throws {
        let directory = PathBytes.directory(of: path), name = PathBytes.lastComponent(of: path)
        func failure(_ step: String, _ code: Int32 = errno) -> UbiquityKitError {
            .documentFile(path: path, reason: "\(step): \(String(cString: strerror(code)))")
        }
        let folder = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw failure("cannot open its directory") }
        defer { Glibc.close(folder) }
        // Below zero: never the name of a save's attempt (those count up from 1 per document).
        let attempt = -createAttempts.add(1, ordering: .relaxed).newValue
        let temporary = CoordinatedSave.temporaryName(pid: getpid(), attempt: attempt)
        let fd = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("cannot create a temporary file") }
        // Closing flushes nothing: the handle's synchronize is the fsync before the link.
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            unlinkat(folder, temporary, 0)
            throw UbiquityKitError.documentFile(path: path, reason: "cannot write it: \(error.localizedDescription)")
        }
        let linked = linkat(folder, temporary, folder, name, 0), code = errno
        unlinkat(folder, temporary, 0)
        guard linked == 0 else { throw failure(code == EEXIST ? "it already exists" : "cannot link it into place", code) }
        guard fsync(folder) == 0 else { throw failure("cannot flush its directory") }
    }
}

/// Creates in this process so far: each create's temporary name is its own.
private let createAttempts = Atomic<Int>(0)
