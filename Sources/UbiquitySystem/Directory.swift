import CUbiquitySystem
public import Glibc

/// A directory held open by its descriptor: every name in it is opened, read, listed, written,
/// renamed and removed relative to that descriptor, one component at a time, never following a
/// symbolic link — so a link someone plants in place of a directory or a file is refused instead
/// of written or deleted through. Listing and removal are bounded (``maxEntries``, ``maxDepth``)
/// so a hostile tree cannot make a caller loop, recurse without end or exhaust descriptors.
///
/// The calls that wait for the disk (``replace(_:with:mode:temporary:)``, ``createFile(_:with:mode:)``,
/// ``sync()``, ``removeTree(_:)``) are `noasync`: the compiler refuses them in an `async`
/// function, so they run on an `NIOThreadPool` or a thread of their own, never on Swift's
/// cooperative pool (docs/architecture.md, "One door to the system").
public final class Directory: Sendable {
    /// How deep ``removeTree(_:)`` goes.
    public static let maxDepth = 64
    /// How many names ``names()`` returns at most.
    public static let maxEntries = 100_000

    /// The descriptor: readable (`O_RDONLY | O_DIRECTORY`), so it can be listed and `fsync`ed.
    public let fd: Int32
    /// For messages only.
    public let path: String
    private let owned: Bool

    /// Takes `fd` over: it is closed when the directory is released.
    public init(adopting fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        owned = true
    }

    /// Uses `fd`, which the caller keeps and closes.
    public init(borrowing fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        owned = false
    }

    deinit { if owned { close(fd) } }

    /// Opens the directory at `path` (a path the caller trusts: its own, or a configuration's);
    /// a final symbolic link is refused (`ELOOP`) unless `followingLink`, and anything that is not
    /// a directory is (`ENOTDIR`).
    public static func open(_ path: String, followingLink: Bool = false) throws(SystemCallError) -> Directory {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
        let fd = try System.call("open", path: path) { Glibc.open(path, flags) }
        return Directory(adopting: fd, path: path)
    }

    /// The path of `name` in this directory, for messages.
    public func path(of name: [UInt8]) -> String {
        (path.hasSuffix("/") ? path : path + "/") + String(decoding: name, as: UTF8.self)
    }

    // MARK: - Opening and examining

    /// The child directory `name`, never through a link (`O_NOFOLLOW`: `ELOOP`; a file: `ENOTDIR`).
    public func openDirectory(_ name: [UInt8]) throws(SystemCallError) -> Directory {
        let fd = try System.call("openat", path: path(of: name)) {
            Self.withCString(name) { openat(self.fd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        }
        return Directory(adopting: fd, path: path(of: name))
    }

    /// Makes the child directory `name`; false when something is there already (not checked:
    /// open it with ``openDirectory(_:)``, which refuses a link or a file).
    @discardableResult
    public func makeDirectory(_ name: [UInt8], mode: UInt32 = 0o755) throws(SystemCallError) -> Bool {
        do {
            try System.call("mkdirat", path: path(of: name)) { Self.withCString(name) { mkdirat(fd, $0, mode) } }
            return true
        } catch where error.errno == EEXIST {
            return false
        }
    }

    /// `fstatat` of `name` without following a link; nil when nothing is there.
    public func status(of name: [UInt8]) throws(SystemCallError) -> stat? {
        var info = stat()
        do {
            try System.call("fstatat", path: path(of: name)) { Self.withCString(name) { fstatat(fd, $0, &info, AT_SYMLINK_NOFOLLOW) } }
        } catch where error.errno == ENOENT {
            return nil
        }
        return info
    }

    /// The names in the directory as bytes (not `.` and `..`), at most ``maxEntries``. A
    /// duplicate of the descriptor is read, so this one keeps its position.
    public func names() throws(SystemCallError) -> [[UInt8]] {
        let copy = try System.call("openat", path: path) { openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard let stream = fdopendir(copy) else {
            let failure = SystemCallError("fdopendir", errno: errno, path: path)
            close(copy)
            throw failure
        }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while names.count < Self.maxEntries, let entry = readdir(stream) {
            guard let name = ubq_dirent_name(entry) else { continue }
            let length = strlen(name)
            let bytes = name.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
            if bytes != [0x2E] && bytes != [0x2E, 0x2E] { names.append(bytes) }
        }
        return names
    }

    /// The names that are valid UTF-8, as text (a name that is not cannot be carried by the
    /// protocol, so it is never a version or an item); empty when the directory cannot be read.
    public func textNames() -> [String] {
        ((try? names()) ?? []).compactMap { String(validating: $0, as: UTF8.self) }
    }

    // MARK: - Reading

    /// A regular file's bytes, at most `limit`; nil when it does not exist.
    ///
    /// Never opens a FIFO, a device or a link: `fstatat(AT_SYMLINK_NOFOLLOW)` must say "regular
    /// file" before the `openat(O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)`. What is read is what is
    /// checked: the name may be swapped between the two (a sync engine renames every download into
    /// place), so the descriptor's own `fstat` must say regular file too (else ``ReadRefusal/replaced``)
    /// and passes the same checks again; a regular file renamed over the name meanwhile is read
    /// as the newer file it is. A file larger than `limit` is refused from its size, without
    /// reading it, or when it grew past `limit` meanwhile; with `singleLink`, a file with more than
    /// one hard link is refused too. With `betweenPieces`, the file is read a piece
    /// (``readPieceBytes``) at a time and `betweenPieces` is called before each: a long read
    /// that should step aside for other work looks there.
    public func read(_ name: [UInt8], limit: Int, singleLink: Bool = false,
                     betweenPieces: (() -> Void)? = nil) -> Result<[UInt8], ReadRefusal>? {
        read(name, limit: limit, singleLink: singleLink, betweenStatusAndOpen: nil, betweenPieces: betweenPieces)
    }

    /// ``read(_:limit:singleLink:)``, with `betweenStatusAndOpen` run where the name may be
    /// swapped (what the tests swap it in).
    func read(_ name: [UInt8], limit: Int, singleLink: Bool, betweenStatusAndOpen: (() -> Void)?,
              betweenPieces: (() -> Void)? = nil) -> Result<[UInt8], ReadRefusal>? {
        let named: stat
        do {
            guard let found = try status(of: name) else { return nil }
            named = found
        } catch {
            return .failure(.system(error))
        }
        guard named.st_mode & S_IFMT == S_IFREG else { return .failure(.notRegular(mode: UInt32(named.st_mode))) }
        if let refusal = Self.refusal(of: named, limit: limit, singleLink: singleLink) { return .failure(refusal) }
        betweenStatusAndOpen?()
        let fd: Int32
        do {
            fd = try System.call("openat", path: path(of: name)) {
                Self.withCString(name) { openat(self.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
            }
        } catch where error.errno == ENOENT {
            return nil
        } catch {
            return .failure(.system(error))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .failure(.replaced) }
        if let refusal = Self.refusal(of: info, limit: limit, singleLink: singleLink) { return .failure(refusal) }
        do {
            let bytes = try Self.readAll(fd, limit: limit, sizeHint: Int(clamping: info.st_size), path: path(of: name),
                                         betweenPieces: betweenPieces)
            guard bytes.count <= limit else { return .failure(.tooLarge(size: bytes.count, limit: limit)) }
            return .success(bytes)
        } catch {
            return .failure(.system(error))
        }
    }

    /// Why a regular file's status makes it one not to read: larger than `limit`, or (with
    /// `singleLink`) a second name elsewhere — another container's file, linked in where
    /// `fs.protected_hardlinks` is off, is not this folder's file to read.
    private static func refusal(of status: stat, limit: Int, singleLink: Bool) -> ReadRefusal? {
        if singleLink && status.st_nlink > 1 { return .hardLinks(Int(clamping: status.st_nlink)) }
        if Int(clamping: status.st_size) > limit { return .tooLarge(size: Int(clamping: status.st_size), limit: limit) }
        return nil
    }

    /// Reads `fd` to its end, at most `limit` + 1 bytes (so that a file larger than `limit` is
    /// seen as such); `sizeHint` (from `fstat`) sizes the first buffer. With `betweenPieces`, each
    /// `read` asks for at most ``readPieceBytes`` and `betweenPieces` is called before it.
    public static func readAll(_ fd: Int32, limit: Int, sizeHint: Int = 0, path: String? = nil,
                               betweenPieces: (() -> Void)? = nil) throws(SystemCallError) -> [UInt8] {
        let piece = betweenPieces == nil ? Int.max : readPieceBytes
        let limit = max(0, limit), cap = limit == .max ? limit : limit + 1
        // One more than the size, to see the end in the first read; a size from a file's status
        // is not trusted to be small (nothing here may trap on it).
        let hinted = max(0, sizeHint), first = hinted == .max ? hinted : hinted + 1
        // The first buffer is read into as it is, neither zeroed first (a pass over a saved index
        // of tens of megabytes before the read's own) nor faulted in 4 KiB at a time where it is
        // megabytes (huge pages: ubq_prefer_huge_pages).
        var failure: SystemCallError?
        var bytes = [UInt8](unsafeUninitializedCapacity: min(cap, first)) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            ubq_prefer_huge_pages(base, buffer.count)
            do throws(SystemCallError) {
                while initialized < buffer.count {
                    betweenPieces?()
                    let n = try System.call("read", path: path) { Glibc.read(fd, base + initialized, min(piece, buffer.count - initialized)) }
                    if n == 0 { break }
                    initialized += n
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        var count = bytes.count
        // The first read ended at the file's end, short of the buffer: nothing more to read.
        if count < min(cap, first) { return bytes }
        while count < cap {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: min(cap - count, 64 << 10))) }
            betweenPieces?()
            let n = try System.call("read", path: path) { bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, min(piece, $0.count - count)) } }
            if n == 0 { break }
            count += n
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// The most one `read` of ``readAll(_:limit:sizeHint:path:betweenPieces:)`` asks for when it
    /// reads in pieces: about a millisecond of copying (and of faulting the buffer in).
    public static let readPieceBytes = 4 << 20

    // MARK: - Writing (each waits for the disk)

    /// Replaces `name` durably: after a crash it holds the old bytes or the new, whole.
    ///
    /// The new content goes to a hidden temporary file in this directory — `temporary`, or
    /// `.<name>.<16 random hex digits>.writing` — created with `O_CREAT | O_EXCL | O_NOFOLLOW |
    /// O_NONBLOCK`, so a FIFO, link or hard link planted at any name can neither block the write
    /// nor receive it; written whole, `fsync`ed, renamed over `name` (`renameat`: a link at
    /// `name` is replaced, never followed), and the directory is `fsync`ed. On any failure the
    /// temporary file is removed.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func replace(_ name: [UInt8], with bytes: UnsafeRawBufferPointer, mode: UInt32 = 0o644,
                        temporary: [UInt8]? = nil) throws(SystemCallError) {
        System.noteWait("replace", path(of: name))
        let chosen = try writeTemporary(for: name, bytes, mode: mode, temporary: temporary)
        do {
            try rename(chosen, to: name)
        } catch {
            _ = Self.withCString(chosen) { unlinkat(self.fd, $0, 0) }
            throw error
        }
        try sync()
    }

    /// Creates `name` durably, never replacing anything there: the bytes go to a hidden temporary
    /// file as in ``replace(_:with:mode:temporary:)``, which is then hard-linked to `name`
    /// (`linkat` fails with `EEXIST` when anything is there, a link included) and removed, and
    /// the directory is `fsync`ed.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func createNew(_ name: [UInt8], with bytes: UnsafeRawBufferPointer, mode: UInt32 = 0o644,
                          temporary: [UInt8]? = nil) throws(SystemCallError) {
        System.noteWait("createNew", path(of: name))
        let chosen = try writeTemporary(for: name, bytes, mode: mode, temporary: temporary)
        defer { _ = Self.withCString(chosen) { unlinkat(self.fd, $0, 0) } }
        try System.call("linkat", path: path(of: name)) {
            Self.withCString(chosen) { from in Self.withCString(name) { linkat(fd, from, fd, $0, 0) } }
        }
        try sync()
    }

    /// A fresh temporary file in this directory holding `bytes`, `fsync`ed; its name. Removed again
    /// when a step fails.
    private func writeTemporary(for name: [UInt8], _ bytes: UnsafeRawBufferPointer, mode: UInt32,
                                temporary: [UInt8]?) throws(SystemCallError) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var chosen = temporary ?? Self.temporaryName(of: name, generator: &generator)
        var fd: Int32 = -1
        for attempt in 0..<16 {
            do {
                fd = try createExclusive(chosen, mode: mode)
                break
            } catch where error.errno == EEXIST && temporary == nil && attempt < 15 {
                chosen = Self.temporaryName(of: name, generator: &generator)
            }
        }
        do {
            try System.writeAll(bytes, to: fd, path: path(of: chosen))
            try System.call("fsync", path: path(of: chosen)) { fsync(fd) }
        } catch {
            close(fd)
            _ = Self.withCString(chosen) { unlinkat(self.fd, $0, 0) }
            throw error
        }
        close(fd)
        return chosen
    }

    /// ``replace(_:with:mode:temporary:)`` of an array's bytes.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func replace(_ name: [UInt8], with bytes: [UInt8], mode: UInt32 = 0o644, temporary: [UInt8]? = nil) throws(SystemCallError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(SystemCallError) in try replace(name, with: buffer, mode: mode, temporary: temporary) } }.get()
    }

    /// Creates `name` (it must not exist, and is never a link), writes `bytes` and `fsync`s it.
    /// The directory is not `fsync`ed: call ``sync()`` after the last of several.
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func createFile(_ name: [UInt8], with bytes: UnsafeRawBufferPointer, mode: UInt32 = 0o644) throws(SystemCallError) {
        System.noteWait("createFile", path(of: name))
        let fd = try createExclusive(name, mode: mode)
        defer { close(fd) }
        try System.writeAll(bytes, to: fd, path: path(of: name))
        try System.call("fsync", path: path(of: name)) { fsync(fd) }
    }

    /// Makes creations, renames and removals in the directory durable (`fsync` of its descriptor).
    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func sync() throws(SystemCallError) {
        System.noteWait("fsync", path)
        try System.call("fsync", path: path) { fsync(fd) }
    }

    /// `renameat` of `name` over `target`, both in this directory (a link at either is moved or
    /// replaced, never followed).
    public func rename(_ name: [UInt8], to target: [UInt8]) throws(SystemCallError) {
        try System.call("renameat", path: path(of: name)) {
            Self.withCString(name) { from in Self.withCString(target) { renameat(fd, from, fd, $0) } }
        }
    }

    /// `rename(2)` of `name` to `target` in `other` (moving a staged directory into place). The
    /// errno is returned instead of thrown when it is one of `tolerated`.
    @discardableResult
    public func rename(_ name: [UInt8], to target: [UInt8], in other: Directory, tolerating tolerated: Set<Int32> = []) throws(SystemCallError) -> Int32 {
        do {
            try System.call("renameat", path: other.path(of: target)) {
                Self.withCString(name) { from in Self.withCString(target) { renameat(fd, from, other.fd, $0) } }
            }
            return 0
        } catch where tolerated.contains(error.errno) {
            return error.errno
        }
    }

    /// Swaps `name` and `other` in one step (`renameat2(RENAME_EXCHANGE)`).
    public func exchange(_ name: [UInt8], with other: [UInt8]) throws(SystemCallError) {
        try System.call("renameat2", path: path(of: name)) {
            Self.withCString(name) { a in Self.withCString(other) { ubq_renameat_exchange(fd, a, $0) } }
        }
    }

    /// Removes the file or link `name` (never what a link points to); nothing there is not a failure.
    public func remove(_ name: [UInt8]) throws(SystemCallError) {
        do {
            try System.call("unlinkat", path: path(of: name)) { Self.withCString(name) { unlinkat(fd, $0, 0) } }
        } catch where error.errno == ENOENT {}
    }

    /// Removes `name`: a file or link with `unlinkat`, a directory with everything in it, each
    /// level opened with `O_NOFOLLOW` below the last. Nothing there is not a failure. Past
    /// ``maxDepth`` levels the walk stops: the directory there is not empty (`ENOTEMPTY`).
    @available(*, noasync, message: "a recursive removal waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func removeTree(_ name: [UInt8]) throws(SystemCallError) {
        System.noteWait("removeTree", path(of: name))
        try removeTree(name, depth: 0)
    }

    private func removeTree(_ name: [UInt8], depth: Int) throws(SystemCallError) {
        let first = Self.withCString(name) { unlinkat(fd, $0, 0) }
        if first == 0 || errno == ENOENT { return }
        guard errno == EISDIR || errno == EPERM else { throw SystemCallError("unlinkat", errno: errno, path: path(of: name)) }
        guard depth < Self.maxDepth else { throw SystemCallError("unlinkat", errno: ENOTEMPTY, path: path(of: name)) }
        let inner = try openDirectory(name)
        for entry in try inner.names() { try inner.removeTree(entry, depth: depth + 1) }
        do {
            try System.call("unlinkat", path: path(of: name)) { Self.withCString(name) { unlinkat(fd, $0, AT_REMOVEDIR) } }
        } catch where error.errno == ENOENT {}
    }

    // MARK: - Helpers

    /// `.<name>.<16 random lowercase hex digits>.writing`.
    public static func temporaryName(of name: [UInt8], generator: inout some RandomNumberGenerator) -> [UInt8] {
        let hex = String(UInt64.random(in: 0...UInt64.max, using: &generator), radix: 16)
        return [UInt8(ascii: ".")] + name + Array(("." + String(repeating: "0", count: 16 - hex.count) + hex + ".writing").utf8)
    }

    /// Whether `entry` is a temporary file ``replace(_:with:mode:temporary:)`` makes for `name`
    /// (or made under an older, fixed name `.<name>.writing`).
    public static func isTemporary(_ entry: String, of name: String) -> Bool {
        entry.hasPrefix("." + name + ".") && entry.hasSuffix(".writing") && entry.utf8.count <= name.utf8.count + 26
    }

    private func createExclusive(_ name: [UInt8], mode: UInt32) throws(SystemCallError) -> Int32 {
        try System.call("openat", path: path(of: name)) {
            Self.withCString(name) { openat(fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode) }
        }
    }

    /// Runs `body` with `bytes` as a NUL-terminated C string.
    static func withCString<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        Beneath.withCString(bytes, body)
    }
}
