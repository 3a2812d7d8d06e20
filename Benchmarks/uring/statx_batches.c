// The statuses of every entry of a tree taken three ways, warm: fstatat in a loop (as `find`),
// statx in a loop (as the crawl), and statx through io_uring in batches (IORING_OP_STATX).
// Usage: statx_batches TREE BATCH ROUNDS — one line of figures per round.
// Built and run by uring.py (`make bench-uring`).
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// Every directory of the tree (kept open) and its entries' names, read once before the rounds.
typedef struct { int fd; int count; char **names; } Directory;
static Directory *directories;
static int directoryCount, directoryCapacity;

static void die(const char *what) { perror(what); exit(1); }

static void collect(int fd) {
    if (directoryCount == directoryCapacity) {
        directoryCapacity = directoryCapacity ? directoryCapacity * 2 : 1024;
        directories = realloc(directories, directoryCapacity * sizeof *directories);
        if (!directories) die("realloc");
    }
    int index = directoryCount++;
    int capacity = 0, count = 0;
    char **names = NULL;
    DIR *stream = fdopendir(dup(fd));
    if (!stream) die("fdopendir");
    struct dirent *entry;
    while ((entry = readdir(stream))) {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, "..")) continue;
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            names = realloc(names, capacity * sizeof *names);
            if (!names) die("realloc");
        }
        names[count++] = strdup(entry->d_name);
        if (entry->d_type == DT_DIR) {
            int child = openat(fd, entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (child >= 0) collect(child);
        }
    }
    closedir(stream);
    directories[index] = (Directory){fd, count, names};
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

// CPU time of the whole process: io_uring's workers are threads of it.
static double cpuSeconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s TREE BATCH ROUNDS\n", argv[0]); return 2; }
    int batch = atoi(argv[2]), rounds = atoi(argv[3]);
    if (batch < 1 || batch > 4096 || rounds < 1) { fprintf(stderr, "BATCH 1-4096, ROUNDS 1 or more\n"); return 2; }
    int root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) die(argv[1]);
    collect(root);
    long entries = 0;
    for (int i = 0; i < directoryCount; i++) entries += directories[i].count;
    struct statx *statuses = calloc(batch, sizeof *statuses);
    const unsigned mask = STATX_BASIC_STATS | STATX_BTIME;
    for (int round = 0; round < rounds; round++) {
        double t0 = seconds(), c0 = cpuSeconds();
        for (int i = 0; i < directoryCount; i++)
            for (int j = 0; j < directories[i].count; j++) {
                struct stat status;
                if (fstatat(directories[i].fd, directories[i].names[j], &status, AT_SYMLINK_NOFOLLOW) != 0) die("fstatat");
            }
        double t1 = seconds(), c1 = cpuSeconds();
        for (int i = 0; i < directoryCount; i++)
            for (int j = 0; j < directories[i].count; j++)
                if (statx(directories[i].fd, directories[i].names[j], AT_SYMLINK_NOFOLLOW, mask, statuses) != 0) die("statx");
        double t2 = seconds(), c2 = cpuSeconds();
        struct io_uring ring;
        int error = io_uring_queue_init(batch, &ring, 0);
        if (error < 0) { fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-error)); return 1; }
        long failed = 0;
        for (int i = 0; i < directoryCount; i++)
            for (int j = 0; j < directories[i].count; j += batch) {
                int n = directories[i].count - j < batch ? directories[i].count - j : batch;
                for (int k = 0; k < n; k++)
                    io_uring_prep_statx(io_uring_get_sqe(&ring), directories[i].fd, directories[i].names[j + k],
                                        AT_SYMLINK_NOFOLLOW, mask, &statuses[k]);
                if (io_uring_submit_and_wait(&ring, n) < 0) die("io_uring_submit_and_wait");
                for (int k = 0; k < n; k++) {
                    struct io_uring_cqe *completion;
                    if (io_uring_wait_cqe(&ring, &completion) < 0) die("io_uring_wait_cqe");
                    if (completion->res < 0) failed++;
                    io_uring_cqe_seen(&ring, completion);
                }
            }
        double t3 = seconds(), c3 = cpuSeconds();
        io_uring_queue_exit(&ring);
        printf("%ld %d %d %.4f %.4f %.4f %.4f %.4f %.4f %ld\n", entries, directoryCount, batch,
               t1 - t0, c1 - c0, t2 - t1, c2 - c1, t3 - t2, c3 - c2, failed);
        fflush(stdout);
    }
    return 0;
}
