import Foundation
import Platform
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one writer of whole files (metrics textfiles, a recording's index, spool entries): never
/// through a planted name, all or nothing, and nothing left behind when it fails.
@Suite struct AtomicFileTests {
    let directory: String

    init() throws {
        directory = try scratchDirectory("atomic-file")
    }

    func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() }

    @Test func aSymlinkPlantedAtTheOldTemporaryNameIsNeverFollowed() throws {
        let victim = "\(directory)/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        // The name the old writers used (`FILE.tmp`), and the target itself, both pointing at the victim.
        symlink(victim, "\(directory)/metrics.prom.tmp")
        symlink(victim, "\(directory)/metrics.prom")
        try AtomicFile.write(Array("a 1\n".utf8), to: "\(directory)/metrics.prom")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(try String(contentsOfFile: "\(directory)/metrics.prom", encoding: .utf8) == "a 1\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/metrics.prom.tmp") == victim, "left as it was")
        let mode = try FileManager.default.attributesOfItem(atPath: "\(directory)/metrics.prom")[.posixPermissions] as? Int
        #expect(mode == 0o644, "the mode asked for, whatever the umask")
        #expect(names() == ["metrics.prom", "metrics.prom.tmp", "victim"])
    }

    @Test func aFailedWriteLeavesTheTargetAsItWasAndNoTemporaryFile() throws {
        try FileManager.default.createDirectory(atPath: "\(directory)/index.json/inside", withIntermediateDirectories: true)
        #expect(throws: (any Error).self) { try AtomicFile.write(Array("{}".utf8), to: "\(directory)/index.json") }
        #expect(names() == ["index.json"], "the rename over a directory failed and the temporary file went")
        #expect(throws: (any Error).self) { try AtomicFile.write(Array("{}".utf8), to: "\(directory)/no-such/index.json") }
    }

    @Test func aSecondWriteReplacesTheFirstWhole() throws {
        try AtomicFile.write(Array(repeating: UInt8(ascii: "x"), count: 100_000), to: "\(directory)/file", durable: false)
        try AtomicFile.write(Array("short".utf8), to: "\(directory)/file", permissions: [.ownerReadWrite])
        #expect(try String(contentsOfFile: "\(directory)/file", encoding: .utf8) == "short")
        #expect(names() == ["file"])
    }
}
