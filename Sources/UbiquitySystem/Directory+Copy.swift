import Glibc

extension Directory {
    /// Creates `name` (it must not exist, and is never a link) holding the bytes `source` reads
    /// from its current offset to its end, at most `limit`; `fsync`s it and this directory.
    ///
    /// Copies in 64 KiB pieces, so a large file never sits in memory whole. Returns how many bytes
    /// were copied, or nil — and nothing is left behind — when `source` had more than `limit`
    /// (it grew after its size was read). On any failure the new file is removed.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func createNew(_ name: [UInt8], copying source: Int32, limit: Int, mode: UInt32 = 0o600) throws(SystemCallError) -> Int? {
        System.noteWait("createNew", path(of: name))
        let target = try System.call("openat", path: path(of: name)) {
            Self.withCString(name) { openat(fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode) }
        }
        var copied = 0
        do {
            defer { close(target) }
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let n = try System.call("read") { buffer.withUnsafeMutableBytes { Glibc.read(source, $0.baseAddress!, $0.count) } }
                if n == 0 { break }
                copied += n
                if copied > limit { break }
                try buffer.withUnsafeBytes { all in
                    Result { () throws(SystemCallError) in try System.writeAll(UnsafeRawBufferPointer(rebasing: all[..<n]), to: target, path: path(of: name)) }
                }.get()
            }
            if copied <= limit { try System.call("fsync", path: path(of: name)) { fsync(target) } }
        } catch {
            _ = Self.withCString(name) { unlinkat(self.fd, $0, 0) }
            throw error
        }
        guard copied <= limit else {
            _ = Self.withCString(name) { unlinkat(self.fd, $0, 0) }
            return nil
        }
        try sync()
        return copied
    }
}
