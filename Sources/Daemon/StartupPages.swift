import FoundationEssentials
import Platform

/// The executable's code and constants that only start-up touched, given back to the kernel.
///
/// The release binary has 14 MB of code (the Swift runtime, NIO, zxing-cpp and the rest linked in
/// statically). Start-up (the runtime, argument parsing, the config loader, service set-up) runs code
/// that the stream never runs again, and the kernel maps 64 KiB around every page fault
/// (fault-around), or a whole large folio of the page cache. MADV_PAGEOUT (Linux 5.4) asks the kernel
/// to reclaim those clean, file-backed pages from this process now; what the loop needs faults back
/// in on its next use. How much comes back depends on the page cache: pages the linker or dpkg just
/// wrote are reclaimed almost all, large folios read from disk only in part (on 6.18 about a third).
/// The link order does the larger part (packaging/hot-symbols.txt: the functions the daemon runs,
/// placed together). Kernels without MADV_PAGEOUT answer EINVAL, and nothing changes. Called once,
/// before the services start: called again once frames flow, it would also evict the decoders'
/// pages, and the first code read after it would wait for them to come back from disk.
public enum StartupPages {
    /// Advises the kernel to reclaim the executable's read-only mappings; returns the bytes advised.
    @discardableResult
    public static func release() -> Int {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        else { return 0 }
        var advised = 0
        for line in maps.split(separator: "\n") {
            // start-end perms offset dev inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[5].drop(while: { $0 == " " }) == executable, !fields[1].contains("w") else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt(String($0), radix: 16) }
            guard bounds.count == 2, bounds[1] > bounds[0], let start = UnsafeMutableRawPointer(bitPattern: bounds[0]) else { continue }
            if (try? Memory.pageOut(start, length: Int(bounds[1] - bounds[0]))) != nil { advised += Int(bounds[1] - bounds[0]) }
        }
        return advised
    }
}
