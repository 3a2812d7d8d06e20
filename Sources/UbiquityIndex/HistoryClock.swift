/// A point in the index's history: the index's epoch (a random number chosen when an index is
/// built from nothing, kept as long as the index and its history are) and the number of changing
/// batches applied since. Clients see it as an opaque token (`c1-EPOCH-SEQUENCE`, the epoch in 16
/// hex digits), stable across daemon versions within one protocol version.
public struct HistoryClock: Sendable, Hashable, CustomStringConvertible {
    public let epoch: UInt64
    public let sequence: UInt64

    static let prefix = "c1-"

    /// The token clients hold.
    public var token: String {
        let hex = String(epoch, radix: 16)
        return Self.prefix + String(repeating: "0", count: 16 - hex.count) + hex + "-" + String(sequence)
    }

    public var description: String { token }
}

// In an extension so that the memberwise `init(epoch:sequence:)` stays synthesised: only the
// index makes a clock from its numbers; everyone else reads a token.
extension HistoryClock {
    /// Reads a token; nil for anything that is not exactly one this daemon hands out (no trap on
    /// any input: both numbers are parsed with overflow checks).
    public init?(token: String) {
        guard token.utf8.count <= 64, token.hasPrefix(Self.prefix) else { return nil }
        let parts = token.dropFirst(Self.prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 16, !parts[1].isEmpty,
              parts[0].utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              parts[1].utf8.allSatisfy({ (48...57).contains($0) }),
              let epoch = UInt64(parts[0], radix: 16), let sequence = UInt64(parts[1]) else { return nil }
        self.init(epoch: epoch, sequence: sequence)
    }
}
