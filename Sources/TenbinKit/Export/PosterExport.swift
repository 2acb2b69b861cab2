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
    /// With each poster's timeline: its stored buckets as compaction keeps them (minutes for
    /// 48 hours, then hours for 90 days, then days), each with its width. JSON Lines gives
    /// each poster a `timeline` array; CSV becomes a table of buckets (`id`, `start`,
    /// `bucket`, `good1`, `good2`), one record per poster and bucket, to join with a poster
    /// export on `id`.
    public var timelines: Bool
    /// For a terminal: text fields shown through ``SafeText/terminal(_:lines:)``, so no escape
    /// sequence or bidirectional override a poster holds reaches it. A file keeps the text
    /// exact.
    package var forTerminal = false

    /// Options for `format`, exact text, no byte-order mark.
    public init(format: ExportFormat = .csv, excel: Bool = false, timelines: Bool = false) {
        self.format = format
        self.excel = excel
        self.timelines = timelines
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

    /// The columns of the CSV table of timeline buckets (``ExportOptions/timelines``).
    package static let timelineColumns = ["id", "start", "bucket", "good1", "good2"]

    /// What comes before the first poster: the byte-order mark (Excel) and the CSV header.
    package func start(into bytes: inout [UInt8]) {
        guard options.format == .csv else { return }
        if options.excel { bytes += [0xEF, 0xBB, 0xBF] }
        bytes += (options.timelines ? Self.timelineColumns : Self.columns).joined(separator: ",").utf8
        bytes += [0x0D, 0x0A]
    }

    /// One poster's record (or, for a CSV of timelines, its buckets' records), line ends
    /// included. `timeline` is the poster's buckets, oldest first, when the options ask for
    /// them.
    package func write(_ poster: Poster, timeline: [ExportedBucket] = [], into bytes: inout [UInt8]) {
        switch options.format {
        case .jsonl:
            var json = JSONWriter(capacity: 256)
            json.poster(poster) { json in
                guard options.timelines else { return }
                json.key("timeline")
                json.array(timeline) { json, bucket in
                    json.object { json in
                        json.key("start")
                        json.timestamp(bucket.bucket.start)
                        json.field("bucket", bucket.size.rawValue)
                        json.field("good1", bucket.bucket.good1)
                        json.field("good2", bucket.bucket.good2)
                    }
                }
            }
            bytes += json.bytes
            bytes.append(0x0A)
        case .csv where options.timelines:
            for bucket in timeline {
                bytes += String(poster.id).utf8
                bytes.append(UInt8(ascii: ","))
                bucket.bucket.start.write(into: &bytes)
                bytes += ",\(bucket.size.rawValue),\(bucket.bucket.good1),\(bucket.bucket.good2)".utf8
                bytes += [0x0D, 0x0A]
            }
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

/// One bucket of an exported timeline: a stored bucket and its width.
package struct ExportedBucket: Sendable, Hashable {
    /// The bucket.
    package var bucket: TimelineBucket
    /// Its width.
    package var size: TimelineBucketSize

    /// `rows` (stored buckets of some posters) as compaction at `now` keeps them, each with
    /// its width, by poster, oldest first: a store that has not compacted yet exports what
    /// one that has would.
    package static func byPoster(_ rows: [TimelineRow], at now: Timestamp) -> [Int64: [ExportedBucket]] {
        var result: [Int64: [ExportedBucket]] = [:]
        for row in Timeline.compacted(rows, at: now).sorted(by: { ($0.posterID, $0.bucket.start) < ($1.posterID, $1.bucket.start) })
        where row.bucket.good1 != 0 || row.bucket.good2 != 0 {
            result[row.posterID, default: []].append(
                ExportedBucket(bucket: row.bucket, size: Timeline.width(ofCompacted: row.bucket.start, at: now)))
        }
        return result
    }
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
        let now = configuration.now()
        return try store.read { reading in
            let total = try reading.count()
            var bytes: [UInt8] = []
            encoder.start(into: &bytes)
            var done = 0
            var afterID: Int64 = 0
            while true {
                let posters = try reading.posters(afterID: afterID, limit: max(1, batch))
                guard let last = posters.last else { break }
                let timelines =
                    options.timelines
                    ? ExportedBucket.byPoster(try reading.timelineRows(posters: (afterID + 1)...last.id), at: now) : [:]
                for poster in posters { encoder.write(poster, timeline: timelines[poster.id] ?? [], into: &bytes) }
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
