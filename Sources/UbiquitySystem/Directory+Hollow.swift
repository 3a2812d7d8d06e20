import CUbiquitySystem
import Glibc

extension Directory {
    /// Frees every data block of the regular file `name` (never a link) while keeping its size and
    /// its access and modification times, then `fsync`s it and this directory: what an evicted
    /// item's placeholder is. A hole is punched to the end of the last block (a block only partly
    /// punched is zeroed, not freed), so the size is never seen to change; a file system without
    /// holes (`EOPNOTSUPP`) has the file truncated and grown back instead. Returns the size.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func hollow(_ name: [UInt8]) throws(SystemCallError) -> Int64 {
        System.noteWait("hollow", path(of: name))
        let file = try System.call("openat", path: path(of: name)) {
            Self.withCString(name) { openat(fd, $0, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        }
        defer { close(file) }
        var status = stat()
        try System.call("fstat", path: path(of: name)) { fstat(file, &status) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw SystemCallError("hollow", errno: EINVAL, path: path(of: name))
        }
        let size = Int64(status.st_size)
        let block = Int64(max(status.st_blksize, 512))
        let (rounded, overflow) = size.addingReportingOverflow(block - 1)
        if size > 0, ubq_punch_hole(file, overflow ? Int64.max : rounded / block * block) != 0 {
            guard errno == EOPNOTSUPP else { throw SystemCallError("fallocate", errno: errno, path: path(of: name)) }
            try System.call("ftruncate", path: path(of: name)) { ftruncate(file, 0) }
            try System.call("ftruncate", path: path(of: name)) { ftruncate(file, off_t(size)) }
        }
        var times = [status.st_atim, status.st_mtim]
        try System.call("futimens", path: path(of: name)) { futimens(file, &times) }
        try System.call("fsync", path: path(of: name)) { fsync(file) }
        try sync()
        return size
    }
}
