import Glibc

/// User and group lookups through NSS (`getpwnam_r` and friends): reentrant, bounded buffers.
enum Accounts {
    static func uid(named name: String) -> UInt32? {
        lookup({ getpwnam_r(name, $0, $1, $2, $3) }, { (entry: passwd) in entry.pw_uid })
    }

    static func gid(named name: String) -> UInt32? {
        lookup({ getgrnam_r(name, $0, $1, $2, $3) }, { (entry: group) in entry.gr_gid })
    }

    static func userName(_ uid: UInt32) -> String? {
        lookup({ getpwuid_r(uid, $0, $1, $2, $3) }, { (entry: passwd) in entry.pw_name.map { String(cString: $0) } }) ?? nil
    }

    static func groupName(_ gid: UInt32) -> String? {
        lookup({ getgrgid_r(gid, $0, $1, $2, $3) }, { (entry: group) in entry.gr_name.map { String(cString: $0) } }) ?? nil
    }

    static func homeDirectory(uid: UInt32) -> String? {
        lookup({ getpwuid_r(uid, $0, $1, $2, $3) }, { (entry: passwd) in entry.pw_dir.map { String(cString: $0) } }) ?? nil
    }

    /// Runs one `get*_r` call, doubling the string buffer on `ERANGE` up to 1 MiB. The entry's
    /// strings point into that buffer, so `extract` runs before it is freed.
    private static func lookup<Entry, Value>(
        _ call: (UnsafeMutablePointer<Entry>, UnsafeMutablePointer<CChar>, Int,
                 UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>) -> Int32,
        _ extract: (Entry) -> Value
    ) -> Value? {
        var size = 4096
        while size <= 1 << 20 {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let entry = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
            defer { entry.deallocate() }
            let result = UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>.allocate(capacity: 1)
            defer { result.deallocate() }
            result.initialize(to: nil)
            let status = call(entry, buffer, size, result)
            if status == ERANGE { size *= 2; continue }
            guard status == 0, let found = result.pointee else { return nil }
            return extract(found.pointee)
        }
        return nil
    }
}
