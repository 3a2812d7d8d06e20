import Glibc
import UbiquityIndex
import UbiquitySystem

/// The disk side of files on demand (docs/architecture.md, "Files on demand"): an evicted item's
/// file becomes its placeholder `.NAME.ubiquity-evicted` in the same directory, and the
/// placeholder is removed once the item's own file is back. Blocking system calls, through the
/// door (``Directory``): run on a thread of NIO's pool.
enum PlaceholderFile {
    /// The placeholder's name (bytes) for an item named `name`; nil when too long for one.
    static func name(for name: [UInt8]) -> [UInt8]? {
        guard name.count <= EvictedPlaceholderName.maxItemNameBytes else { return nil }
        return [UInt8(ascii: ".")] + name + Array(EvictedPlaceholderName.suffix.utf8)
    }

    enum Outcome: Equatable {
        case evicted(size: Int64)
        /// Nothing named `name` is there (evicted already, or gone).
        case missing
        /// The file was not the one judged (another size or modification time) once renamed: it
        /// changed after the engine was asked, so its new content is known only here. It is
        /// back under its name, whole (or, when a save put a new file there meanwhile, that file
        /// stays and the renamed one is left as it was, whole).
        case changed
        case failed(String)
    }

    /// Turns the file `name` in `directory` into its placeholder: renamed (so it keeps its inode,
    /// birth time and tags: the index keeps the item as it was), then hollowed (no data blocks,
    /// the same size and times: ``Directory/hollow(_:)``) and made durable with its directory.
    ///
    /// `judged` is the file's size and modification time (nanoseconds since 1970) when the
    /// engine was asked whether another device holds it. Between that question and the rename,
    /// an eviction waits on the engine (its ignore lines, its scan): a write then would be known
    /// only here, so once renamed the file is looked at again, and emptied only if it is still
    /// that one (``Outcome/changed`` otherwise). A write through a descriptor opened before,
    /// between this look and the hollowing, is not seen: that window is a few system calls.
    ///
    /// A crash after the rename leaves the placeholder with its content (nothing lost; evicting
    /// the item again hollows it).
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool")
    static func evict(_ name: [UInt8], in directory: Directory, judged: (size: Int64, modified: Int64)) -> Outcome {
        guard let placeholder = Self.name(for: name) else {
            return .failed("the name is longer than \(EvictedPlaceholderName.maxItemNameBytes) bytes: its placeholder's would not fit")
        }
        do {
            try directory.rename(name, to: placeholder)
        } catch {
            return error.errno == ENOENT ? .missing : .failed("renaming it to its placeholder failed: \(error)")
        }
        let now = try? directory.status(of: placeholder)
        let unchanged = now.map { Int64($0.st_size) == judged.size
            && Int64($0.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64($0.st_mtim.tv_nsec) == judged.modified } ?? false
        guard unchanged else {
            // Back under its name, never over a file a save put there meanwhile.
            _ = try? directory.move(placeholder, to: name, in: directory)
            return .changed
        }
        return hollow(placeholder, in: directory)
    }

    /// Frees the placeholder's data blocks, keeping its size and times.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool")
    static func hollow(_ placeholder: [UInt8], in directory: Directory) -> Outcome {
        do {
            return .evicted(size: try directory.hollow(placeholder))
        } catch {
            return .failed("emptying its placeholder failed: \(error)")
        }
    }

    /// Whether an entry `name` is in `directory` (not following a link).
    static func exists(_ name: [UInt8], in directory: Directory) -> Bool {
        (try? directory.status(of: name)) != nil
    }

    /// Removes the placeholder of `name` when `name` itself is there again (the item's file
    /// wins). Returns whether one was removed.
    @discardableResult
    static func removeIfReplaced(_ name: [UInt8], in directory: Directory) -> Bool {
        guard let placeholder = Self.name(for: name), exists(name, in: directory), exists(placeholder, in: directory) else { return false }
        return (try? directory.remove(placeholder)) != nil
    }
}
