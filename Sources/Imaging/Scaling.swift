extension Frame {
    /// The size of this frame scaled down to `width` pixels wide (never up), the aspect ratio kept.
    public func sizeScaledDown(toWidth width: Int) -> Size {
        let scaledWidth = Swift.max(1, Swift.min(width, self.width))
        // Rounded to the nearest row, and never more rows than the frame has.
        let scaledHeight = Swift.max(1, Swift.min(height, (height * scaledWidth + self.width / 2) / self.width))
        return Size(width: scaledWidth, height: scaledHeight)
    }

    /// This frame scaled down to `width` pixels wide (never up; itself when it is that narrow
    /// already): each pixel is the mean of the block of pixels it covers (box averaging), so that
    /// thin bars and modules stay grey instead of vanishing as they would when pixels are skipped.
    public func scaledDown(toWidth width: Int) -> Frame {
        let size = sizeScaledDown(toWidth: width)
        guard size != self.size else { return self }
        // Block bounds in the frame: pixel x of the result covers columns x * W0 / W ..< (x + 1) * W0 / W,
        // at least one since the result is no wider (nor taller) than the frame.
        let columns = (0...size.width).map { $0 * self.width / size.width }
        let rows = (0...size.height).map { $0 * height / size.height }
        var sums = [UInt32](repeating: 0, count: self.width)
        let storage = LumaStorage(count: size.width * size.height) { pixels in
            for y in 0..<size.height {
                for index in sums.indices { sums[index] = 0 }
                for row in rows[y]..<rows[y + 1] {
                    let line = self.storage.base + row * stride
                    for x in 0..<self.width { sums[x] &+= UInt32(line.load(fromByteOffset: x, as: UInt8.self)) }
                }
                let blockRows = UInt32(rows[y + 1] - rows[y])
                for x in 0..<size.width {
                    var total: UInt32 = 0
                    for column in columns[x]..<columns[x + 1] { total &+= sums[column] }
                    let count = blockRows * UInt32(columns[x + 1] - columns[x])
                    pixels[y * size.width + x] = UInt8((total + count / 2) / count)
                }
            }
        }
        return Frame(width: size.width, height: size.height, stride: size.width, timestamp: timestamp, sequence: sequence, storage: storage)
    }
}
