import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A new empty directory under the temporary directory for one test's files, named after what it
/// is for, this process and a random part, so that tests running side by side never share one.
func scratchDirectory(_ purpose: String) throws -> String {
    let path = NSTemporaryDirectory() + "\(purpose)-\(getpid())-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
