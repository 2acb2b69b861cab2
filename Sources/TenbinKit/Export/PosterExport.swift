/// How ``Board/export(_:batch:write:progress:)`` writes posters.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// RFC 4180 CSV: a header line, then one record per poster, CRLF line ends.
    case csv
    /// JSON Lines: one poster object per line, the API's poster shape.
    case jsonl
}

/// What an export writes, and how.
public struct ExportOptions: Sendable, Hashable {
    /// The file format.
    public var format: ExportFormat
    /// For spreadsheets (CSV only): a UTF-8 byte-order mark first, so Excel reads the text as
    /// UTF-8, and text fields that a spreadsheet would run as a formula (starting with `=`,
    /// `+`, `-`, `@`, a tab or a carriage return) prefixed with `'`. Without it the CSV holds
    /// the posters' text exactly.
    public var excel: Bool
    /// For a terminal: text fields shown through ``SafeText/terminal(_:lines:)``, so no escape
    /// sequence or bidirectional override a poster holds reaches it. A file keeps the text
    /// exact.
    package var forTerminal = false

    /// Options for `format`, exact text, no byte-order mark.
    public init(format: ExportFormat = .csv, excel: Bool = false) {
        self.format = format
        self.excel = excel
    }
}

/// How far an export is.
public struct ExportProgress: Sendable, Hashable {
    /// Posters written so far.
    public var done: Int
    /// Posters in the snapshot being written.
    public var total: Int
}

/// Writes posters as export records: the encoding alone, no store and no I/O.
package struct PosterExportEncoder: Sendable {
    let options: ExportOptions

    package init(_ options: ExportOptions) {
        self.options = options
    }

    /// The CSV header's columns, in order.
    package static let columns = [
        "id", "created", "question", "hashtags", "good1", "good2", "image1", "image2",
    ]

    /// What comes before the first poster: the byte-order mark (Excel) and the CSV header.
    package func start(into bytes: inout [UInt8]) {
        guard options.format == .csv else { return }
        if options.excel { bytes += [0xEF, 0xBB, 0xBF] }
        bytes += Self.columns.joined(separator: ",").utf8
        bytes += [0x0D, 0x0A]
    }

    /// One poster's record, its line end included.
    package func write(_ poster: Poster, into bytes: inout [UInt8]) {
        switch options.format {
        case .jsonl:
            var json = JSONWriter(capacity: 256)
            json.poster(poster)
            bytes += json.bytes
            bytes.append(0x0A)
        case .csv:
            bytes += String(poster.id).utf8
            bytes.append(UInt8(ascii: ","))
            poster.createdAt.write(into: &bytes)
            bytes.append(UInt8(ascii: ","))
            field(poster.contents, into: &bytes)
            bytes.append(UInt8(ascii: ","))
            field(poster.hashtags.map { "#" + $0 }.joined(separator: " "), into: &bytes)
            bytes += ",\(poster.good1),\(poster.good2),".utf8
            bytes += (poster.images.first?.digest.hex ?? "").utf8
            bytes.append(UInt8(ascii: ","))
            bytes += (poster.images.dropFirst().first?.digest.hex ?? "").utf8
            bytes += [0x0D, 0x0A]
        }
    }

    /// A text field: quoted (quotes doubled) when it holds a comma, a quote, CR or LF, as RFC
    /// 4180 has it; neutralised first for spreadsheets when asked.
    private func field(_ text: String, into bytes: inout [UInt8]) {
        var utf8 = Array((options.forTerminal ? SafeText.terminal(text, lines: .many) : text).utf8)
        if options.excel, let first = utf8.first, Self.formulaStarts.contains(first) {
            utf8.insert(UInt8(ascii: "'"), at: 0)
        }
        guard utf8.contains(where: { Self.needsQuotes.contains($0) }) else {
            bytes += utf8
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in utf8 {
            if byte == UInt8(ascii: "\"") { bytes.append(byte) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let needsQuotes: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "\""), 0x0D, 0x0A]
    private static let formulaStarts: Set<UInt8> = [
        UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D,
    ]
}

extension Board {
    /// Writes every poster, lowest id first, from one snapshot of the store: what was
    /// committed when the export began, nothing after, whatever votes and posts meanwhile.
    /// `write` gets the encoded bytes a batch at a time (so memory stays bounded at any
    /// size of board) and `progress` after each batch; either may throw to stop.
    @discardableResult
    public func export(
        _ options: ExportOptions, batch: Int = 1_000, write: ([UInt8]) throws -> Void,
        progress: (ExportProgress) throws -> Void = { _ in }
    ) throws -> Int {
        let encoder = PosterExportEncoder(options)
        return try store.read { reading in
            let total = try reading.count()
            var bytes: [UInt8] = []
            encoder.start(into: &bytes)
            var done = 0
            var afterID: Int64 = 0
            while true {
                let posters = try reading.posters(afterID: afterID, limit: max(1, batch))
                guard let last = posters.last else { break }
                for poster in posters { encoder.write(poster, into: &bytes) }
                try write(bytes)
                bytes.removeAll(keepingCapacity: true)
                done += posters.count
                afterID = last.id
                try progress(ExportProgress(done: done, total: total))
            }
            if !bytes.isEmpty { try write(bytes) }  // an empty board's CSV: the header alone
            return done
        }
    }
}
