import Imaging

/// The `viewport` key: a centred square or a normalised rectangle. Here, beside the other shared
/// readers, so that the installer's console judges a rectangle drawn on the live image with the
/// very code `check-config` and the daemon run.
extension Viewport {
    /// Reads the `viewport` value: `square: FRACTION` or `rect: [x, y, width, height]`.
    package init(_ value: Value) throws(ConfigError) {
        var section = try Section(node: value.node, file: value.file, path: value.key, line: value.line)
        let square = section.value("square")
        let rect = section.value("rect")
        try section.finish()
        switch (square, rect) {
        case (let square?, nil):
            self = .square(fraction: try square.double(in: 0.01...1))
        case (nil, let rect?):
            let numbers = try rect.items()
            guard numbers.count == 4 else { throw rect.error("expected [x, y, width, height], normalised to 0...1") }
            var parts: [Double] = []
            for number in numbers { parts.append(try number.double(in: 0...1)) }
            self = .rect(x: parts[0], y: parts[1], width: parts[2], height: parts[3])
            if let problem { throw rect.error(problem) }
        case (nil, nil):
            throw value.error("set either square: FRACTION or rect: [x, y, width, height]")
        case (_, let rect?):
            throw rect.error("square and rect exclude each other")
        }
    }
}
