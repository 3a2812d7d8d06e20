import Foundation
import Glibc
import UbiquityPredicate
import UbiquityProtocol

/// `version.read`: a window of one version's bytes, as base64.
enum VersionReader {
    /// The most one `version.read` returns; a client reads a bigger version in windows.
    static let maxLength = 4 << 20
    /// What `length` is when the client gives none.
    static let defaultLength = 1 << 20

    static func read(_ location: ItemLocation, version id: String, offset: Int, length: Int?) throws -> JSONValue {
        guard offset >= 0 else { throw ProtocolError.malformed("field 'offset' must not be negative", field: "offset") }
        let length = length ?? defaultLength
        guard (0...maxLength).contains(length) else {
            throw ProtocolError.malformed("field 'length' must be between 0 and \(maxLength)", field: "length", limit: maxLength)
        }
        let versions = try VersionCatalog.versions(of: location)
        guard let version = ([versions.current] + versions.others).first(where: { $0.id == id }) else {
            throw VersionError.unknown(id, in: versions)
        }
        guard !version.isDirectory else {
            throw VersionError(.notAFile, "version '\(id)' is a directory (a package): read the files under its path",
                               details: ["version": .string(id), "path": .string(version.path)])
        }
        let place = try VersionPlace.open(id == ItemVersion.currentID ? location.name : id, replaces: version.replaces, in: location)
        // O_NONBLOCK: a FIFO put in place of a version must not hang the daemon.
        let fd = openat(place.directory, place.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw VersionError(.fileSystem, "cannot open version '\(id)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw VersionError(.notAFile, "version '\(id)' is not a regular file", details: ["version": .string(id)])
        }
        let size = Int64(info.st_size)
        var bytes = [UInt8](repeating: 0, count: Int(max(0, min(Int64(length), size - Int64(min(Int64(offset), size))))))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(offset + filled)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            filled += n
        }
        bytes.removeLast(bytes.count - filled)
        return .object(["version": .string(id), "offset": .integer(Int64(offset)), "size": .integer(size),
                        "data": .string(Data(bytes).base64EncodedString()),
                        "eof": .bool(Int64(offset) + Int64(filled) >= size)])
    }
}
