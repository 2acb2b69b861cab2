/// How wide a bucket of a poster's timeline is.
public enum TimelineBucketSize: String, Sendable, CaseIterable {
    case minute, hour, day

    /// The bucket's width in seconds.
    public var seconds: Int64 {
        switch self {
        case .minute: 60
        case .hour: 3600
        case .day: 86_400
        }
    }

    /// The size named `text` (`minute`, `hour`, `day`), or nil.
    public init?(name text: String) {
        self.init(rawValue: text)
    }
}

/// The votes a poster got in one span of time, from ``start`` for one bucket's width.
public struct TimelineBucket: Sendable, Hashable {
    /// When the bucket begins (a multiple of its width since 1970).
    public var start: Timestamp
    /// Votes for the first image in the bucket.
    public var good1: Int
    /// Votes for the second image in the bucket.
    public var good2: Int

    /// A bucket.
    public init(start: Timestamp, good1: Int, good2: Int) {
        self.start = start
        self.good1 = good1
        self.good2 = good2
    }
}

/// One stored bucket of one poster's timeline, as a store holds it and a copy carries it.
public struct TimelineRow: Sendable, Hashable {
    /// The poster's id.
    public var posterID: Int64
    /// The bucket.
    public var bucket: TimelineBucket

    /// A row.
    public init(posterID: Int64, bucket: TimelineBucket) {
        self.posterID = posterID
        self.bucket = bucket
    }
}

/// How timelines are kept: every vote is added to its poster's minute bucket in the commit
/// that counts it; minute buckets older than ``minuteSpan`` are folded into hour buckets and
/// hour buckets older than ``hourSpan`` into day buckets (compaction sums, never drops), so a
/// timeline's totals always equal its poster's counts.
public enum Timeline {
    /// How long minute buckets are kept as they are: 48 hours.
    public static let minuteSpan: Int64 = 48 * 3600
    /// How long hour buckets are kept as they are: 90 days.
    public static let hourSpan: Int64 = 90 * 86_400

    /// The start of the minute bucket a vote at `time` goes to.
    public static func minuteStart(of time: Timestamp) -> Int64 {
        floor(time.secondsSince1970, to: TimelineBucketSize.minute.seconds)
    }

    /// `value` rounded down to a multiple of `width` (towards minus infinity).
    static func floor(_ value: Int64, to width: Int64) -> Int64 {
        let remainder = value % width
        return remainder < 0 ? value - remainder - width : value - remainder
    }

    /// One step of compaction: stored buckets starting before `before` whose start is not a
    /// multiple of `width` are folded into the bucket of that width holding them.
    public struct Fold: Sendable, Hashable {
        /// The width folded into, in seconds.
        public var width: Int64
        /// Buckets starting before this (a multiple of `width`) are folded.
        public var before: Int64
    }

    /// The folds due at `now`: minutes into hours past 48 hours, hours into days past 90 days
    /// (the latter first, so a minute bucket that old goes straight to its day).
    public static func folds(at now: Timestamp) -> [Fold] {
        let seconds = now.secondsSince1970
        return [
            Fold(width: TimelineBucketSize.day.seconds, before: floor(seconds - hourSpan, to: TimelineBucketSize.day.seconds)),
            Fold(width: TimelineBucketSize.hour.seconds, before: floor(seconds - minuteSpan, to: TimelineBucketSize.hour.seconds)),
        ]
    }

    /// The width of a bucket starting at `start` among buckets compacted at `now`
    /// (``compacted(_:at:)``): a day before the day fold, an hour before the hour fold, else a
    /// minute.
    public static func width(ofCompacted start: Timestamp, at now: Timestamp) -> TimelineBucketSize {
        let folds = folds(at: now)
        let seconds = start.secondsSince1970
        if seconds < folds[0].before { return .day }
        if seconds < folds[1].before { return .hour }
        return .minute
    }

    /// The buckets of `size` that `rows` (one poster's stored buckets, any order) add up to,
    /// oldest first, leaving out empty ones. Stored buckets coarser than `size` (older data,
    /// already compacted) stay whole at their own start.
    public static func view(_ rows: [TimelineBucket], size: TimelineBucketSize) -> [TimelineBucket] {
        var sums: [Int64: (Int, Int)] = [:]
        for row in rows {
            let start = floor(row.start.secondsSince1970, to: size.seconds)
            let sum = sums[start] ?? (0, 0)
            sums[start] = (sum.0 + row.good1, sum.1 + row.good2)
        }
        return sums.filter { $0.value != (0, 0) }.sorted { $0.key < $1.key }.map {
            TimelineBucket(start: Timestamp(secondsSince1970: $0.key), good1: $0.value.0, good2: $0.value.1)
        }
    }

    /// `rows` (any posters' stored buckets) with every fold due at `now` applied, as a store
    /// that compacts them holds them; the order of the result is not defined.
    public static func compacted(_ rows: [TimelineRow], at now: Timestamp) -> [TimelineRow] {
        var sums: [TimelineKey: (Int, Int)] = [:]
        let folds = folds(at: now)
        for row in rows {
            var start = row.bucket.start.secondsSince1970
            for fold in folds where start < fold.before {
                start = floor(start, to: fold.width)
            }
            let key = TimelineKey(posterID: row.posterID, start: start)
            let sum = sums[key] ?? (0, 0)
            sums[key] = (sum.0 + row.bucket.good1, sum.1 + row.bucket.good2)
        }
        return sums.map {
            TimelineRow(
                posterID: $0.key.posterID,
                bucket: TimelineBucket(start: Timestamp(secondsSince1970: $0.key.start), good1: $0.value.0, good2: $0.value.1))
        }
    }

    /// A stored bucket's key: its poster and start.
    public struct TimelineKey: Sendable, Hashable, Comparable {
        /// The poster's id.
        public var posterID: Int64
        /// The bucket's start, in seconds since 1970.
        public var start: Int64

        /// A key.
        public init(posterID: Int64, start: Int64) {
            self.posterID = posterID
            self.start = start
        }

        public static func < (lhs: TimelineKey, rhs: TimelineKey) -> Bool {
            (lhs.posterID, lhs.start) < (rhs.posterID, rhs.start)
        }
    }
}
