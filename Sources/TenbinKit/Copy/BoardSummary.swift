/// What a board holds, condensed: counts, and SHA-256 digests chained over every poster and
/// every blob row, read from one snapshot. Two boards with equal summaries hold the same
/// posters (ids, creation times, texts, hashtags, votes and images), the same timeline buckets
/// and the same blob rows with the same remembered uploads.
public struct BoardSummary: Sendable, Hashable {
    /// Posters.
    public var posters = 0
    /// Blob rows.
    public var blobs = 0
    /// Remembered uploads (the upload digests that led to a blob).
    public var uploads = 0
    /// The lowest and highest poster id present (nil for an empty board).
    public var idRange: ClosedRange<Int64>?
    /// The highest id ever given, deleted posters' included.
    public var lastPosterID: Int64 = 0
    /// The chained digest of every poster, in id order.
    public var posterDigest = BoardSummary.empty
    /// The chained digest of every blob row with its uploads, in digest order.
    public var blobDigest = BoardSummary.empty
    /// Stored timeline buckets (``TimelineRow``s).
    public var timelineBuckets = 0
    /// The chained digest of every timeline bucket, by poster id, then start.
    public var timelineDigest = BoardSummary.empty

    /// The digest of nothing: where a chain starts.
    public static let empty = Digest(of: [UInt8]())

    /// How many rows a summary reads at once.
    static let batch = 1000

    /// The first 16 hex digits of the poster digest, as a summary line shows it.
    public var shortDigest: String { String(posterDigest.hex.prefix(16)) }

    /// Reads `reading` whole, batch by batch (memory stays bounded at any size).
    init(_ reading: any StoreReading) throws {
        var builder = Builder()
        var after: Int64 = 0
        while true {
            let batch = try reading.posters(afterID: after, limit: Self.batch)
            guard let last = batch.last else { break }
            builder.add(batch)
            builder.add(try reading.timelineRows(posters: (after + 1)...last.id))
            after = last.id
        }
        var afterDigest: Digest?
        while true {
            let batch = try reading.blobRecords(after: afterDigest, limit: Self.batch)
            guard let last = batch.last else { break }
            builder.add(batch)
            afterDigest = last.image.digest
        }
        self = builder.finish(lastPosterID: try reading.lastPosterID())
    }

    /// An empty board's summary.
    init() {}

    /// A summary built from posters and blob rows as a reader meets them (a copy, reading
    /// in batches of its own size), giving the same digests as reading in ``batch``es: each
    /// chain's links are cut every ``batch`` encodings, whatever batches they came in.
    struct Builder {
        private var summary = BoardSummary()
        private var posters: [[UInt8]] = []
        private var blobs: [[UInt8]] = []
        private var timelines: [[UInt8]] = []

        /// Adds posters; each call's ids are above every earlier one's, ascending.
        mutating func add(_ batch: [Poster]) {
            for poster in batch {
                summary.posters += 1
                summary.idRange = (summary.idRange?.lowerBound ?? poster.id)...poster.id
                posters.append(BoardSummary.encode(poster))
                if posters.count == BoardSummary.batch {
                    summary.posterDigest = BoardSummary.chain(summary.posterDigest, Self.take(&posters))
                }
            }
        }

        /// Adds blob rows; each call's digests come after every earlier one's, ascending.
        mutating func add(_ batch: [BlobRecord]) {
            for record in batch {
                summary.blobs += 1
                summary.uploads += record.uploads.count
                blobs.append(BoardSummary.encode(record))
                if blobs.count == BoardSummary.batch { summary.blobDigest = BoardSummary.chain(summary.blobDigest, Self.take(&blobs)) }
            }
        }

        /// Adds timeline buckets; each call's come after every earlier one's, by poster id, then start.
        mutating func add(_ rows: [TimelineRow]) {
            for row in rows {
                summary.timelineBuckets += 1
                timelines.append(BoardSummary.encode(row))
                if timelines.count == BoardSummary.batch {
                    summary.timelineDigest = BoardSummary.chain(summary.timelineDigest, Self.take(&timelines))
                }
            }
        }

        /// The summary, once everything was added.
        mutating func finish(lastPosterID: Int64) -> BoardSummary {
            if !timelines.isEmpty { summary.timelineDigest = BoardSummary.chain(summary.timelineDigest, Self.take(&timelines)) }
            if !posters.isEmpty { summary.posterDigest = BoardSummary.chain(summary.posterDigest, Self.take(&posters)) }
            if !blobs.isEmpty { summary.blobDigest = BoardSummary.chain(summary.blobDigest, Self.take(&blobs)) }
            summary.lastPosterID = lastPosterID
            return summary
        }

        private static func take(_ pending: inout [[UInt8]]) -> [[UInt8]] {
            defer { pending = [] }
            return pending
        }
    }

    /// SHA-256 of the previous link followed by a batch's encodings.
    static func chain(_ previous: Digest, _ encodings: [[UInt8]]) -> Digest {
        var bytes = Array(previous.hex.utf8)
        for encoding in encodings { bytes += encoding }
        return Digest(of: bytes)
    }

    /// A poster as unambiguous bytes: every text preceded by its length in bytes.
    static func encode(_ poster: Poster) -> [UInt8] {
        var fields = [
            "poster", String(poster.id), String(poster.createdAt.secondsSince1970), String(poster.good1), String(poster.good2),
            counted(poster.contents), String(poster.hashtags.count),
        ]
        fields += poster.hashtags.map(counted)
        fields += poster.images.map(describe)
        return Array((fields.joined(separator: "\u{1F}") + "\n").utf8)
    }

    /// A blob row and its uploads as unambiguous bytes.
    static func encode(_ record: BlobRecord) -> [UInt8] {
        let uploads = record.uploads.sorted().map { "\($0.source.hex) \(counted($0.encodingKey))" }
        return Array((["blob", describe(record.image), String(uploads.count)] + uploads).joined(separator: "\u{1F}").utf8 + [0x0A])
    }

    /// A timeline bucket as unambiguous bytes.
    static func encode(_ row: TimelineRow) -> [UInt8] {
        let fields = [
            "bucket", String(row.posterID), String(row.bucket.start.secondsSince1970), String(row.bucket.good1), String(row.bucket.good2),
        ]
        return Array((fields.joined(separator: "\u{1F}") + "\n").utf8)
    }

    private static func counted(_ text: String) -> String { "\(text.utf8.count):\(text)" }

    private static func describe(_ image: StoredImage) -> String {
        "\(image.digest.hex) \(image.format.rawValue) \(image.width)x\(image.height) \(image.bytes)"
    }
}
