import Testing
@testable import UbiquityKeyValue

@Suite("Key-value merge and quotas, without I/O")
struct KVStoreStateTests {
    func state(_ device: String = "aaaa", quota: KVQuota = KVQuota()) -> KVStoreState {
        KVStoreState(device: device, quota: quota)
    }

    /// Writes through the state as the daemon does: the new file, then recorded.
    @discardableResult
    func write(_ s: inout KVStoreState, _ key: String, _ value: KVValue?, at now: Int64 = 1_000) throws(KeyValueError) -> [String] {
        let own = try s.writing(value, forKey: key, now: now)
        return s.replace([s.ownFile: own], now: now)
    }

    @Test("The later write wins across devices; a tie goes to the greater device id; both sides agree")
    func lastWriterWins() throws {
        var a = state("aaaa"), b = state("bbbb")
        try write(&a, "k", .string("from a"), at: 5_000)
        try write(&b, "k", .string("from b"), at: 5_000)
        try write(&a, "only-a", .integer(1), at: 5_000)
        a.replace([b.ownFile: b.own], now: 0)
        b.replace([a.ownFile: a.own], now: 0)
        #expect(a.values == b.values)
        #expect(a.value(forKey: "k") == .string("from b"))
        #expect(a.value(forKey: "only-a") == .integer(1))
        // A later write on a, after seeing b's, wins everywhere.
        try write(&a, "k", .string("a again"), at: 1)
        b.replace([a.ownFile: a.own], now: 0)
        #expect(b.value(forKey: "k") == .string("a again"))
    }

    @Test("A removal wins over older writes elsewhere and reports the key")
    func removal() throws {
        var a = state("aaaa"), b = state("bbbb")
        try write(&b, "k", .bool(true), at: 10)
        a.replace([b.ownFile: b.own], now: 0)
        #expect(try write(&a, "k", nil, at: 20) == ["k"])
        b.replace([a.ownFile: a.own], now: 0)
        #expect(b.value(forKey: "k") == nil)
        #expect(b.values.isEmpty)
    }

    @Test("Writes never go back in time: a clock behind another device's still wins after seeing it")
    func clock() throws {
        var a = state("zzzz"), b = state("bbbb")
        try write(&a, "k", .string("future"), at: 9_000_000)
        b.replace([a.ownFile: a.own], now: 0)
        try write(&b, "k", .string("later, slow clock"), at: 1)
        a.replace([b.ownFile: b.own], now: 0)
        #expect(a.value(forKey: "k") == .string("later, slow clock"))
    }

    @Test("At most maxKeys keys: the last one fits, one more is refused, replacing and removing still work")
    func keyQuota() throws {
        var s = state(quota: KVQuota(maxKeys: 3, maxBytes: 1 << 20, maxKeyBytes: 64))
        for i in 0..<3 { try write(&s, "k\(i)", .integer(Int64(i))) }
        #expect { try write(&s, "k3", .integer(3)) } throws: { ($0 as? KeyValueError)?.code == .quotaExceeded }
        try write(&s, "k0", .string("replaced"))
        try write(&s, "k1", nil)
        try write(&s, "k3", .integer(3))
        #expect(s.usage.keys == 3)
    }

    @Test("At most maxBytes: exactly the limit fits, one byte more is refused")
    func byteQuota() throws {
        // "k" + "\"xxxx\"" = 1 + 6 bytes.
        var s = state(quota: KVQuota(maxKeys: 10, maxBytes: 7, maxKeyBytes: 64))
        try write(&s, "k", .string("xxxx"))
        #expect(s.usage.bytes == 7)
        #expect { try write(&s, "k", .string("xxxxx")) } throws: { ($0 as? KeyValueError)?.code == .quotaExceeded }
        #expect(s.value(forKey: "k") == .string("xxxx"))
    }

    @Test("Keys: 64 bytes of UTF-8 fit, 65 do not, however many characters; empty keys are refused")
    func keyLength() throws {
        var s = state()
        let sixtyFour = String(repeating: "é", count: 32)   // 2 bytes each
        #expect(sixtyFour.utf8.count == 64)
        try write(&s, sixtyFour, .integer(1))
        try write(&s, "🛒 grocery", .integer(2))
        #expect { try write(&s, sixtyFour + "x", .integer(1)) } throws: { ($0 as? KeyValueError)?.code == .quotaExceeded }
        #expect { try write(&s, String(repeating: "a", count: 65), .integer(1)) } throws: { ($0 as? KeyValueError)?.code == .quotaExceeded }
        #expect { try write(&s, "", .integer(1)) } throws: { ($0 as? KeyValueError)?.code == .invalidKey }
        #expect(s.value(forKey: sixtyFour) == .integer(1))
    }

    @Test("An entry stamped more than 60 s ahead is left out and reported, never moves the clock, and counts once the clock reaches it")
    func entryAheadOfTheClock() throws {
        let now: Int64 = 1_800_000_000_000_000
        var s = state("aaaa")
        let remote = KVReplica(device: "zzzz", entries: [
            "B": KVEntry(value: .string("future"), modified: KVReplica.maxModified, device: "zzzz"),
            "C": KVEntry(value: .string("soon"), modified: now + 61_000_000, device: "zzzz"),
            "D": KVEntry(value: .string("within"), modified: now + 59_000_000, device: "zzzz"),
        ])
        #expect(s.replace(["zzzz.json": remote], now: now) == ["D"])
        #expect(s.ahead == [KVAheadEntry(file: "zzzz.json", key: "B", modified: KVReplica.maxModified),
                            KVAheadEntry(file: "zzzz.json", key: "C", modified: now + 61_000_000)])
        #expect(s.clock == now + 59_000_000)
        // Writes made after it are stamped by this device's clock, and win.
        try write(&s, "A", .integer(1), at: now)
        #expect(s.own.entries["A"]?.modified == now + 59_000_001)
        #expect(s.value(forKey: "A") == .integer(1))
        try write(&s, "B", .integer(2), at: now + 1)
        #expect(s.value(forKey: "B") == .integer(2))
        // Two seconds later, C is within a minute: it counts (and wins over nothing written since).
        #expect(s.replace([:], now: now + 2_000_000) == ["C"])
        #expect(s.value(forKey: "C") == .string("soon"))
        #expect(s.ahead.map(\.key) == ["B"])
    }

    @Test("A write is refused, not lost, when an entry sits exactly on the one-minute horizon")
    func writeOnTheHorizon() throws {
        let now: Int64 = 1_800_000_000_000_000
        var s = state("aaaa")
        s.replace(["zzzz.json": KVReplica(device: "zzzz", entries: [
            "A": KVEntry(value: .string("theirs"), modified: now + 60_000_000, device: "zzzz")])], now: now)
        #expect { try write(&s, "A", .integer(1), at: now) } throws: { ($0 as? KeyValueError)?.code == .storageFailed }
        try write(&s, "A", .integer(1), at: now + 2)
        #expect(s.value(forKey: "A") == .integer(1))
    }

    @Test("Other devices' files past the quotas: the merged view keeps the oldest values within maxKeys and maxBytes, leaves out too-long keys, says which, and every reading order agrees")
    func quotasHoldForTheMergedView() throws {
        var mine = state("aaaa")
        try write(&mine, "kept", .string("mine"), at: 1)
        var flood: [String: KVEntry] = [:]
        for n in 0..<2_000 { flood["k\(n)"] = KVEntry(value: .integer(Int64(n)), modified: Int64(10 + n), device: "zzzz") }
        flood[String(repeating: "x", count: 65)] = KVEntry(value: .bool(true), modified: 5, device: "zzzz")
        let remote = KVReplica(device: "zzzz", entries: flood)
        mine.replace(["zzzz.json": remote], now: 1_000_000)
        #expect(mine.usage.keys == 1_024)
        #expect(mine.usage.bytes <= mine.quota.maxBytes)
        #expect(mine.value(forKey: "kept") == .string("mine"))       // the oldest stay
        #expect(mine.value(forKey: "k1022") == .integer(1022) && mine.value(forKey: "k1023") == nil)
        #expect(mine.overQuota.count == 2_000 - 1_023 + 1)
        #expect(mine.overQuota.contains(String(repeating: "x", count: 65)))
        #expect(mine.isOverQuota)
        // Another device reading the same two files keeps the same keys.
        var other = state("bbbb")
        other.replace(["zzzz.json": remote, mine.ownFile: mine.own], now: 1_000_000)
        #expect(other.values == mine.values)
        // Bytes: a few large values, the oldest that fit are kept.
        var bytes = state("cccc")
        let big = KVValue.string(String(repeating: "v", count: 400_000))
        bytes.replace(["zzzz.json": KVReplica(device: "zzzz", entries: [
            "a": KVEntry(value: big, modified: 1, device: "zzzz"), "b": KVEntry(value: big, modified: 2, device: "zzzz"),
            "c": KVEntry(value: big, modified: 3, device: "zzzz")])], now: 1_000_000)
        #expect(bytes.values.keys.sorted() == ["a", "b"] && bytes.overQuota == ["c"])
    }
}
