// Thin wrappers only: see include/CUbiquitySystem.h.
#define _GNU_SOURCE
#include "CUbiquitySystem.h"

#include <fcntl.h>
#include <malloc.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

const int UBQ_AT_SYMLINK_NOFOLLOW = AT_SYMLINK_NOFOLLOW;
const int UBQ_AT_EMPTY_PATH = AT_EMPTY_PATH;
const int UBQ_O_PATH = O_PATH;
const int UBQ_RUSAGE_THREAD = RUSAGE_THREAD;
const unsigned int UBQ_STATX_BASIC_AND_BIRTH = STATX_BASIC_STATS | STATX_BTIME;

static int64_t ubq_nanoseconds(struct statx_timestamp t) {
    return (int64_t)t.tv_sec * 1000000000LL + (int64_t)t.tv_nsec;
}

int ubq_statx(int dirfd, const char *path, int flags, unsigned int mask, ubq_stat *out) {
    struct statx buffer;
    int result = statx(dirfd, path, flags, mask, &buffer);
    if (result != 0) return result;
    out->mask = buffer.stx_mask;
    out->mode = buffer.stx_mode;
    out->uid = buffer.stx_uid;
    out->gid = buffer.stx_gid;
    out->nlink = buffer.stx_nlink;
    out->inode = buffer.stx_ino;
    out->device = makedev(buffer.stx_dev_major, buffer.stx_dev_minor);
    out->size = buffer.stx_size;
    out->modified_ns = ubq_nanoseconds(buffer.stx_mtime);
    out->changed_ns = ubq_nanoseconds(buffer.stx_ctime);
    out->has_birth_time = (buffer.stx_mask & STATX_BTIME) != 0;
    out->birth_ns = out->has_birth_time ? ubq_nanoseconds(buffer.stx_btime) : 0;
    return 0;
}

ssize_t ubq_lgetxattr(const char *path, const char *name, void *value, size_t size) {
    return lgetxattr(path, name, value, size);
}

// Not in the C library's headers yet (Linux 6.13): the same number on every architecture.
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif

struct ubq_xattr_args {
    uint64_t value;
    uint32_t size;
    uint32_t flags;
};

ssize_t ubq_getxattrat(int dirfd, const char *path, const char *name, void *value, size_t size) {
    struct ubq_xattr_args args = { .value = (uint64_t)(uintptr_t)value, .size = (uint32_t)size, .flags = 0 };
    if (size > UINT32_MAX) { errno = E2BIG; return -1; }
    long result = syscall(SYS_getxattrat, dirfd, path, AT_SYMLINK_NOFOLLOW, name, &args, sizeof args);
    if (result >= 0 || errno != ENOSYS) return (ssize_t)result;
    int fd = openat(dirfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    char proc[32];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    ssize_t read = getxattr(proc, name, value, size);
    int saved = errno;
    close(fd);
    errno = saved;
    return read;
}

ssize_t ubq_getxattr_opath(int fd, const char *name, void *value, size_t size) {
    char proc[32];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return getxattr(proc, name, value, size);
}

int ubq_lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags) {
    return lsetxattr(path, name, value, size, flags);
}

int ubq_lremovexattr(const char *path, const char *name) {
    return lremovexattr(path, name);
}

int ubq_rename_exchange(const char *a, const char *b) {
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

int ubq_renameat_exchange(int dirfd, const char *a, const char *b) {
    return renameat2(dirfd, a, dirfd, b, RENAME_EXCHANGE);
}

int ubq_renameat_noreplace(int fromdir, const char *from, int todir, const char *to) {
    return renameat2(fromdir, from, todir, to, RENAME_NOREPLACE);
}

const unsigned long long UBQ_RESOLVE_BENEATH_NO_LINKS = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

int ubq_openat2(int dirfd, const char *path, int flags, unsigned int mode, unsigned long long resolve) {
    struct open_how how = { .flags = (uint64_t)(unsigned int)flags, .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0, .resolve = resolve };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

int ubq_eventfd_cloexec_nonblock(unsigned int initval) {
    return eventfd(initval, EFD_CLOEXEC | EFD_NONBLOCK);
}

void ubq_prefer_huge_pages(void *start, size_t length) {
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t address = (uintptr_t)start;
    if (start == NULL || length < huge || length > UINTPTR_MAX - huge || address > UINTPTR_MAX - huge - length) return;
    uintptr_t first = (address + huge - 1) & ~(huge - 1);
    uintptr_t end = (address + length) & ~(huge - 1);
    if (end > first) (void)madvise((void *)first, end - first, MADV_HUGEPAGE);
}

void ubq_populate_for_writing(void *start, size_t length) {
    const long size = sysconf(_SC_PAGESIZE);
    const uintptr_t page = size > 0 ? (uintptr_t)size : 4096;
    uintptr_t address = (uintptr_t)start;
    if (start == NULL || length < page || address > UINTPTR_MAX - length) return;
    uintptr_t first = (address + page - 1) & ~(page - 1);
    uintptr_t end = (address + length) & ~(page - 1);
    if (end > first) (void)madvise((void *)first, end - first, MADV_POPULATE_WRITE);
}

int ubq_malloc_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

int ubq_malloc_top_pad(int bytes) { return mallopt(M_TOP_PAD, bytes); }

const char *ubq_errno_name(int error) {
    return strerrorname_np(error);
}

int ubq_punch_hole(int fd, int64_t length) {
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)length);
}
