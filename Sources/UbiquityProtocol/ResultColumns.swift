import UbiquityJSON
/// The paths of a list of result rows, each in two parts: its directory's path (with the "/"
/// that ends it) and its last component, the name.
///
/// An answer's rows are mostly a few thousand directories with many names in each: keeping
/// each directory's path once and each name once, the server writes a row's path as the two
/// copied one after the other, and never holds a buffer of whole paths (27 MB at a million
/// entries, mapped and zeroed anew for every answer when it did).
///
/// ```
/// directoryBytes: /r/ /r/d/          directoryEnds: [3, 8]
/// nameBytes:      b a.txt c          nameStarts: [1, 0, 6]  nameEnds: [6, 1, 7]
/// rowDirectories: [1, 0, -1]         rows: /r/d/a.txt  /r/b  c
/// ```
///
/// A row whose directory is -1 has no directory part: its path is its name (a container root,
/// whose name in the index is its whole path).
public struct ResultColumns: Sendable {
    /// Every directory's path and "/", one after another.
    public var directoryBytes: [UInt8]
    /// Where directory `n`'s path ends in ``directoryBytes`` (it starts where `n - 1`'s ends).
    public var directoryEnds: [Int]
    /// Every row's name, in any order (the engine's in the order it found them).
    public var nameBytes: [UInt8]
    /// Where row `i`'s name starts and ends in ``nameBytes``.
    public var nameStarts: [Int]
    public var nameEnds: [Int]
    /// The directory row `i` is in, or -1.
    public var rowDirectories: [Int32]

    public var count: Int { nameEnds.count }

    public init(directoryBytes: [UInt8], directoryEnds: [Int], nameBytes: [UInt8], nameStarts: [Int], nameEnds: [Int],
                rowDirectories: [Int32]) {
        self.directoryBytes = directoryBytes
        self.directoryEnds = directoryEnds
        self.nameBytes = nameBytes
        self.nameStarts = nameStarts
        self.nameEnds = nameEnds
        self.rowDirectories = rowDirectories
    }

    /// Whole paths split after their last "/" (a path without one is a name alone); neighbours
    /// in one directory share it.
    public init<Paths: Sequence>(paths: Paths) where Paths.Element == String {
        self.init(directoryBytes: [], directoryEnds: [], nameBytes: [], nameStarts: [], nameEnds: [], rowDirectories: [])
        for path in paths {
            let utf8 = Array(path.utf8)
            let split = (utf8.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
            nameStarts.append(nameBytes.count)
            nameBytes.append(contentsOf: utf8[split...])
            nameEnds.append(nameBytes.count)
            guard split > 0 else {
                rowDirectories.append(-1)
                continue
            }
            let last = directoryEnds.count - 1
            if last < 0 || !directoryBytes[(last == 0 ? 0 : directoryEnds[last - 1])...].elementsEqual(utf8[..<split]) {
                directoryBytes.append(contentsOf: utf8[..<split])
                directoryEnds.append(directoryBytes.count)
            }
            rowDirectories.append(Int32(truncatingIfNeeded: directoryEnds.count - 1))
        }
    }

    /// All the bytes of paths and names together: how big a line to expect.
    public var pathBytes: Int {
        var total = 0
        for (i, directory) in rowDirectories.enumerated() {
            total &+= nameEnds[i] - nameStarts[i]
            guard directory >= 0 else { continue }
            let n = Int(directory)
            total &+= directoryEnds[n] - (n == 0 ? 0 : directoryEnds[n - 1])
        }
        return total
    }

    /// Whether ``JSONLine`` might escape any byte of a path or name (conservative: it looks at
    /// every byte of both buffers): when not, they are copied between quotes as they are.
    public var mayNeedEscaping: Bool {
        directoryBytes.withUnsafeBufferPointer(JSONLine.mayNeedEscaping) || nameBytes.withUnsafeBufferPointer(JSONLine.mayNeedEscaping)
    }

    /// Row `i`'s path as a `String`.
    public func path(_ i: Int) -> String {
        withView { String(decoding: $0.directory(of: i), as: UTF8.self) + String(decoding: $0.name(i), as: UTF8.self) }
    }

    /// Calls `body` with the columns as buffers, held for the call.
    func withView<R>(_ body: (View) throws -> R) rethrows -> R {
        try directoryBytes.withUnsafeBufferPointer { directoryBytes in
            try directoryEnds.withUnsafeBufferPointer { directoryEnds in
                try nameBytes.withUnsafeBufferPointer { nameBytes in
                    try nameStarts.withUnsafeBufferPointer { nameStarts in
                        try nameEnds.withUnsafeBufferPointer { nameEnds in
                            try rowDirectories.withUnsafeBufferPointer { rowDirectories in
                                try body(View(directoryBytes: directoryBytes, directoryEnds: directoryEnds, nameBytes: nameBytes,
                                              nameStarts: nameStarts, nameEnds: nameEnds, rowDirectories: rowDirectories))
                            }
                        }
                    }
                }
            }
        }
    }

    /// The columns as buffers: what the encoder reads a row from, without a call per field.
    struct View {
        let directoryBytes: UnsafeBufferPointer<UInt8>
        let directoryEnds: UnsafeBufferPointer<Int>
        let nameBytes: UnsafeBufferPointer<UInt8>
        let nameStarts: UnsafeBufferPointer<Int>
        let nameEnds: UnsafeBufferPointer<Int>
        let rowDirectories: UnsafeBufferPointer<Int32>

        @inline(__always)
        func name(_ i: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: nameBytes[nameStarts[i]..<nameEnds[i]])
        }

        /// Row `i`'s directory part (empty when it has none).
        @inline(__always)
        func directory(of i: Int) -> UnsafeBufferPointer<UInt8> {
            let n = Int(rowDirectories[i])
            guard n >= 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
            return UnsafeBufferPointer(rebasing: directoryBytes[(n == 0 ? 0 : directoryEnds[n - 1])..<directoryEnds[n]])
        }
    }
}
