/// The same calls with names given as text (names the program makes itself: `index.snapshot`,
/// `items.json`); a client's names stay bytes.
extension Directory {
    public func path(of name: String) -> String { path(of: Array(name.utf8)) }

    public func openDirectory(_ name: String) throws(SystemCallError) -> Directory { try openDirectory(Array(name.utf8)) }

    @discardableResult
    public func makeDirectory(_ name: String, mode: UInt32 = 0o755) throws(SystemCallError) -> Bool {
        try makeDirectory(Array(name.utf8), mode: mode)
    }

    public func read(_ name: String, limit: Int, singleLink: Bool = false,
                     betweenPieces: (() -> Void)? = nil) -> Result<[UInt8], ReadRefusal>? {
        read(Array(name.utf8), limit: limit, singleLink: singleLink, betweenPieces: betweenPieces)
    }

    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func replace(_ name: String, with bytes: [UInt8], mode: UInt32 = 0o644, temporary: String? = nil) throws(SystemCallError) {
        try replace(Array(name.utf8), with: bytes, mode: mode, temporary: temporary.map { Array($0.utf8) })
    }

    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func replace(_ name: String, with bytes: UnsafeRawBufferPointer, mode: UInt32 = 0o644, temporary: String? = nil) throws(SystemCallError) {
        try replace(Array(name.utf8), with: bytes, mode: mode, temporary: temporary.map { Array($0.utf8) })
    }

    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func createNew(_ name: String, with bytes: UnsafeRawBufferPointer, mode: UInt32 = 0o644, temporary: String? = nil) throws(SystemCallError) {
        try createNew(Array(name.utf8), with: bytes, mode: mode, temporary: temporary.map { Array($0.utf8) })
    }

    @available(*, noasync, message: "fsync waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func createFile(_ name: String, with bytes: UnsafeRawBufferPointer, mode: UInt32 = 0o644) throws(SystemCallError) {
        try createFile(Array(name.utf8), with: bytes, mode: mode)
    }

    public func rename(_ name: String, to target: String) throws(SystemCallError) { try rename(Array(name.utf8), to: Array(target.utf8)) }

    public func remove(_ name: String) throws(SystemCallError) { try remove(Array(name.utf8)) }

    @available(*, noasync, message: "a recursive removal waits for the disk: run it on an NIOThreadPool or a thread of its own")
    public func removeTree(_ name: String) throws(SystemCallError) { try removeTree(Array(name.utf8)) }
}
