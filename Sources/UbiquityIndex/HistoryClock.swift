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
        // Written digit by digit into one string: every update of every live query carries a
        // token, and the formatting and joining of five strings cost a fan-out more than its clocks.
        String(unsafeUninitializedCapacity: Self.prefix.utf8.count + 16 + 1 + 20) { out in
            var at = 0
            for byte in Self.prefix.utf8 {
                out[at] = byte
                at += 1
            }
            for shift in stride(from: 60, through: 0, by: -4) {
                let nibble = UInt8((epoch >> UInt64(shift)) & 0xF)
                out[at] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                at += 1
            }
            out[at] = UInt8(ascii: "-")
            at += 1
            let digitsStart = at
            var rest = sequence
            repeat {
                out[at] = UInt8(ascii: "0") + UInt8(rest % 10)
                at += 1
                rest /= 10
            } while rest > 0
            out[digitsStart..<at].reverse()
            return at
        }
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
