import ScannerProtocol

extension StateEvent {
    /// The state the socket reports for `snapshot`.
    init(_ snapshot: ScannerSnapshot) {
        self.init(
            camera: snapshot.camera.state.rawValue, device: snapshot.camera.device, detail: snapshot.camera.detail,
            format: snapshot.camera.format, torch: snapshot.torch, torchMode: snapshot.torchMode, mode: snapshot.mode,
            paused: snapshot.paused, scanning: snapshot.scanning)
    }
}

extension FrameEvent {
    /// The event for a tapped frame; its pixels go in with `Event.withLuma` or `Event.frame`.
    init(_ frame: TappedFrame) {
        self.init(
            sequence: frame.sequence, timestampNs: frame.timestamp, width: frame.width, height: frame.height,
            viewport: frame.viewport, symbols: frame.symbols, reads: frame.reads)
    }
}
