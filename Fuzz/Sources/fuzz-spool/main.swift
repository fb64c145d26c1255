import Bridge
import FuzzSupport

#if canImport(Glibc)
    import Glibc
#endif

// The seam is the spool's own start-up: it reads each entry file it finds (20 digits and `.scan`,
// one scan event as a JSON line) back into an entry, and moves aside to `quarantine/` each file
// that is not one. The input is one such file.
enum Scratch {
    /// A private directory for the spool (0700, as the spool requires), made on first use.
    static let directory: String = {
        var template = Array("/tmp/fuzz-spool.XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            guard let path = mkdtemp(buffer.baseAddress!) else { fatalError("mkdtemp: \(errno)") }
            return String(cString: path)
        }
    }()

    /// Empties the quarantine, so that millions of runs do not fill the disk.
    static func emptyQuarantine() {
        let path = directory + "/quarantine"
        guard let folder = opendir(path) else { return }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { unlink(path + "/" + name) }
        }
    }
}

func fuzzSpool(_ bytes: UnsafeRawBufferPointer) {
    let path = Scratch.directory + "/00000000000000000007.scan"
    let file = fopen(path, "w")!
    precondition(fwrite(bytes.baseAddress, 1, bytes.count, file) == bytes.count)
    fclose(file)
    let spool = try! Spool(directory: Scratch.directory, limit: 1 << 20, scanTopic: "fuzz/lane/scan")
    let entries = spool.entries(after: nil, count: 2)
    // Taken as an entry, it is the file's bytes whole; otherwise it was moved aside. Never both.
    if let entry = entries.first {
        precondition(entries.count == 1 && entry.id == 7 && entry.payload == Array(bytes))
        spool.remove(7)
    } else {
        precondition(spool.counts.quarantined == 1)
    }
    precondition(access(path, F_OK) != 0)
    Scratch.emptyQuarantine()
}

runFuzzer(fuzzSpool)
