import UbiquityKeyValue

/// Another device's key-value file, as sync delivers it into the container.
///
/// - A file is read, or reported damaged (``KVFileProblem``), never a trap.
/// - A file that is read is written back and read again to the same replica.
/// - Merging it with another device's file gives the same store whichever is read first, and
///   whether they arrive together or one after the other.
public enum KeyValueFileCheck: FuzzCheck {
    public static let name = "kv-file"

    /// Another device's file that shares keys with the seeds.
    static let other: KVReplica = {
        var replica = KVReplica(device: "laptop")
        replica.entries = [
            "theme": KVEntry(value: .string("dark"), modified: 1_795_000_000_000_000, device: "laptop"),
            "count": KVEntry(value: nil, modified: 1_795_000_000_000_001, device: "laptop"),
        ]
        return replica
    }()
    static let now: Int64 = 1_795_341_600_000_000

    public static func accepts(_ bytes: [UInt8]) -> Bool { (try? KVReplica(bytes: bytes)) != nil }

    public static func check(_ bytes: [UInt8]) -> String? {
        guard let replica = try? KVReplica(bytes: bytes) else { return nil }
        do {
            guard try KVReplica(bytes: replica.bytes) == replica else { return "the file written back reads as another replica" }
        } catch {
            return "the file written back is refused: \(error)"
        }
        let quota = KVQuota()
        var together = KVStoreState(device: "this", quota: quota)
        _ = together.replace(["phone": replica, "laptop": other], now: now)
        var phoneFirst = KVStoreState(device: "this", quota: quota)
        _ = phoneFirst.replace(["phone": replica], now: now)
        _ = phoneFirst.replace(["laptop": other], now: now)
        var laptopFirst = KVStoreState(device: "this", quota: quota)
        _ = laptopFirst.replace(["laptop": other], now: now)
        _ = laptopFirst.replace(["phone": replica], now: now)
        guard phoneFirst.merged == together.merged, laptopFirst.merged == together.merged else {
            return "the merge depends on the order the files arrive in"
        }
        return nil
    }
}
