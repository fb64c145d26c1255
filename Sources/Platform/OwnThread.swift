#if canImport(Glibc)
    import Glibc
#endif

/// A thread of its own for a loop that blocks (capture, a serial line, a keyboard device, a GPIO
/// line): such a loop must not hold one of the few threads of Swift's cooperative pool. A plain
/// pthread, detached and named, so that Foundation's Thread (and the ICU it links in) is not needed.
public enum OwnThread {
    /// Starts `body` on a new detached thread named `name` (at most 15 bytes show in `ps -L`).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let error = pthread_create(&thread, nil, runThreadStart, context)
        guard error == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(context).release()
            fatalError("cannot start thread \(name): \(String(cString: strerror(error)))")
        }
        pthread_detach(thread)
    }
}

private final class ThreadStart: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    func run() {
        // What pthread_setname_np does (Swift's Glibc module leaves it out): this thread's comm.
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if file >= 0 {
            let bytes = Array(name.utf8.prefix(15))
            _ = write(file, bytes, bytes.count)
            close(file)
        }
        body()
    }
}

private func runThreadStart(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue().run()
    return nil
}
