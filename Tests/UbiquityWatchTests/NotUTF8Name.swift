import Glibc
import UbiquityTesting

/// A file whose name is not UTF-8 (`bad-` and the bytes 0xFF 0xFE), which a crawl skips and
/// reports: made with `open`, as no `String` path can name it.
enum NotUTF8Name {
    static func create(in directory: String) throws {
        let path: [UInt8] = Array((directory + "/bad-").utf8) + [0xFF, 0xFE, 0]
        let fd = path.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644) }
        }
        try FS.check(fd >= 0 ? 0 : -1, "create a name that is not UTF-8")
        close(fd)
    }
}
