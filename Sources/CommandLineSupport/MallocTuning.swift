import CUbiquitySystem

/// glibc's allocator set up for a command that reads one big answer from the daemon.
public enum MallocTuning {
    /// One arena for every thread, grown 16 MiB at a time. By default the thread that decodes an
    /// answer gets an arena of its own, which glibc grows a page at a time with one `mprotect`
    /// each: reading a 100k-item answer, that was an eighth of `ubiq query`'s CPU. Call first
    /// thing in `main`, before other threads allocate. At most 16 MiB of freed memory stays with
    /// the process (the top pad), which a long `ubiq watch` may keep.
    public static func oneGrowingHeap() {
        _ = ubq_malloc_arena_max(1)
        _ = ubq_malloc_top_pad(16 << 20)
    }
}
