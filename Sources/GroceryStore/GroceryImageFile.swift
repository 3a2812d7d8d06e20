public import FoundationEssentials
import UbiquityKit
import Glibc

/// Reading an image file to put in the package, bounded by ``GroceryLimits/maxImageBytes``.
public enum GroceryImageFile {
    /// The file's bytes. The size is checked with fstat before reading, and the read stops one
    /// byte past the limit, so neither a huge file nor one that grows meanwhile is read whole.
    /// - Throws: ``GroceryError/imageTooLarge(bytes:limit:)``, ``GroceryError/io(path:operation:message:)``
    ///   (missing file; a directory, FIFO or device: only regular files are read).
    public static func read(_ path: String) throws -> Data {
        let limit = GroceryLimits.maxImageBytes
        // The user names this file, so a link to their picture is fine; a FIFO or /dev/zero is not.
        guard let data = try PackageFileSystem.readRegularFile(path, atMost: limit, followLinks: true,
                                                               tooLarge: { .imageTooLarge(bytes: $0, limit: limit) }) else {
            throw PackageFileSystem.error("open", path, ENOENT)
        }
        return data
    }
}
