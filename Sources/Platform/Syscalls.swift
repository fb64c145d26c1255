// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (the names are the C calls' own, after `system_`, as in swift-system)
import CMalloc
import CSocketQueue
import Glibc
import SystemPackage

// Every C library call the typed wrappers of this module make, one thin function each (as
// swift-system's Internals/Syscalls.swift), so that what the program asks of the kernel can be
// read in one place. The wrappers check the results; nothing here interprets them.

// MARK: Files

func system_access(_ path: UnsafePointer<CChar>, _ mode: Int32) -> Int32 { access(path, mode) }
func system_mkdir(_ path: UnsafePointer<CChar>, _ mode: mode_t) -> Int32 { mkdir(path, mode) }
func system_unlink(_ path: UnsafePointer<CChar>) -> Int32 { unlink(path) }
func system_unlinkat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { unlinkat(directory, name, flags) }
func system_rename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 { rename(from, to) }
func system_renameat(_ fromDirectory: Int32, _ from: UnsafePointer<CChar>, _ toDirectory: Int32, _ to: UnsafePointer<CChar>) -> Int32 {
    renameat(fromDirectory, from, toDirectory, to)
}
func system_chmod(_ path: UnsafePointer<CChar>, _ mode: mode_t) -> Int32 { chmod(path, mode) }
func system_chown(_ path: UnsafePointer<CChar>, _ owner: uid_t, _ group: gid_t) -> Int32 { chown(path, owner, group) }
func system_statvfs(_ path: UnsafePointer<CChar>, _ info: inout statvfs) -> Int32 { statvfs(path, &info) }
func system_open(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { open(path, flags) }
func system_openat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
    openat(directory, name, flags, mode)
}
func system_fchmod(_ fd: Int32, _ mode: mode_t) -> Int32 { fchmod(fd, mode) }
func system_write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }
func system_fsync(_ fd: Int32) -> Int32 { fsync(fd) }
func system_close(_ fd: Int32) -> Int32 { close(fd) }

// MARK: Descriptors

func system_fcntl(_ fd: Int32, _ command: Int32, _ value: Int32) -> Int32 { fcntl(fd, command, value) }
func system_isatty(_ fd: Int32) -> Int32 { isatty(fd) }
func system_getrlimit(_ resource: __rlimit_resource_t, _ limit: inout rlimit) -> Int32 { getrlimit(resource, &limit) }
func system_opendir(_ path: UnsafePointer<CChar>) -> OpaquePointer? { opendir(path) }
func system_readdir(_ directory: OpaquePointer) -> UnsafeMutablePointer<dirent>? { readdir(directory) }
func system_closedir(_ directory: OpaquePointer) -> Int32 { closedir(directory) }

// MARK: Sockets

func system_socket(_ domain: Int32, _ type: Int32, _ protocol: Int32) -> Int32 { socket(domain, type, `protocol`) }
func system_connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 { connect(fd, address, length) }
func system_sendto(
    _ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t
) -> Int {
    sendto(fd, bytes, count, flags, address, length)
}
func system_getsockopt(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeMutableRawPointer, _ length: inout socklen_t) -> Int32 {
    getsockopt(fd, level, name, value, &length)
}
func system_setsockopt(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeRawPointer, _ length: socklen_t) -> Int32 {
    setsockopt(fd, level, name, value, length)
}
func system_shutdown(_ fd: Int32, _ how: Int32) -> Int32 { shutdown(fd, how) }
/// ioctl(SIOCOUTQ) through the CSocketQueue shim (a macro behind a variadic call).
func system_socket_unread(_ fd: Int32) -> Int32 { ks_socket_unread(fd) }

// MARK: The process

func system_getpid() -> Int32 { getpid() }
func system_getenv(_ name: UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>? { getenv(name) }
func system_unsetenv(_ name: UnsafePointer<CChar>) -> Int32 { unsetenv(name) }
func system_exit(_ status: Int32) -> Never { exit(status) }
func system_execv(_ path: UnsafePointer<CChar>, _ arguments: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 { execv(path, arguments) }
func system_getgrnam(_ name: UnsafePointer<CChar>) -> UnsafeMutablePointer<group>? { getgrnam(name) }
func system_clock_nanosleep(_ request: inout timespec, _ remaining: inout timespec) -> Int32 {
    clock_nanosleep(CLOCK_MONOTONIC, 0, &request, &remaining)
}

// MARK: Signals

func system_signal_ignore(_ signal: Int32) { _ = Glibc.signal(signal, SIG_IGN) }
func system_sigemptyset(_ set: inout sigset_t) -> Int32 { sigemptyset(&set) }
func system_sigaddset(_ set: inout sigset_t, _ signal: Int32) -> Int32 { sigaddset(&set, signal) }
func system_pthread_sigmask(_ how: Int32, _ set: inout sigset_t) -> Int32 { pthread_sigmask(how, &set, nil) }
func system_sigwait(_ set: inout sigset_t, _ signal: inout Int32) -> Int32 { sigwait(&set, &signal) }

// MARK: Memory

func system_madvise(_ start: UnsafeMutableRawPointer, _ length: Int, _ advice: Int32) -> Int32 { madvise(start, length, advice) }
func system_malloc_trim(_ pad: Int) -> Int32 { malloc_trim(pad) }
func system_mallopt(_ parameter: Int32, _ value: Int32) -> Int32 { mallopt(parameter, value) }
func system_memchr(_ bytes: UnsafeRawPointer, _ byte: UInt8, _ count: Int) -> UnsafeMutableRawPointer? { memchr(bytes, Int32(byte), count) }

extension Errno {
    /// The result of a system call that reports failure as -1 and the reason in `errno`: the
    /// result, or the reason thrown as an `Errno`. An interrupted call (EINTR) is made again,
    /// unless `retryOnInterrupt` is false (a call that may have done its work before the signal).
    @discardableResult
    public static func checking<Result: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> Result) throws(Errno) -> Result {
        while true {
            let result = call()
            if result != -1 { return result }
            let error = Errno(rawValue: errno)
            if !retryOnInterrupt || error != .interrupted { throw error }
        }
    }

}
