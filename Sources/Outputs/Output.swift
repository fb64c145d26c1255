import Codes
import Dispatch
import FoundationEssentials
import Glibc
import Keyboard
import Logging
import Platform
import ServiceLifecycle
import Synchronization

/// A place reads go besides the socket: a serial port or a keyboard wedge. As a service, its
/// device lives as long as `run()`: opened on a thread of its own when it starts, closed before it
/// returns. Reads wait behind a bounded queue, so a failed or slow output never blocks capture,
/// delivery or the others.
public protocol Output: Service {
    /// The name logs and `status` use, e.g. `serial /dev/ttyGS0`.
    var name: String { get }
    /// Queues `read` (also before `run()` starts); `done` is called once, on the output's thread,
    /// with true when the output sent it and false when it gave up; never after `run()` returned
    /// (the daemon is exiting, and whoever `done` reports to may be gone).
    func send(_ read: Read, done: @escaping @Sendable (Bool) -> Void)
    /// How the output is doing.
    var health: OutputHealth { get }
}

/// An output whose reads wait in an `OutputWorker`: its name, queue, health and service are the
/// worker's, and it brings what runs on the worker's thread.
protocol WorkerOutput: Output {
    var worker: OutputWorker { get }
    /// The name of the output's thread.
    static var thread: String { get }
    /// The output's thread: opens its device, sends each read, closes the device once stopped. The
    /// device is this thread's alone.
    func serve()
}

extension WorkerOutput {
    public var name: String { worker.name }
    public func send(_ read: Read, done: @escaping @Sendable (Bool) -> Void) { worker.enqueue(read, done: done) }
    public var health: OutputHealth { worker.healthState.withLock { $0 } }
    public func run() async throws { await worker.run(thread: Self.thread) { [self] in serve() } }
}

/// Why an output's device (a virtual keyboard, a HID gadget function) could not take a read.
struct DeviceError: Error, CustomStringConvertible {
    enum Kind {
        /// Missing or gone: closed, reopened later.
        case unavailable
        /// Nothing was sent: the read waits.
        case stalled
        /// Part of the read was sent: it cannot be sent again whole.
        case stalledMidRead
    }
    let kind: Kind
    let description: String
}

/// A device an output sends through, which can be missing or vanish.
protocol OutputDevice: AnyObject {
    /// Opens (creates) the device and waits until it is usable.
    func open() throws(DeviceError)
    func close()
}

/// The queue and thread behind an output: reads in order, at most `capacity` waiting, each for at
/// most `maxAge` seconds, turned into bytes by the output's `format`.
final class OutputWorker: Sendable {
    struct Item {
        let read: Read
        let since: UInt64
        let done: @Sendable (Bool) -> Void
    }

    let name: String
    let format: OutputFormat
    let logger: Logger
    let capacity: Int
    let maxAge: Double
    private let queue = Mutex<(items: [Item], stopped: Bool)>(([], false))
    /// Whether `done` callbacks are still made: false once `run()` returned. A callback runs under
    /// this lock, so that none is half way when `run()` returns.
    private let answering = Mutex(true)
    private let wake = DispatchSemaphore(value: 0)
    let healthState: Mutex<OutputHealth>

    init(_ output: OutputConfig, logger: Logger) {
        name = output.name
        format = output.format
        self.logger = logger
        capacity = output.holdCount
        maxAge = output.holdSeconds
        healthState = Mutex(OutputHealth(state: .waiting("starting")))
    }

    /// Adds a read; the oldest waiting one is given up when the queue is full.
    func enqueue(_ read: Read, done: @escaping @Sendable (Bool) -> Void) {
        let overflow = queue.withLock { state -> Item? in
            guard !state.stopped else { return Item(read: read, since: 0, done: done) }
            state.items.append(Item(read: read, since: MonotonicClock.nanoseconds(), done: done))
            return state.items.count > capacity ? state.items.removeFirst() : nil
        }
        if let overflow { fail(overflow, reason: "queue-full") }
        updateQueued()
        wake.signal()
    }

    /// The oldest read, without removing it; waits up to `timeout` seconds. Expired reads are given up.
    func peek(timeout: Double) -> Item? {
        if let item = oldestFresh() { return item }
        _ = wake.wait(timeout: .now() + timeout)
        return oldestFresh()
    }

    /// The oldest read and the bytes `format` makes of it, waiting up to `timeout` seconds. Reads
    /// a formatting rule sends as nothing are taken off on the way, as handled (counted, logged).
    func peekFormatted(timeout: Double) -> (item: Item, bytes: [UInt8], aim: String)? {
        while let item = peek(timeout: timeout) {
            if let framed = format.framed(item.read) { return (item, framed.bytes, framed.aim) }
            logger.info("\(name): read \(item.read.seq) sent as nothing by a formatting rule")
            handled(counting: \.filtered)
        }
        return nil
    }

    /// Removes the oldest read after it was sent.
    func sent() { handled(counting: \.sent) }

    /// Takes the oldest read off as done, counting it under `counter`.
    private func handled(counting counter: WritableKeyPath<OutputHealth, Int>) {
        let item = queue.withLock { $0.items.isEmpty ? nil : $0.items.removeFirst() }
        guard let item else { return }
        healthState.withLock { $0[keyPath: counter] += 1 }
        updateQueued()
        answer(item, true)
    }

    /// Gives up the oldest read.
    func giveUp(reason: String) {
        if let item = queue.withLock({ $0.items.isEmpty ? nil : $0.items.removeFirst() }) { fail(item, reason: reason) }
        updateQueued()
    }

    var isStopped: Bool { queue.withLock { $0.stopped } }

    /// An output's `run()`: `serve` on a thread named `thread` until graceful shutdown, which stops
    /// the queue (waiting reads are given up and counted) and returns once `serve` returned, its
    /// device closed. Cancellation (the daemon's shutdown deadline passed) stops it the same way
    /// but returns at once: a thread hung in a device call is left behind, logged, and the process
    /// exits without it. No `done` is called after this returns.
    func run(thread: String, _ serve: @escaping @Sendable () -> Void) async {
        let finished = await OwnThread.run(name: thread, stop: { self.stop() }, serve)
        answering.withLock { $0 = false }
        if !finished {
            logger.warning("\(name): its thread was still busy (in a device call) when the daemon stopped; left behind")
        }
    }

    /// Stops taking reads and gives up those waiting; the thread sees it at its next read.
    private func stop() {
        let left = queue.withLock { state -> [Item] in
            state.stopped = true
            defer { state.items.removeAll() }
            return state.items
        }
        for item in left { fail(item, reason: "shutdown") }
        wake.signal()
    }

    func setState(_ state: OutputHealth.State) { healthState.withLock { $0.state = state } }

    private func oldestFresh() -> Item? {
        while true {
            let (item, expired) = queue.withLock { state -> (Item?, Item?) in
                guard let first = state.items.first else { return (nil, nil) }
                if Double(MonotonicClock.nanoseconds() - first.since) / 1e9 > maxAge { return (nil, state.items.removeFirst()) }
                return (first, nil)
            }
            if let expired {
                fail(expired, reason: "hold-expired")
                updateQueued()
                continue
            }
            return item
        }
    }

    private func fail(_ item: Item, reason: String) {
        healthState.withLock { $0.failed[reason, default: 0] += 1 }
        answer(item, false)
    }

    private func answer(_ item: Item, _ sent: Bool) {
        answering.withLock { open in
            if open { item.done(sent) }
        }
    }

    private func updateQueued() {
        let count = queue.withLock { $0.items.count }
        healthState.withLock { $0.queued = count }
    }

    /// The loop of an output thread with a device: opens `device` (again every half second while
    /// it is missing, the reads waiting within bounds), hands each read's bytes and AIM identifier
    /// to `send`, and sorts what goes wrong: nothing sent, the read waits; part sent, it is given
    /// up; the device gone, it is closed and reopened. `idle` runs at least four times a second.
    /// Returns once stopped, the device closed.
    func serve(
        device: some OutputDevice, ready: String, idle: () -> Void = {}, send: (Item, [UInt8], String) throws(DeviceError) -> Void
    ) {
        var open = false
        // Logged when it changes; the first state is always logged.
        var lastProblem: String? = "starting"
        func report(_ problem: String?, failing: Bool = false) {
            guard problem != lastProblem else { return }
            if let problem {
                logger.warning("\(name): \(problem)")
                setState(failing ? .error(problem) : .waiting(problem))
            } else {
                logger.info("\(name): \(ready)")
                setState(.ok)
            }
            lastProblem = problem
        }
        while !isStopped {
            if !open {
                do {
                    try device.open()
                    open = true
                    report(nil)
                } catch {
                    report(error.description)
                    _ = peek(timeout: 0)
                    usleep(500_000)
                    continue
                }
            }
            idle()
            guard let (item, bytes, aim) = peekFormatted(timeout: 0.25) else { continue }
            do {
                try send(item, bytes, aim)
                self.sent()
                if lastProblem != nil { report(nil) }
            } catch {
                switch error.kind {
                case .stalled:
                    // Nothing was sent: the read waits (bounded by the queue) for the host to poll again.
                    report(error.description, failing: true)
                    usleep(250_000)
                case .stalledMidRead:
                    report(error.description, failing: true)
                    giveUp(reason: "stalled-mid-read")
                case .unavailable:
                    device.close()
                    open = false
                    report(error.description)
                }
            }
        }
        device.close()
    }
}

extension OwnThread {
    /// A service's `run()` around a blocking loop: `body` on a thread of its own named `name`.
    /// Graceful shutdown calls `stop` and waits for `body` to return; cancellation calls `stop` and
    /// returns at once, so that a thread hung in a device call never holds up the daemon's exit
    /// (ServiceGroup cancels what is left once its graceful shutdown time is up). Returns whether
    /// `body` returned.
    public static func run(name: String, stop: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () -> Void) async -> Bool {
        // Resumed once: by the thread when `body` returned, or by cancellation, whichever is first.
        let waiter = Mutex<(continuation: CheckedContinuation<Void, Never>?, over: Bool)>((nil, false))
        let bodyReturned = Atomic<Bool>(false)
        let finish: @Sendable () -> Void = {
            let continuation = waiter.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state = (nil, true) }
                return state.continuation
            }
            continuation?.resume()
        }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let over = waiter.withLock { state in
                        state.continuation = continuation
                        return state.over
                    }
                    if over { return continuation.resume() }
                    OwnThread.start(name: name) {
                        body()
                        bodyReturned.store(true, ordering: .releasing)
                        finish()
                    }
                }
            } onGracefulShutdown: {
                stop()
            }
        } onCancel: {
            stop()
            finish()
        }
        return bodyReturned.load(ordering: .acquiring)
    }
}
