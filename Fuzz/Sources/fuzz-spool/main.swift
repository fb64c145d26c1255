import Bridge
import FuzzSupport

#if canImport(Glibc)
    import Glibc
#endif

// The seam is the spool's own start-up: it reads each `.msg` file it finds back into an entry
// (topic, newline, payload) and deletes those it cannot read. The input is one such file.
enum Scratch {
    /// A private directory for the spool, made on first use.
    static let directory: String = {
        var template = Array("/tmp/fuzz-spool.XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            guard let path = mkdtemp(buffer.baseAddress!) else { fatalError("mkdtemp: \(errno)") }
            return String(cString: path)
        }
    }()
}

func fuzzSpool(_ bytes: UnsafeRawBufferPointer) {
    let path = Scratch.directory + "/00000000000000000007.msg"
    let file = fopen(path, "w")!
    precondition(fwrite(bytes.baseAddress, 1, bytes.count, file) == bytes.count)
    fclose(file)
    let spool = try! Spool(directory: Scratch.directory, limit: 1 << 20)
    let entries = spool.entries(after: nil, count: 2)
    if let newline = bytes.firstIndex(of: 0x0A) {
        precondition(entries.count == 1 && entries[0].id == 7)
        precondition(entries[0].payload == Array(bytes[(newline + 1)...]))
        spool.remove(7)
    } else {
        precondition(entries.isEmpty)
    }
    precondition(access(path, F_OK) != 0)
}

runFuzzer(fuzzSpool)
