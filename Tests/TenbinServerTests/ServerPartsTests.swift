import TenbinKit
import Testing

@testable import TenbinServer

/// Thumbnails, the event stream buffer, the log line and the metrics text, alone.
@Suite struct ServerPartsTests {
    /// A 400×200 JPEG made by the codec itself.
    static let jpeg: [UInt8] = {
        var pixels: [UInt8] = []
        for y in 0..<200 { for x in 0..<400 { pixels += [UInt8(x % 256), UInt8(y), 128] } }
        // The codec encodes any pixel buffer it is given; a failure here is a broken test setup.
        return try! ImageCodec().encode(PixelBuffer(width: 400, height: 200, channels: 3, pixels: pixels), source: "test").bytes
    }()

    @Test func aVoteAnswerIsTheCommandLinesJSONWithTheNewCountsAndNeverStale() throws {
        let image = StoredImage(digest: Digest(of: Array("a".utf8)), format: .jpeg, width: 4, height: 3, bytes: 10)
        var poster = Poster(
            id: 3, contents: "猫か犬か", hashtags: ["猫"], good1: 1, good2: 0, createdAt: Timestamp(secondsSince1970: 1),
            images: [image, image])
        let answers = VoteAnswers()
        func text(_ response: HTTPResponse) -> String {
            guard case .bytes(let bytes) = response.body else { return "" }
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(text(answers.response(for: poster)) == JSON.poster(poster) + "\n")
        #expect(text(answers.response(for: poster)) == JSON.poster(poster) + "\n")
        // A vote moves the counts and the trending score (which the JSON does not show).
        poster.good2 = 5
        poster.trendingScore = 7_000
        #expect(text(answers.response(for: poster)).contains("\"good2\": 5"))
        #expect(text(answers.response(for: poster)) == JSON.poster(poster) + "\n")
        #expect(answers.writes.withLock { $0 } == 1, "new counts reuse the poster's JSON")
        poster.contents = "犬か猫か"
        #expect(text(answers.response(for: poster)) == JSON.poster(poster) + "\n")
        poster.contents = #"{"good1": 0, "good2": 0}"#
        poster.hashtags = [#""good2": 0"#]
        (poster.good1, poster.good2) = (1_234_567, 89)
        #expect(text(answers.response(for: poster)) == JSON.poster(poster) + "\n")
        poster.good1 += 1
        #expect(text(answers.response(for: poster)) == JSON.poster(poster) + "\n")
        #expect(answers.writes.withLock { $0 } == 3, "an edit writes the JSON again")
        // Sent as any JSON answer is, security headers and all.
        let sent = SecurityHeaders.complete(answers.response(for: poster))
        #expect(sent.headers.map(\.name) == SecurityHeaders.complete(HTTPResponse.json("")).headers.map(\.name))
        for id in 0..<Int64(VoteAnswers.capacity + 10) {
            let other = Poster(
                id: id + 100, contents: poster.contents, hashtags: poster.hashtags, good1: 0, good2: 0, createdAt: poster.createdAt,
                images: poster.images)
            #expect(text(answers.response(for: other)) == JSON.poster(other) + "\n")
        }
        #expect(text(answers.response(for: poster)) == JSON.poster(poster) + "\n")
    }

    @Test func concurrentRequestsForOneThumbnailDecodeOnceAndAreCachedEncoded() async throws {
        let decodes = Locked(0)
        let codec = ImageCodec()
        let pipeline = ImagePipeline(
            ImagePipeline.Configuration(
                cache: LRUCache<ImageRequest, PixelBuffer>(limits: CacheLimits(bytes: 0, count: 0)), maxConcurrentLoads: 2,
                read: { _ in
                    try await Task.sleep(for: .milliseconds(50))
                    return Self.jpeg
                },
                decode: { bytes, request in
                    decodes.withLock { $0 += 1 }
                    return try codec.decode(bytes, size: request.size, source: "test")
                }))
        let thumbnails = Thumbnails(pipeline: pipeline, cacheBytes: 1 << 20)
        let key = Thumbnails.Key(digest: Digest(of: Self.jpeg), width: 160)
        let results = try await withThrowingTaskGroup(of: Thumbnails.Encoded.self) { group in
            for _ in 0..<8 { group.addTask { try await thumbnails.thumbnail(key) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(decodes.withLock { $0 } == 1)
        #expect(Set(results).count == 1)
        #expect(results[0].width == 160)
        #expect(results[0].height == 80)
        #expect(results[0].mediaType == "image/jpeg")
        #expect(thumbnails.cached(key) == results[0])
        _ = try await thumbnails.thumbnail(Thumbnails.Key(digest: key.digest, width: 320))
        #expect(decodes.withLock { $0 } == 2)
        // The WebP variant is a thumbnail of its own, of the same size.
        let webp = try await thumbnails.thumbnail(Thumbnails.Key(digest: key.digest, width: 160, webp: true))
        #expect(webp.mediaType == "image/webp" && webp.width == 160 && webp.height == 80)
        #expect(thumbnails.statistics.totalCost > 0)
    }

    @Test func anEventStreamBuffersUntilReadAndGivesUpOnASlowReader() {
        let stream = EventStream(maximumBuffered: 64)
        #expect(stream.send("event: a\ndata: 1\n\n"))
        var buffer = [CChar](repeating: 0, count: 8)
        let first = stream.read(into: &buffer, capacity: 8)
        #expect(first == 8)
        #expect(String(decoding: buffer.map { UInt8(bitPattern: $0) }, as: UTF8.self) == "event: a")
        var rest = [CChar](repeating: 0, count: 100)
        #expect(stream.read(into: &rest, capacity: 100) == 10)
        #expect(!stream.send(String(repeating: "x", count: 65)), "more than the reader can fall behind by ends the stream")
        #expect(stream.read(into: &rest, capacity: 100) == -1)
        let closed = Locked(false)
        let other = EventStream()
        other.onClose { closed.withLock { $0 = true } }
        other.detach()
        #expect(closed.withLock { $0 })
        #expect(!other.send("late"))
    }

    @Test func logLinesSayMethodPathStatusBytesAndMilliseconds() {
        let record = ExchangeRecord(
            method: "GET", path: "/api/v1/posters\u{1B}[2J", route: "GET /api/v1/posters", status: 200, bytes: 123,
            duration: .microseconds(1500), client: "127.0.0.1")
        let text = RequestLog(json: false).line(for: record)
        #expect(text.hasSuffix(" 127.0.0.1 GET /api/v1/posters?[2J 200 123 1.500ms"), "\(text)")
        let json = RequestLog(json: true).line(for: record)
        #expect(
            json.contains(#""method": "GET", "path": "/api/v1/posters\u001b[2J", "status": 200, "bytes": 123, "ms": 1.500}"#), "\(json)")
        var unanswered = record
        unanswered.status = 0
        unanswered.bytes = nil
        #expect(RequestLog(json: true).line(for: unanswered).contains(#""status": null, "bytes": null"#))
    }

    @Test func logLinesKeepTheTimeToTheMillisecondAndShowOnlyUnsafeCharactersAsMarks() {
        let record = ExchangeRecord(
            method: "GET", path: "/t/%E7%8C%AB/猫\u{202E}gpj.exe\u{7F}", route: "GET /t/{tag}", status: 0, bytes: nil,
            duration: .microseconds(12_345_678), client: "::1")
        // 2026-12-06T07:05:09.007Z, and an instant before 1970 (the millisecond counts up from
        // the second before it).
        let time = LogTime(millisecondsSince1970: 1_796_540_709_007)
        #expect(time.description == "2026-12-06T07:05:09.007Z")
        #expect(LogTime(millisecondsSince1970: -1).description == "1969-12-31T23:59:59.999Z")
        #expect(LogTime(millisecondsSince1970: 1_796_540_709_120).description == "2026-12-06T07:05:09.120Z")
        let text = RequestLog(json: false).line(for: record, finished: time)
        #expect(text == "2026-12-06T07:05:09.007Z ::1 GET /t/%E7%8C%AB/猫?gpj.exe? - - 12345.678ms", "\(text)")
        // An ASCII path too: DEL is a control character.
        var ascii = record
        ascii.path = "/a\u{7F}b~"
        #expect(RequestLog(json: false).line(for: ascii, finished: time).contains(" GET /a?b~ - - "))
        var answered = record
        (answered.status, answered.bytes, answered.duration) = (404, 0, .nanoseconds(400))
        #expect(RequestLog(json: false).line(for: answered, finished: time).hasSuffix(" 404 0 0.000ms"))
        let json = RequestLog(json: true).line(for: answered, finished: time)
        #expect(json.hasPrefix(#"{"time": "2026-12-06T07:05:09.007Z", "client": "::1""#), "\(json)")
        #expect(json.hasSuffix(#""status": 404, "bytes": 0, "ms": 0.000}"#), "\(json)")
    }

    @Test func aServerFailureTellsTheOperatorWhyAndTheClientOnlyThatItFailed() {
        struct DiskTrouble: Error, CustomStringConvertible {
            var description: String { "cannot create the blob folder /srv/board/blobs:\nNo such file or directory" }
        }
        let error = APIError(DiskTrouble())
        #expect(error.status == 500)
        #expect(!HTTPResponse.errorJSON(error).contains("blob folder"))
        let response = HTTPResponse.error(error)
        let record = ExchangeRecord(
            method: "POST", path: "/api/v1/posters", route: "POST /api/v1/posters", status: response.status, bytes: 1,
            duration: .milliseconds(2), client: "127.0.0.1", cause: response.cause)
        let text = RequestLog(json: false).line(for: record)
        let cause = "error: cannot create the blob folder /srv/board/blobs:?No such file or directory"
        #expect(text.hasSuffix(" 500 1 2.000ms " + cause), "\(text)")
        let json = RequestLog(json: true).line(for: record)
        #expect(json.contains(#""error": "cannot create the blob folder /srv/board/blobs:\nNo such file or directory""#), "\(json)")
    }

    @Test func metricsAreInPrometheusTextFormat() {
        let metrics = Metrics()
        metrics.record(
            ExchangeRecord(method: "GET", path: "/", route: "GET /", status: 200, bytes: 1, duration: .milliseconds(3), client: "-"))
        metrics.record(
            ExchangeRecord(method: "GET", path: "/x", route: "unmatched", status: 404, bytes: 1, duration: .seconds(9), client: "-"))
        metrics.votesCommitted(5)
        let text = metrics.render(
            feeds: 2, thumbnails: CacheStatistics(hits: 1, misses: 2, evictions: 0, count: 1, totalCost: 10), exchanges: 0)
        #expect(text.contains("tenbin_http_requests_total{route=\"GET /\",status=\"200\"} 1\n"))
        #expect(text.contains("tenbin_http_request_duration_seconds_bucket{le=\"0.0025\"} 0\n"))
        #expect(text.contains("tenbin_http_request_duration_seconds_bucket{le=\"0.005\"} 1\n"))
        #expect(text.contains("tenbin_http_request_duration_seconds_bucket{le=\"+Inf\"} 2\n"))
        #expect(text.contains("tenbin_http_request_duration_seconds_count 2\n"))
        #expect(text.contains("tenbin_votes_committed_total 5\n"))
        #expect(text.contains("tenbin_live_feeds 2\n"))
        #expect(text.contains("tenbin_thumbnail_cache_misses_total 2\n"))
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.split(separator: " ").last.flatMap { Double($0) } != nil, "a sample ends in its value: \(line)")
        }
    }
}

@Suite struct VoteAnswerDigitsTests {
    @Test func countsAreWrittenAsStringWritesThem() {
        for value in [0, 1, 9, 10, 99, 100, 1_234_567, Int.max, -1, -90, Int.min] {
            var body: [UInt8] = [UInt8(ascii: ":")]
            VoteAnswers.appendDecimal(value, to: &body)
            #expect(String(decoding: body, as: UTF8.self) == ":" + String(value), "\(value)")
        }
    }
}
