import Platform

/// glibc malloc settings for a daemon that runs for years.
public enum MallocSettings {
    /// Blocks of 128 KiB and more (the decoders allocate and free frame-sized ones on every decode)
    /// come from mmap and go back to the kernel when freed. By default glibc raises its mmap
    /// threshold to the size of the first such block freed; after that they come from a thread's
    /// arena, which keeps its high-water mark: a one-time step of about 280 KiB of anonymous
    /// memory minutes into daemon-bench's soak, at a different minute in each run. Setting the
    /// threshold fixes it and turns that adjustment off.
    public static func apply() {
        Memory.setMmapThreshold(bytes: 128 * 1024)
    }
}
