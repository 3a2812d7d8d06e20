// CUbiquitySystem — the few Linux calls Swift cannot import through Glibc.
//
// Owns: prefixed C wrappers (ubq_*) for statx, openat2, extended attributes, eventfd, a directory
//   entry's name, two malloc options, the huge-page hint for big buffers, and punching a hole.
// Must not: hold state or policy: every decision about what to call and when lives in UbiquityWatch.
// Depends on: the C library only.
#ifndef C_UBIQUITY_SYSTEM_H
#define C_UBIQUITY_SYSTEM_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// `statx` flattened to the fields the index needs. Times are nanoseconds since 1970.
typedef struct ubq_stat {
    /// `stx_mask`: which fields the file system reported.
    uint32_t mask;
    /// `st_mode` including the file type bits.
    uint32_t mode;
    uint32_t uid;
    uint32_t gid;
    uint32_t nlink;
    uint64_t inode;
    /// The device holding the inode (`makedev(stx_dev_major, stx_dev_minor)`).
    uint64_t device;
    uint64_t size;
    int64_t modified_ns;
    int64_t changed_ns;
    /// Valid only when `has_birth_time` is non-zero.
    int64_t birth_ns;
    int32_t has_birth_time;
} ubq_stat;

/// `AT_SYMLINK_NOFOLLOW`, `AT_EMPTY_PATH` and `AT_STATX_SYNC_AS_STAT` for `ubq_statx`'s flags.
extern const int UBQ_AT_SYMLINK_NOFOLLOW;
extern const int UBQ_AT_EMPTY_PATH;
/// `O_PATH`, which the C library declares only under `_GNU_SOURCE`.
extern const int UBQ_O_PATH;
/// `RUSAGE_THREAD` for `getrusage`, which the C library declares only under `_GNU_SOURCE`.
extern const int UBQ_RUSAGE_THREAD;
/// `STATX_BASIC_STATS | STATX_BTIME`.
extern const unsigned int UBQ_STATX_BASIC_AND_BIRTH;

/// `statx(dirfd, path, flags, mask, &buf)` flattened into `out`. Returns 0, or -1 with `errno` set.
int ubq_statx(int dirfd, const char *path, int flags, unsigned int mask, ubq_stat *out);

/// `lgetxattr(2)`: never follows a final symlink. Returns the value size, or -1 with `errno` set.
ssize_t ubq_lgetxattr(const char *path, const char *name, void *value, size_t size);
/// `getxattrat(2)` of `path` relative to `dirfd`, never following a final symlink (kernels before
/// 6.13 lack the call: there the entry is opened with `O_PATH | O_NOFOLLOW` relative to `dirfd` and
/// read through `/proc/self/fd`). Returns the value size, or -1 with `errno` set.
ssize_t ubq_getxattrat(int dirfd, const char *path, const char *name, void *value, size_t size);
/// `getxattr(2)` of the inode an `O_PATH` descriptor names, through `/proc/self/fd/N` (the kernel
/// refuses `fgetxattr` and `getxattrat(AT_EMPTY_PATH)` on `O_PATH` descriptors, as of 6.18), so the
/// attribute is read from the very inode that was examined, not from whatever a name leads to now.
/// Needs `/proc` (`ProtectProc=invisible` keeps the process's own entries). Returns the value
/// size, or -1 with `errno` set.
ssize_t ubq_getxattr_opath(int fd, const char *name, void *value, size_t size);
/// `lsetxattr(2)`. Returns 0, or -1 with `errno` set.
int ubq_lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags);
/// `lremovexattr(2)`. Returns 0, or -1 with `errno` set.
int ubq_lremovexattr(const char *path, const char *name);

/// `renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)`: swaps two entries in one step (tests
/// swap a watched directory for a symlink with it). Returns 0, or -1 with `errno` set.
int ubq_rename_exchange(const char *a, const char *b);

/// `renameat2(dirfd, a, dirfd, b, RENAME_EXCHANGE)`: swaps two entries of one directory in one
/// step (a package resolved to one of its conflict versions: the directories trade places).
int ubq_renameat_exchange(int dirfd, const char *a, const char *b);

/// `renameat2(fromdir, from, todir, to, RENAME_NOREPLACE)`: moves an entry, failing with `EEXIST`
/// when anything (a link included) is at `to`, and with `EXDEV` across file systems.
int ubq_renameat_noreplace(int fromdir, const char *from, int todir, const char *to);

/// `openat2(dirfd, path, {flags, mode, resolve})` with the resolve flags below. Returns a descriptor,
/// or -1 with `errno` set; `ENOSYS` (kernels before 5.6), `E2BIG` or a seccomp filter's `EPERM` say
/// the call itself is unavailable, and the caller falls back to opening one component at a time.
int ubq_openat2(int dirfd, const char *path, int flags, unsigned int mode, unsigned long long resolve);
/// `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`: the path stays below `dirfd`
/// (no `..` above it, no absolute path) and no symbolic link is followed anywhere in it.
extern const unsigned long long UBQ_RESOLVE_BENEATH_NO_LINKS;

/// The symbolic name of `errno` (`"ENOENT"`, `strerrorname_np`), or NULL for a number glibc does
/// not know.
const char *ubq_errno_name(int error);

/// `eventfd(initval, EFD_CLOEXEC | EFD_NONBLOCK)`.
int ubq_eventfd_cloexec_nonblock(unsigned int initval);

/// The NUL-terminated name of a directory entry (`d_name`, a fixed array Swift sees as a tuple).
static inline const char *ubq_dirent_name(const struct dirent *entry) { return entry->d_name; }

/// Asks the processor to start loading the cache line holding `address` (`__builtin_prefetch`):
/// a walk that reads scattered slots of a big array names the slots it will read a few steps
/// ahead, so that their cache misses overlap. Only a hint: never faults, whatever the address.
static inline void ubq_prefetch(const void *address) { __builtin_prefetch(address); }

/// Asks the kernel to back the whole 2 MiB-aligned huge pages inside `[start, start + length)`
/// with transparent huge pages (`madvise(MADV_HUGEPAGE)`), before they are first written: a
/// buffer of megabytes then costs one page fault per 2 MiB instead of one per 4 KiB. Only a
/// hint: does nothing when no whole huge page fits, THP is off, or the call fails.
void ubq_prefer_huge_pages(void *start, size_t length);

/// Asks the kernel to map every whole page of `[start, start + length)` writable now, in one call
/// (`madvise(MADV_POPULATE_WRITE)`, Linux 5.14), rather than one fault per 4 KiB page as it is
/// first written (whole pages only, of the system's page size). Only a hint: does nothing when
/// the call fails (an older kernel).
void ubq_populate_for_writing(void *start, size_t length);

/// The daemon's fixed glibc mmap threshold (`mallopt(M_MMAP_THRESHOLD)`, set at its start): a
/// block of this many bytes or more gets a mapping of its own, returned to the system when freed.
/// What sizes buffers that are made often (a crawl's small listings) to stay below it.
enum { UBQ_MMAP_THRESHOLD = 128 * 1024 };

/// `mallopt(M_ARENA_MAX, arenas)` and `mallopt(M_TOP_PAD, bytes)` (malloc.h, which Glibc does
/// not import). Return what `mallopt` returns: 1 on success.
int ubq_malloc_arena_max(int arenas);
int ubq_malloc_top_pad(int bytes);

/// `fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, length)`: frees the data blocks
/// of the first `length` bytes, the size unchanged (an evicted item's placeholder). Returns 0, or
/// -1 with `errno` set (`EOPNOTSUPP` where the file system has no holes).
int ubq_punch_hole(int fd, int64_t length);

#endif
