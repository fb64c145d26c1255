/// Memory that holds the pixels of one frame, and keeps them alive while a frame refers to them.
///
/// Capture hands out frames that point straight into its mmap buffers (no copy); image files and
/// converted formats own their bytes.
public final class LumaStorage: @unchecked Sendable {
    /// The first byte of the plane.
    public let base: UnsafeRawPointer
    /// Bytes readable from `base`.
    public let count: Int
    private let release: (@Sendable () -> Void)?
    private let owned: UnsafeMutableRawPointer?

    /// Wraps memory that someone else owns; `release` runs when the last frame lets go.
    public init(borrowing base: UnsafeRawPointer, count: Int, release: (@Sendable () -> Void)? = nil) {
        self.base = base
        self.count = count
        self.release = release
        self.owned = nil
    }

    /// Allocates `count` bytes, filled by `fill`, owned by this storage.
    public init<Failure: Error>(count: Int, fill: (UnsafeMutableRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        do {
            try fill(UnsafeMutableRawBufferPointer(rebasing: memory[0..<count]))
        } catch {
            memory.deallocate()
            throw error
        }
        self.base = UnsafeRawPointer(memory.baseAddress!)
        self.count = count
        self.release = nil
        self.owned = memory.baseAddress
    }

    deinit {
        release?()
        owned?.deallocate()
    }
}

/// One 8-bit luma plane, as decoders read it: no copy between the camera buffer and the decoder.
public struct Frame: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from the start of one row to the start of the next (at least `width`).
    public let stride: Int
    /// Capture time in nanoseconds of CLOCK_MONOTONIC (0 for image files).
    public let timestamp: UInt64
    /// Frame counter from the source.
    public let sequence: UInt64
    /// The pixels.
    public let storage: LumaStorage

    /// A frame over `storage`; the plane must fit in it.
    public init(width: Int, height: Int, stride: Int, timestamp: UInt64 = 0, sequence: UInt64 = 0, storage: LumaStorage) {
        precondition(width > 0 && height > 0 && stride >= width, "frame geometry \(width)x\(height) stride \(stride)")
        precondition(stride * (height - 1) + width <= storage.count, "frame plane larger than its storage")
        self.width = width
        self.height = height
        self.stride = stride
        self.timestamp = timestamp
        self.sequence = sequence
        self.storage = storage
    }

    /// A frame that owns a copy of `pixels` (row-major, `width` bytes per row). Meant for tests and files.
    public init(width: Int, height: Int, pixels: [UInt8], timestamp: UInt64 = 0, sequence: UInt64 = 0) {
        precondition(pixels.count == width * height, "pixel count \(pixels.count) for \(width)x\(height)")
        let storage = LumaStorage(count: pixels.count) { buffer in
            pixels.withUnsafeBytes { buffer.copyMemory(from: $0) }
        }
        self.init(width: width, height: height, stride: width, timestamp: timestamp, sequence: sequence, storage: storage)
    }

    /// The whole frame as a region of itself.
    public var whole: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// The grey level at (x, y).
    public subscript(x: Int, y: Int) -> UInt8 {
        storage.base.load(fromByteOffset: y * stride + x, as: UInt8.self)
    }

    /// The frame's size.
    public var size: Size { Size(width: width, height: height) }
}
