import CMalloc
import Glibc
import SystemPackage

/// The C library's heap, and advice to the kernel about this process's pages.
public enum Memory {
    /// Gives the heap's free memory back to the kernel (malloc_trim): glibc keeps what freed
    /// blocks leave in its arenas otherwise.
    public static func trimHeap() {
        _ = system_malloc_trim(0)
    }

    /// Blocks of `bytes` and more come from mmap and go back to the kernel when freed
    /// (M_MMAP_THRESHOLD); setting it also turns off glibc's raising it on its own.
    public static func setMmapThreshold(bytes: Int32) {
        _ = system_mallopt(M_MMAP_THRESHOLD, bytes)
    }

    /// Asks the kernel to reclaim the pages of `length` bytes at `start` now (MADV_PAGEOUT,
    /// Linux 5.4; older kernels answer EINVAL); what is used again faults back in.
    public static func pageOut(_ start: UnsafeMutableRawPointer, length: Int) throws(Errno) {
        try Errno.checking { system_madvise(start, length, MADV_PAGEOUT) }
    }
}

extension UnsafeRawBufferPointer {
    /// The index of the first `byte` at or after `start`, found with the C library's memchr (which
    /// compares many bytes at a time: lines of megabytes are searched per frame); nil when none.
    public func firstIndex(of byte: UInt8, from start: Int) -> Int? {
        guard let base = baseAddress, start < count, let hit = system_memchr(base + start, byte, count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }
}
