import Codes
import Documents
import FoundationEssentials
import Imaging
import Outputs
import Synchronization

/// One frame copied out of the capture loop for a client: the `snapshot` reply, one frame of a
/// `record` session, or a `watch`'s view, with what the scanner made of it.
public struct TappedFrame: Sendable {
    public let width: Int
    public let height: Int
    public let sequence: UInt64
    /// CLOCK_MONOTONIC nanoseconds of capture.
    public let timestamp: UInt64
    /// The luma plane, `width` bytes per row.
    public let luma: [UInt8]
    /// The viewport in pixels of this frame.
    public let viewport: PixelRect
    /// Codes found in the viewport of this frame (snapshot: decoded for the purpose; record and
    /// watch: what the pipeline's look at this frame found, or for a frame the change gate skipped,
    /// what the last decoded frame of the same scene held).
    public let symbols: [Read]
    /// Reads the scanner delivered from this frame.
    public let reads: [Read]
}

/// Frames wanted by clients. The capture loop asks `wanted` once per frame (an atomic load) and
/// copies a frame only when a client takes it, so the frame path stays copy-free otherwise.
final class FrameTap: Sendable {
    /// What a client asked for.
    enum Kind: Sendable {
        /// The next frame, decoded in full.
        case snapshot
        /// Every frame until `until` (CLOCK_MONOTONIC ns); a frame the client is still busy with is skipped.
        case record(until: UInt64)
        /// A frame every `interval` ns at most, until removed, except while scanning is paused; a
        /// frame due while the client is still busy with the last one is skipped.
        case watch(interval: UInt64)
    }

    private struct Request {
        let kind: Kind
        /// Takes a frame, made by calling its argument (the copy is made only then); returns false
        /// when the client could not take it (still sending the last one).
        let take: @Sendable (_ frame: () -> TappedFrame) -> Bool
        /// Ends the request: the recording time is up (snapshot requests end at their frame).
        let end: @Sendable (_ skipped: Int) -> Void
        /// Tells this request from a later one of the same client.
        let token: UInt64
        var skipped = 0
        /// A watch's next frame is due at this CLOCK_MONOTONIC ns.
        var due: UInt64 = 0
    }

    private let requests = Mutex<[Int: Request]>([:])
    private let tokens = Atomic<UInt64>(0)
    private let active = Atomic<Int>(0)

    /// Whether any client waits for a frame.
    var wanted: Bool { active.load(ordering: .relaxed) > 0 }

    /// Whether a snapshot is waited for (the frame is then decoded even if gating would skip it).
    var wantsDecodedFrame: Bool {
        wanted && requests.withLock { $0.values.contains { if case .snapshot = $0.kind { true } else { false } } }
    }

    /// Adds a request for client `id`; the token removes this request only, never a later one.
    @discardableResult
    func add(id: Int, kind: Kind, take: @escaping @Sendable (() -> TappedFrame) -> Bool, end: @escaping @Sendable (Int) -> Void) -> UInt64 {
        let token = tokens.add(1, ordering: .relaxed).newValue
        requests.withLock {
            $0[id] = Request(kind: kind, take: take, end: end, token: token)
            active.store($0.count, ordering: .relaxed)
        }
        return token
    }

    /// Forgets request `token` of client `id` if it is still there; true if it was. A timeout uses
    /// this: the client may have made a new request since, which is not the timeout's to end.
    @discardableResult
    func remove(id: Int, token: UInt64) -> Bool {
        requests.withLock {
            guard $0[id]?.token == token else { return false }
            $0.removeValue(forKey: id)
            active.store($0.count, ordering: .relaxed)
            return true
        }
    }

    /// Whether `id` has a request waiting.
    func contains(id: Int) -> Bool {
        requests.withLock { $0[id] != nil }
    }

    /// Forgets a request (client gone, or timed out) without ending it; true if it was there.
    @discardableResult
    func remove(id: Int) -> Bool {
        requests.withLock {
            let removed = $0.removeValue(forKey: id) != nil
            active.store($0.count, ordering: .relaxed)
            return removed
        }
    }

    /// Hands a frame to every request that is due one; `make` builds the copy once, only if
    /// someone takes it. While scanning is `paused`, watches get none.
    func offer(now: UInt64, paused: Bool, make: () -> TappedFrame) {
        var frame: TappedFrame?
        func shared() -> TappedFrame {
            if frame == nil { frame = make() }
            return frame!
        }
        var finished: [(Request, Int)] = []
        requests.withLock { all in
            for (id, var request) in all {
                if case .record(let until) = request.kind, now >= until {
                    all.removeValue(forKey: id)
                    finished.append((request, request.skipped))
                    continue
                }
                if case .watch(let interval) = request.kind {
                    guard !paused, now >= request.due else { continue }
                    // Keeps the pace on average; after a pause, or a camera that stalled, it starts afresh.
                    request.due = request.due &+ interval > now ? request.due &+ interval : now &+ interval
                    all[id] = request
                }
                if !request.take(shared) {
                    request.skipped += 1
                    all[id] = request
                } else if case .snapshot = request.kind {
                    all.removeValue(forKey: id)
                }
            }
            active.store(all.count, ordering: .relaxed)
        }
        for (request, skipped) in finished { request.end(skipped) }
    }

    /// Ends recordings whose time is up even when no frame comes (camera lost).
    func expire(now: UInt64) {
        guard wanted else { return }
        let finished = requests.withLock { all -> [Request] in
            let due = all.filter { if case .record(let until) = $0.value.kind { now >= until } else { false } }
            for id in due.keys { all.removeValue(forKey: id) }
            active.store(all.count, ordering: .relaxed)
            return Array(due.values)
        }
        for request in finished { request.end(request.skipped) }
    }
}
