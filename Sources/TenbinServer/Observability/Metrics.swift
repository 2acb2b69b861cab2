import TenbinKit

/// Counters for `GET /metrics`, in Prometheus' text format: requests by route and status, a
/// latency histogram, votes committed, posts refused by reason, live feeds open, thumbnail cache
/// hits; the build's version and the process's own statistics.
final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct RequestKey: Hashable {
        var route: String
        var status: Int
    }

    private struct State {
        var requests: [RequestKey: Int] = [:]
        /// Counts per bucket (not cumulative); the last is +Inf.
        var buckets = [Int](repeating: 0, count: Metrics.bounds.count + 1)
        var latencySum = 0.0
        var latencyCount = 0
        var votes = 0
        var posts = 0
        var refusedPosts: [PostRefusal: Int] = [:]
    }

    // Every counter is read and written under this lock.
    private let state = Locked(State())

    /// Counts a finished exchange.
    func record(_ record: ExchangeRecord) {
        let seconds = Double(record.duration.components.seconds) + Double(record.duration.components.attoseconds) / 1e18
        let bucket = Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count
        state.withLock { state in
            state.requests[RequestKey(route: record.route, status: record.status), default: 0] += 1
            state.buckets[bucket] += 1
            state.latencySum += seconds
            state.latencyCount += 1
        }
    }

    /// Counts votes committed.
    func votesCommitted(_ count: Int) {
        state.withLock { $0.votes += count }
    }

    /// Counts a poster stored.
    func posterStored() {
        state.withLock { $0.posts += 1 }
    }

    /// Counts a post refused.
    func postRefused(_ reason: PostRefusal) {
        state.withLock { $0.refusedPosts[reason, default: 0] += 1 }
    }

    /// The exposition text, with the gauges read from elsewhere.
    func render(
        feeds: Int, thumbnails: CacheStatistics, exchanges: Int, reads: ReadCache.Statistics = .init(), logLinesDropped: Int = 0,
        cardFileFailures: Int = 0, process: ProcessStatistics = ProcessStatistics()
    ) -> String {
        let snapshot = state.withLock { $0 }
        var out = "# HELP tenbin_http_requests_total HTTP requests answered, by route and status.\n"
        out += "# TYPE tenbin_http_requests_total counter\n"
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            out += "tenbin_http_requests_total{route=\"\(Self.label(key.route))\",status=\"\(key.status)\"} \(count)\n"
        }
        out += "# HELP tenbin_http_request_duration_seconds Time from request line to the end of the answer.\n"
        out += "# TYPE tenbin_http_request_duration_seconds histogram\n"
        var cumulative = 0
        for (index, bound) in Self.bounds.enumerated() {
            cumulative += snapshot.buckets[index]
            out += "tenbin_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        cumulative += snapshot.buckets[Self.bounds.count]
        out += "tenbin_http_request_duration_seconds_bucket{le=\"+Inf\"} \(cumulative)\n"
        out += "tenbin_http_request_duration_seconds_sum \(snapshot.latencySum)\n"
        out += "tenbin_http_request_duration_seconds_count \(snapshot.latencyCount)\n"
        out += Self.single("tenbin_votes_committed_total", "counter", "Votes committed through the API.", snapshot.votes)
        out += Self.single("tenbin_posters_created_total", "counter", "Posters created through the API.", snapshot.posts)
        out += "# HELP tenbin_posts_refused_total New posters refused through the API, by reason.\n"
        out += "# TYPE tenbin_posts_refused_total counter\n"
        // Every reason, counted or not: a rate of a series that appears only on its first
        // refusal misses that refusal.
        for reason in PostRefusal.allCases {
            out += "tenbin_posts_refused_total{reason=\"\(reason.rawValue)\"} \(snapshot.refusedPosts[reason] ?? 0)\n"
        }
        out += Self.single("tenbin_live_feeds", "gauge", "Live feed (server-sent event) connections open.", feeds)
        out += Self.single("tenbin_http_exchanges_in_progress", "gauge", "Requests being answered now.", exchanges)
        out += Self.single("tenbin_thumbnail_cache_hits_total", "counter", "Thumbnails answered from the cache.", thumbnails.hits)
        out += Self.single("tenbin_thumbnail_cache_misses_total", "counter", "Thumbnails not in the cache.", thumbnails.misses)
        out += Self.single("tenbin_thumbnail_cache_bytes", "gauge", "Bytes of encoded thumbnails cached.", thumbnails.totalCost)
        out += Self.single(
            "tenbin_read_cache_hits_total", "counter", "JSON reads (pages, searches, posters) answered from the cache.", reads.hits)
        out += Self.single("tenbin_read_cache_misses_total", "counter", "JSON reads encoded from the store.", reads.misses)
        out += Self.single("tenbin_read_cache_bytes", "gauge", "Bytes of encoded JSON reads cached.", reads.bytes)
        out += Self.single(
            "tenbin_preview_card_file_failures_total", "counter",
            "Preview cards that could not be kept on disk (served from memory): a cards folder read-only, full or not permitted.",
            cardFileFailures)
        out += Self.single(
            "tenbin_log_lines_dropped_total", "counter", "Request log lines dropped because the log could not keep up.", logLinesDropped)
        out += "# HELP tenbin_build_info The version of tenbin serving, as tenbin --version prints it.\n"
        out += "# TYPE tenbin_build_info gauge\n"
        out += "tenbin_build_info{version=\"\(Self.label(TenbinVersion.current))\"} 1\n"
        if let start = process.startTimeSeconds {
            out += "# HELP process_start_time_seconds Start time of the process since the Unix epoch in seconds.\n"
            out += "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds \(start)\n"
        }
        if let resident = process.residentMemoryBytes {
            out += Self.single("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", resident)
        }
        if let descriptors = process.openDescriptors {
            out += Self.single("process_open_fds", "gauge", "Number of open file descriptors.", descriptors)
        }
        return out
    }

    private static func single(_ name: String, _ type: String, _ help: String, _ value: Int) -> String {
        "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
    }

    /// A label value with `\`, `"` and newlines escaped.
    private static func label(_ text: String) -> String { PrometheusLabel.escaped(text) }
}
