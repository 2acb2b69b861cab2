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
        let milliseconds = Double(record.duration.components.seconds) * 1000 + Double(record.duration.components.attoseconds) / 1e15
        let time = finished.description
        let status = record.status == 0 ? "-" : String(record.status)
        let client = (trustProxy ? RequestPolicy.lastForwarded(record.forwardedFor) : nil) ?? record.client
        if json {
            var writer = JSONWriter()
            writer.object { json in
                json.field("time", time)
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
            return String(writer.text.dropLast()) + ", \"ms\": \(Self.decimal(milliseconds))}"
        }
        let line =
            "\(time) \(Self.printable(client)) \(Self.printable(record.method)) \(Self.printable(record.path)) \(status) \(record.bytes.map(String.init) ?? "-") \(Self.decimal(milliseconds))ms"
        guard let cause = record.cause else { return line }
        return line + " error: " + Self.printable(cause)
    }

    private static func decimal(_ value: Double) -> String {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// Text with control characters (which a client can put in a path or a forwarded address)
    /// shown as `?`, so a log line stays one line and cannot move a terminal's cursor or make
    /// text read backwards: C0, DEL, C1, line separators and bidirectional overrides, as
    /// ``SafeText`` judges them.
    private static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: SafeText.isUnsafe) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { SafeText.isUnsafe($0) ? "?" : $0 }))
    }
}
