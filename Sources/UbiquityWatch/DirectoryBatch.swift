import CUbiquitySystem
import Glibc

/// A stretch of one directory's entries as `readdir` gave them — names copied out of the
/// stream (dot entries and sync cookies left out) — and each one's `statx` once taken.
///
/// The crawl reads a stretch, has every status taken (alone, or with a ``StatHelper``), then
/// goes through the stretch in order. Its memory is its own (allocated once per directory, grown
/// as needed) and does not move while statuses are taken, so another thread may write a slot.
///
/// Limit: at most ``maximumEntries`` entries per stretch, so a directory open at every depth of
/// the walk holds at most that many names and statuses (a directory of 100,000 entries is read in
/// stretches).
final class DirectoryBatch {
    /// Entries per stretch: 1,024 (names of up to 255 bytes: at most about 400 KiB per open directory).
    static let maximumEntries = 1024

    /// How a ``fill(from:)`` ended.
    enum Fill: Equatable {
        /// The stretch is full: the directory may hold more.
        case more
        /// `readdir` said the directory is at its end.
        case end
        /// `readdir` failed with this `errno` (the entries before it are in the stretch).
        case failed(Int32)
    }

    /// The pointers another thread uses while statuses are taken.
    struct Storage: @unchecked Sendable {
        let names: UnsafeMutablePointer<CChar>
        let offsets: UnsafeMutablePointer<Int>
        let statuses: UnsafeMutablePointer<ubq_stat>
        let errors: UnsafeMutablePointer<Int32>
        let count: Int

        /// `statx` of entry `index` relative to `directory`, never through a final symlink: its
        /// status, or the `errno` it failed with (`EINTR` retried).
        func stat(_ index: Int, in directory: Int32) {
            while true {
                if ubq_statx(directory, names + offsets[index], UBQ_AT_SYMLINK_NOFOLLOW, UBQ_STATX_BASIC_AND_BIRTH,
                             statuses + index) == 0 {
                    errors[index] = 0
                    return
                }
                errors[index] = Glibc.errno
                if errors[index] != EINTR { return }
            }
        }
    }

    private var names: UnsafeMutablePointer<CChar>
    private var nameCapacity: Int
    private var used = 0
    private let offsets: UnsafeMutablePointer<Int>
    private let statuses: UnsafeMutablePointer<ubq_stat>
    private let errors: UnsafeMutablePointer<Int32>
    /// Entries in the stretch.
    private(set) var count = 0

    init() {
        nameCapacity = 16 * 1024
        names = .allocate(capacity: nameCapacity)
        offsets = .allocate(capacity: Self.maximumEntries)
        statuses = .allocate(capacity: Self.maximumEntries)
        errors = .allocate(capacity: Self.maximumEntries)
    }

    deinit {
        names.deallocate()
        offsets.deallocate()
        statuses.deallocate()
        errors.deallocate()
    }

    /// Empties the stretch (a batch taken again for another directory).
    func reset() -> DirectoryBatch {
        count = 0
        used = 0
        return self
    }

    var storage: Storage { Storage(names: names, offsets: offsets, statuses: statuses, errors: errors, count: count) }

    /// Replaces the stretch with the next entries of `stream` (up to ``maximumEntries``).
    func fill(from stream: OpaquePointer) -> Fill {
        count = 0
        used = 0
        while count < Self.maximumEntries {
            Glibc.errno = 0
            guard let entry = readdir(stream) else { return Glibc.errno == 0 ? .end : .failed(Glibc.errno) }
            let name = ubq_dirent_name(entry)!
            if Crawler.isDotOrDotDot(name) || Crawler.isCookie(name) { continue }
            let length = strlen(name) + 1
            if used + length > nameCapacity {
                let grown = UnsafeMutablePointer<CChar>.allocate(capacity: max(nameCapacity * 2, used + length))
                grown.update(from: names, count: used)
                names.deallocate()
                names = grown
                nameCapacity = max(nameCapacity * 2, used + length)
            }
            (names + used).update(from: name, count: length)
            offsets[count] = used
            used += length
            count += 1
        }
        return .more
    }

    /// Takes every status of the stretch on this thread.
    func statAll(in directory: Int32) {
        let storage = storage
        for index in 0..<count { storage.stat(index, in: directory) }
    }

    /// The NUL-terminated name of entry `index`, valid until the next ``fill(from:)``.
    func name(_ index: Int) -> UnsafePointer<CChar> { UnsafePointer(names + offsets[index]) }

    /// Entry `index`'s status, or the `errno` its `statx` failed with.
    func status(_ index: Int) -> (status: ubq_stat, errno: Int32) { (statuses[index], errors[index]) }
}
