import Glibc

/// A conflict copy's name, read: which item it is a version of, and what the sync engine says
/// about who saved it and when. Pure.
///
/// | engine | form | original |
/// |---|---|---|
/// | Syncthing | `Item.sync-conflict-20261122-034428-NOFER4Z.txt` | `Item.txt` |
/// | Syncthing | `Item_2.sync-conflict-20261122-034428-NOFER4Z` | `Item_2` |
/// | Dropbox-style | `Notes (conflicted copy 2026-11-22).txt`, `Notes (Ann's conflicted copy).txt` | `Notes.txt` |
/// | Ubiquity (a stale coordinated save) | `Item.ubiquity-conflict-20261122-034428-laptop.txt` | `Item.txt` |
///
/// Dropbox's `Notes (Case Conflict).txt` is not among them: it is another file, whose name differed
/// from `Notes.txt` only by case on a case-insensitive system, so it is an ordinary item.
public struct ConflictCopyName: Sendable, Hashable {
    /// The name of the item this is a version of.
    public let original: String
    /// The saving device as the engine names it (Syncthing's short device id, the host of a
    /// stale coordinated save), when it does.
    public let device: String?
    /// `YYYYMMDD-HHMMSS` as Syncthing writes it, when the name carries it.
    public let savedAt: String?

    /// The parts of `name`, or nil when it is not a conflict copy.
    ///
    /// Read as bytes, by hand: each form is a fixed suffix after the original's base name, so
    /// the latest marker whose suffix reads wins (what a greedy `(.+)` would pick). No regular
    /// expression: Swift's regex engine would put about 1.5 MB into the package for these three,
    /// and a regex literal is parsed anew on every evaluation (this runs for every entry the
    /// index inserts). Digits are ASCII digits, as the engines write them.
    public static func parse(_ name: String) -> ConflictCopyName? {
        guard name.utf8.count > 12, mentionsConflict(name) else { return nil }
        let bytes = Array(name.utf8)
        return syncthing(bytes) ?? ubiquity(bytes) ?? dropbox(bytes)
    }

    /// Whether `name` holds the bytes `conflict`, which every form's marker does (`.sync-conflict-`,
    /// `.ubiquity-conflict-`, `conflicted copy`): the test every other name ends at, without the
    /// copy of its bytes the forms are read from (a crawl inserts 100,000 names that are not
    /// conflict copies for every one that is).
    static func mentionsConflict(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { mentionsConflict(utf8: $0) }
    }

    /// ``mentionsConflict(_:)`` of a name given as its UTF-8 bytes.
    ///
    /// Each `c` is found by `memchr` and the eight bytes from it compared as one integer. Why: a
    /// byte at a time, the test was a tenth of the engine's time placing a crawl of long names
    /// (60–200 bytes, most not ASCII, where a `c` is rare).
    static func mentionsConflict(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, bytes.count >= 8 else { return false }
        let start = UnsafeRawPointer(base), last = bytes.count - 8
        var from = 0
        while from <= last, let hit = memchr(start + from, Int32(UInt8(ascii: "c")), last - from + 1) {
            let found = UnsafeRawPointer(hit)
            if UInt64(littleEndian: found.loadUnaligned(as: UInt64.self)) == conflictWord { return true }
            from = start.distance(to: found) + 1
        }
        return false
    }

    /// `<base>.sync-conflict-YYYYMMDD-HHMMSS-<7 of A-Z 0-9>[.<ext>]`
    private static func syncthing(_ bytes: [UInt8]) -> ConflictCopyName? {
        suffixed(bytes, marker: syncthingMarker) { rest in
            guard let (savedAt, afterTime) = timestamp(rest), afterTime.count >= 7,
                  afterTime.prefix(7).allSatisfy({ isUpper($0) || isDigit($0) }) else { return nil }
            return (Array(afterTime.prefix(7)), savedAt, afterTime.dropFirst(7))
        }
    }

    /// `<base>.ubiquity-conflict-YYYYMMDD-HHMMSS-<1 to 40 of A-Z a-z 0-9 _ ->[.<ext>]`
    private static func ubiquity(_ bytes: [UInt8]) -> ConflictCopyName? {
        suffixed(bytes, marker: ubiquityMarker) { rest in
            guard let (savedAt, afterTime) = timestamp(rest) else { return nil }
            let device = afterTime.prefix { isUpper($0) || isLower($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
            guard (1...40).contains(device.count) else { return nil }
            return (Array(device), savedAt, afterTime.dropFirst(device.count))
        }
    }

    /// `<base> ([<who>'s ]conflicted copy[<anything but parentheses>])[.<ext>]`
    private static func dropbox(_ bytes: [UInt8]) -> ConflictCopyName? {
        var open = bytes.count - 2
        while open >= 1 {
            defer { open -= 1 }
            guard bytes[open] == UInt8(ascii: " "), bytes[open + 1] == UInt8(ascii: "(") else { continue }
            let inner = bytes[(open + 2)...]
            guard let close = inner.firstIndex(where: { $0 == UInt8(ascii: ")") || $0 == UInt8(ascii: "(") }),
                  bytes[close] == UInt8(ascii: ")") else { continue }
            let extensionPart = bytes[(close + 1)...]
            guard isExtension(extensionPart) else { continue }
            let words = bytes[(open + 2)..<close]
            let saysConflictedCopy = occurrences(of: conflictedCopy, in: words).contains { at in
                let before = words[words.startIndex..<at]
                return before.isEmpty || before.suffix(3).elementsEqual(possessive)
            }
            guard saysConflictedCopy else { continue }
            return ConflictCopyName(original: text(bytes[..<open]) + text(extensionPart), device: nil, savedAt: nil)
        }
        return nil
    }

    /// The latest `marker` after a non-empty base whose suffix `read` accepts with nothing left
    /// but an optional extension.
    private static func suffixed(_ bytes: [UInt8], marker: [UInt8],
                                 _ read: (ArraySlice<UInt8>) -> (device: [UInt8], savedAt: String, rest: ArraySlice<UInt8>)?) -> ConflictCopyName? {
        for at in occurrences(of: marker, in: bytes[...]).reversed() where at >= 1 {
            guard let (device, savedAt, rest) = read(bytes[(at + marker.count)...]), isExtension(rest) else { continue }
            return ConflictCopyName(original: text(bytes[..<at]) + text(rest), device: text(device[...]), savedAt: savedAt)
        }
        return nil
    }

    /// `YYYYMMDD-HHMMSS-` at the start of `bytes`: the time as written, and what follows.
    private static func timestamp(_ bytes: ArraySlice<UInt8>) -> (String, ArraySlice<UInt8>)? {
        let shape = Array("DDDDDDDD-DDDDDD-".utf8)
        guard bytes.count > shape.count else { return nil }
        for (byte, expected) in zip(bytes, shape) {
            guard expected == UInt8(ascii: "D") ? isDigit(byte) : byte == expected else { return nil }
        }
        return (text(bytes.prefix(shape.count - 1)), bytes.dropFirst(shape.count))
    }

    /// Nothing, or a dot and no other dot.
    private static func isExtension(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.isEmpty || (bytes.first == UInt8(ascii: ".") && !bytes.dropFirst().contains(UInt8(ascii: ".")))
    }

    private static func occurrences(of marker: [UInt8], in bytes: ArraySlice<UInt8>) -> [Int] {
        guard bytes.count >= marker.count else { return [] }
        return (bytes.startIndex...(bytes.endIndex - marker.count)).filter {
            bytes[$0] == marker[0] && bytes[$0..<($0 + marker.count)].elementsEqual(marker)
        }
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isUpper(_ byte: UInt8) -> Bool { (0x41...0x5a).contains(byte) }
    private static func isLower(_ byte: UInt8) -> Bool { (0x61...0x7a).contains(byte) }

    private static let syncthingMarker = Array(".sync-conflict-".utf8)
    private static let ubiquityMarker = Array(".ubiquity-conflict-".utf8)
    private static let conflictedCopy = Array("conflicted copy".utf8)
    private static let possessive = Array("'s ".utf8)
    /// The bytes `conflict` as one little-endian integer (its first byte lowest).
    static let conflictWord: UInt64 = 0x7463_696C_666E_6F63
}
