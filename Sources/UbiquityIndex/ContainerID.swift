/// A validated container identifier: reverse-DNS (`com.example.grocery`), optionally
/// prefixed by a team id (`ABCDE12345.com.example.grocery`). Nothing that could escape the
/// container root (`/`, `..`, empty labels) is accepted.
public struct ContainerID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Why an id was refused.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        public let id: String
        public let reason: String
        public var description: String { "invalid container id '\(id)': \(reason)" }
    }

    /// Longest accepted id, in bytes (a file name must fit in 255).
    public static let maxLength = 255

    public init(_ rawValue: String) throws(Invalid) {
        guard !rawValue.isEmpty else { throw Invalid(id: rawValue, reason: "it is empty") }
        guard rawValue.utf8.count <= ContainerID.maxLength else {
            throw Invalid(id: rawValue, reason: "it is longer than \(ContainerID.maxLength) bytes")
        }
        let labels = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else {
            throw Invalid(id: rawValue, reason: "expected reverse-DNS form such as com.example.app")
        }
        for label in labels {
            guard !label.isEmpty else { throw Invalid(id: rawValue, reason: "it has an empty label ('..' or a dot at an end)") }
            for byte in label.utf8 {
                let ok = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
                    || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
                guard ok else {
                    throw Invalid(id: rawValue,
                        reason: "only letters, digits, '-' and '.' are allowed, found '\(String(decoding: [byte], as: UTF8.self))'")
                }
            }
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
    public static func < (a: ContainerID, b: ContainerID) -> Bool { a.rawValue < b.rawValue }
}
