/// Why a store file cannot be read: it is skipped, named in the log and in `status`.
public struct KVFileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
