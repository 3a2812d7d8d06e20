/// The hash a directory's ``ChildTable`` files a name's UTF-8 bytes by: SipHash-1-3 (the
/// standard library's `Hasher`'s function) under a key drawn from the system's random source
/// once per process, so names chosen to collide cannot be prepared in advance.
///
/// Why not `Hasher` itself: `combine(bytes:)` passes every word through the hasher's tail
/// buffer. Here the name is read eight bytes at a time, straight into the rounds: on the
/// 101,000 names of a tree of long names (60–200 bytes) 84 ns a name against 116, and on the
/// engine's path a crawl hashes every new child once.
///
/// Nothing keeps a hash beyond the process (a saved index files its children again), so the
/// key may change at every start.
enum NameHash {
    struct Key: Sendable {
        var k0: UInt64
        var k1: UInt64
    }

    /// This process's key.
    static let key: Key = {
        var random = SystemRandomNumberGenerator()
        return Key(k0: random.next(), k1: random.next())
    }()

    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int { hash(bytes, key: key) }

    /// SipHash-1-3 of `bytes` under `key`: one compression round per 8-byte word, three to finish.
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, key: Key) -> Int {
        var state = State(key)
        let count = bytes.count
        var at = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while count - at >= 8 {
                state.compress(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
                at += 8
            }
        }
        // The last word: the remaining bytes, and the length's low byte on top.
        var last = UInt64(truncatingIfNeeded: count) << 56
        var shift: UInt64 = 0
        while at < count {
            last |= UInt64(bytes[at]) << shift
            shift += 8
            at += 1
        }
        state.compress(last)
        return Int(truncatingIfNeeded: state.finalize())
    }

    /// SipHash's four words of state.
    struct State {
        var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64

        @inline(__always)
        init(_ key: Key) {
            v0 = key.k0 ^ 0x736f_6d65_7073_6575
            v1 = key.k1 ^ 0x646f_7261_6e64_6f6d
            v2 = key.k0 ^ 0x6c79_6765_6e65_7261
            v3 = key.k1 ^ 0x7465_6462_7974_6573
        }

        @inline(__always)
        mutating func compress(_ word: UInt64) {
            v3 ^= word
            round()
            v0 ^= word
        }

        @inline(__always)
        mutating func finalize() -> UInt64 {
            v2 ^= 0xff
            round()
            round()
            round()
            return v0 ^ v1 ^ v2 ^ v3
        }

        @inline(__always)
        private mutating func round() {
            v0 = v0 &+ v1; v1 = rotate(v1, 13); v1 ^= v0; v0 = rotate(v0, 32)
            v2 = v2 &+ v3; v3 = rotate(v3, 16); v3 ^= v2
            v0 = v0 &+ v3; v3 = rotate(v3, 21); v3 ^= v0
            v2 = v2 &+ v1; v1 = rotate(v1, 17); v1 ^= v2; v2 = rotate(v2, 32)
        }

        @inline(__always)
        private func rotate(_ x: UInt64, _ by: UInt64) -> UInt64 { (x << by) | (x >> (64 &- by)) }
    }
}
