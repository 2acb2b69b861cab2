import TenbinKit

/// One line per finished request: method, path, status, bytes, milliseconds (and the client
/// and the time, to the millisecond), as text or as a JSON object. ``RequestLogWriter`` writes them.
struct RequestLog: Sendable {
    let json: Bool
    /// Whether a proxy in front sets `X-Forwarded-For` (`--trust-proxy`): then the client logged
    /// is the address it appended, the one rate limits count, not the proxy's own.
    var trustProxy = false

    /// The line for `record`, finished at `finished`, without a newline.
    func line(for record: ExchangeRecord, finished: LogTime = .now()) -> String {
        var bytes: [UInt8] = []
        append(record, finished: finished, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the line for `record` (without a newline) to `bytes`. The text line is written
    /// byte by byte: the log's writer formats one for every request the server answers.
    func append(_ record: ExchangeRecord, finished: LogTime, to bytes: inout [UInt8]) {
        let milliseconds = Double(record.duration.components.seconds) * 1000 + Double(record.duration.components.attoseconds) / 1e15
        let client = (trustProxy ? RequestPolicy.lastForwarded(record.forwardedFor) : nil) ?? record.client
        if json {
            var writer = JSONWriter()
            writer.object { json in
                json.field("time", finished.description)
                json.field("client", client)
                json.field("method", record.method)
                json.field("path", record.path)
                json.key("status")
                if record.status == 0 { json.null() } else { json.integer(record.status) }
                json.key("bytes")
                if let bytes = record.bytes { json.integer(bytes) } else { json.null() }
                if let cause = record.cause { json.field("error", cause) }
            }
            // Milliseconds with three decimals, as a number (the writer has whole numbers only).
            bytes += writer.text.utf8.dropLast()
            bytes += ", \"ms\": ".utf8
            Self.appendDecimal(milliseconds, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
            return
        }
        let space = UInt8(ascii: " ")
        finished.write(into: &bytes)
        bytes.append(space)
        Self.appendPrintable(client, to: &bytes)
        bytes.append(space)
        Self.appendPrintable(record.method, to: &bytes)
        bytes.append(space)
        Self.appendPrintable(record.path, to: &bytes)
        bytes.append(space)
        if record.status == 0 { bytes.append(UInt8(ascii: "-")) } else { Self.appendInteger(record.status, to: &bytes) }
        bytes.append(space)
        if let count = record.bytes { Self.appendInteger(count, to: &bytes) } else { bytes.append(UInt8(ascii: "-")) }
        bytes.append(space)
        Self.appendDecimal(milliseconds, to: &bytes)
        bytes += "ms".utf8
        guard let cause = record.cause else { return }
        bytes += " error: ".utf8
        Self.appendPrintable(cause, to: &bytes)
    }

    /// `value` in decimal digits (a minus sign first when negative).
    private static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// `value` with three decimals (`1.500`).
    private static func appendDecimal(_ value: Double, to bytes: inout [UInt8]) {
        let thousandths = Int((value * 1000).rounded())
        appendInteger(thousandths / 1000, to: &bytes)
        let fraction = abs(thousandths % 1000)
        bytes += [
            UInt8(ascii: "."), UInt8(ascii: "0") + UInt8(fraction / 100), UInt8(ascii: "0") + UInt8(fraction / 10 % 10),
            UInt8(ascii: "0") + UInt8(fraction % 10),
        ]
    }

    /// Text with control characters (which a client can put in a path or a forwarded address)
    /// shown as `?`, so a log line stays one line and cannot move a terminal's cursor or make
    /// text read backwards: C0, DEL, C1, line separators and bidirectional overrides, as
    /// ``SafeText`` judges them.
    private static func appendPrintable(_ text: String, to bytes: inout [UInt8]) {
        // Printable ASCII (nearly every path and address) is copied as it is; anything else
        // is judged scalar by scalar.
        if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
            bytes += text.utf8
            return
        }
        for scalar in text.unicodeScalars {
            UTF8.encode(SafeText.isUnsafe(scalar) ? "?" : scalar) { bytes.append($0) }
        }
    }
}
