import NIOPosix
import UbiquitySystem

extension Document {
    /// Moves the local item at `source` — a file, or a package or folder with everything inside,
    /// outside every container — into a container at `path` (NSFileManager's
    /// `setUbiquitous(true, itemAt:destinationURL:)`): afterwards it is an item there, and a sync
    /// engine sends it to the other devices. A move, not a copy: the source is gone.
    ///
    /// With the caller's own rights; nothing may be at `path`. On one file system it is one
    /// rename; across file systems the item is copied beside `path` under a hidden name, made
    /// durable, renamed into place, then removed at the source — a crash at any step is finished or
    /// undone by the next move (never in both places, never in neither). Returns how it moved.
    ///
    /// - Throws: ``UbiquityKitError/documentFile(path:reason:)`` when `path` is not inside a
    ///   container this daemon serves, `source` is inside one, either is missing or taken, or the
    ///   kernel refuses a step (what it said).
    @discardableResult
    public static func moveIn(from source: String, to path: String, connection: UbiquityConnection) async throws -> ItemMoveMethod {
        let roots = try await connection.containers().map(\.path)
        guard roots.contains(where: { Self.isBelow(path, $0) }) else {
            throw UbiquityKitError.documentFile(path: path, reason: "not inside a container (ubiq containers lists them): nothing was moved")
        }
        if let root = roots.first(where: { source == $0 || Self.isBelow(source, $0) }) {
            throw UbiquityKitError.documentFile(path: source, reason: "already in the container \(root): move it with mv, or out with moveOut")
        }
        return try await NIOThreadPool.singleton.runIfActive { try ItemMove.move(source, to: path, journal: .user()) }
    }

    /// Moves this document's item out of its container to `destination`, outside every container
    /// (NSFileManager's `setUbiquitous(false, itemAt:destinationURL:)`): it stays on this machine
    /// at `destination` and a sync engine removes it on the other devices. The item's coordinated
    /// lock is held meanwhile (a save in progress elsewhere finishes first), as for ``delete(lockTimeout:)``;
    /// the document is closed afterwards. Across file systems it is copied as ``moveIn(from:to:connection:)``
    /// says. Returns how it moved.
    ///
    /// - Throws: ``UbiquityKitError/documentFile(path:reason:)``, ``UbiquityKitError/documentBusy(path:seconds:)``.
    @discardableResult
    public func moveOut(to destination: String, lockTimeout: Duration = .seconds(30)) async throws -> ItemMoveMethod {
        let roots = try await connection.containers().map(\.path)
        if let root = roots.first(where: { destination == $0 || Self.isBelow(destination, $0) }) {
            throw UbiquityKitError.documentFile(path: destination, reason: "inside the container \(root): a move out goes outside every container")
        }
        let source = path
        return try await endingItem(lockTimeout: lockTimeout) { try ItemMove.move(source, to: destination, journal: .user()) }
    }

    /// Whether `path` is below `root`, byte by byte.
    private static func isBelow(_ path: String, _ root: String) -> Bool {
        PathBytes.relative(Array(path.utf8), below: Array(root.utf8)) != nil
    }
}
