import UbiquityIndex

/// A file name that may be a sync engine's conflict copy, as it arrives from another device (the
/// index reads every name it inserts this way).
///
/// - Only names a file system can hold are tried: 1 to 255 bytes, no `/`, no NUL.
/// - A conflict copy's original is a shorter, non-empty name; its device and time are parts of
///   the name. A name is read in time that the fuzzer's per-input timeout does not catch (the
///   patterns are regular expressions, run on names other devices choose).
public enum ConflictNameCheck: FuzzCheck {
    public static let name = "conflict-name"

    static func fileName(_ bytes: [UInt8]) -> String? {
        guard (1...255).contains(bytes.count), !bytes.contains(UInt8(ascii: "/")), !bytes.contains(0) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func accepts(_ bytes: [UInt8]) -> Bool { fileName(bytes).flatMap(ConflictCopyName.parse) != nil }

    public static func check(_ bytes: [UInt8]) -> String? {
        guard let name = fileName(bytes), let copy = ConflictCopyName.parse(name) else { return nil }
        guard !copy.original.isEmpty, copy.original.utf8.count < name.utf8.count else {
            return "'\(name)' is read as a copy of '\(copy.original)'"
        }
        for part in [copy.device, copy.savedAt].compactMap({ $0 }) where !name.contains(part) {
            return "'\(name)' is read as saved by '\(part)', which it does not say"
        }
        return nil
    }
}
