import FoundationEssentials
import Platform

extension JSONEncoder {
    /// The encoder for reads and events: one line, keys sorted, base64 bytes, ISO 8601 times with
    /// milliseconds (`UTCTime`), and a float JSON has no number for as a string (`nonFinite`), so
    /// that no value can make a line fail to encode.
    public static func forEvents() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dataEncodingStrategy = .base64
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: nonFinite.positiveInfinity, negativeInfinity: nonFinite.negativeInfinity, nan: nonFinite.nan)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(UTCTime(date).iso8601)
        }
        return encoder
    }
}

extension JSONDecoder {
    /// The decoder for what `JSONEncoder.forEvents()` wrote.
    public static func forEvents() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: nonFinite.positiveInfinity, negativeInfinity: nonFinite.negativeInfinity, nan: nonFinite.nan)
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = UTCTime.date(iso8601: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 UTC time: \(text)")
            }
            return date
        }
        return decoder
    }
}

/// How the events spell the floats JSON has no number for (Prometheus's spelling).
private let nonFinite = (positiveInfinity: "+Inf", negativeInfinity: "-Inf", nan: "NaN")
