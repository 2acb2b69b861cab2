import Dispatch
import TenbinKit
import Testing

@testable import TenbinServer

/// The read cache's invalidation and bounds, and the request log's writer thread, alone.
@Suite struct ReadCacheAndLogTests {
    let page = ReadCache.Key(route: "GET /api/v1/posters")

    /// A cache whose change watch listens.
    static func listening(maximumBytes: Int = 1 << 20, maximumEntries: Int = 1024) -> ReadCache {
        let cache = ReadCache(maximumBytes: maximumBytes, maximumEntries: maximumEntries)
        cache.resume()
        return cache
    }

    static func body(_ text: String) -> CachedBody { CachedBody(bytes: Array(text.utf8)) }

    @Test func anEntryAnswersUntilTheStoreChanges() {
        let cache = Self.listening()
        #expect(cache.entry(page) == nil)
        let stored = cache.store(Self.body("{}\n"), for: page, ticket: cache.ticket())
        #expect(cache.entry(page)?.body == stored.body)
        cache.invalidate()
        #expect(cache.entry(page) == nil, "a change drops every entry")
        cache.store(Self.body("{\"a\": 1}\n"), for: page, ticket: cache.ticket())
        #expect(cache.entry(page)?.body == Array("{\"a\": 1}\n".utf8))
        #expect(cache.statistics.hits == 2)
        #expect(cache.statistics.misses == 2)
    }

    @Test func aReadThatStartedBeforeAChangeIsNotKept() {
        let cache = Self.listening()
        let ticket = cache.ticket()
        cache.invalidate()  // a commit while the read ran
        let entry = cache.store(Self.body("{\"old\": true}\n"), for: page, ticket: ticket)
        #expect(entry.body == Array("{\"old\": true}\n".utf8), "the read still answers its own request")
        #expect(cache.entry(page) == nil, "but is not kept for the next one")
    }

    @Test func nothingIsKeptWhileChangesCannotBeHeard() {
        let cache = ReadCache(maximumBytes: 1 << 20)
        cache.store(Self.body("{}\n"), for: page, ticket: cache.ticket())
        #expect(cache.entry(page) == nil, "before the change watch listens")
        cache.resume()
        cache.store(Self.body("{}\n"), for: page, ticket: cache.ticket())
        #expect(cache.entry(page) != nil)
        let ticket = cache.ticket()
        cache.suspend()
        #expect(cache.entry(page) == nil, "losing the change source drops every entry")
        cache.store(Self.body("{}\n"), for: page, ticket: ticket)
        cache.store(Self.body("{}\n"), for: page, ticket: cache.ticket())
        #expect(cache.entry(page) == nil, "and keeps nothing until it is back")
        cache.resume()
        cache.store(Self.body("{}\n"), for: page, ticket: ticket)
        #expect(cache.entry(page) == nil, "a read from before the loss is not kept after it")
    }

    @Test func theCacheStaysWithinItsBoundsAndTagsDifferentBodiesDifferently() {
        let cache = Self.listening(maximumBytes: 4096, maximumEntries: 3)
        func key(_ limit: Int) -> ReadCache.Key { ReadCache.Key(route: "GET /api/v1/posters", query: "limit=\(limit)") }
        for limit in 1...10 {
            cache.store(CachedBody(bytes: [UInt8](repeating: UInt8(limit), count: 500)), for: key(limit), ticket: cache.ticket())
        }
        #expect(cache.statistics.bytes <= 4096)
        #expect(cache.entry(key(10)) != nil, "the newest entry stays")
        let hits = (1...10).filter { cache.entry(key($0)) != nil }
        #expect(hits.count == 3)
        #expect(ReadCache.etag(of: [1, 2]) != ReadCache.etag(of: [1, 3]))
        #expect(ReadCache.etag(of: [1, 2]) == ReadCache.etag(of: [1, 2]))
    }

    @Test func aGzippedBodyIsMadeOnceKeptWithItsEntryAndCountedInTheBytes() {
        let cache = Self.listening()
        let body = Array(String(repeating: "{\"id\": 1, \"contents\": \"猫か犬か\"}\n", count: 100).utf8)
        let stored = cache.store(CachedBody(bytes: body), for: page, ticket: cache.ticket())
        #expect(stored.gzipped == nil, "nothing is compressed before a client asks for gzip")
        #expect(cache.statistics.bytes == body.count)
        let zipped = cache.gzipped(stored, for: page)
        let gzip = zipped.gzipped ?? []
        #expect(gzip.count > 0 && gzip.count < body.count / 10)
        #expect(zipped.gzipETag != stored.etag)
        #expect(cache.entry(page)?.gzipped == gzip, "kept with the entry")
        #expect(cache.statistics.bytes == body.count + gzip.count)
        // A body gzip cannot shrink is marked as tried (empty), not compressed on every request.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (0..<2000).map { _ in
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            return UInt8(truncatingIfNeeded: seed >> 32)
        }
        let key = ReadCache.Key(route: "GET /api/v1/posters", query: "limit=2")
        let tried = cache.gzipped(cache.store(CachedBody(bytes: noise), for: key, ticket: cache.ticket()), for: key)
        #expect(tried.gzipped == [])
        // An entry made before a change is compressed for its caller but not kept.
        cache.invalidate()
        cache.store(CachedBody(bytes: body + [0x0A]), for: page, ticket: cache.ticket())
        #expect(cache.gzipped(stored, for: page).gzipped == gzip)
        #expect(cache.entry(page)?.gzipped == nil)
    }

    @Test func aBlockedLogDropsAndCountsWhatItCannotQueueAndNeverBlocksTheCaller() {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let written = Locked<[String]>([])
        let writer = RequestLogWriter(format: RequestLog(json: false), capacity: 16) { text in
            let first = written.withLock { lines in
                defer { lines += text.split(separator: "\n").map(String.init) }
                return lines.isEmpty
            }
            if first {
                entered.signal()
                release.wait()
            }
        }
        func record(_ index: Int) -> ExchangeRecord {
            ExchangeRecord(
                method: "GET", path: "/\(index)", route: "unmatched", status: 404, bytes: 10, duration: .milliseconds(1), client: "-")
        }
        writer.log(record(0))
        entered.wait()  // the writer is stuck in its sink
        for index in 1...(16 + 5) { writer.log(record(index)) }
        #expect(writer.dropped == 5)
        release.signal()
        writer.finish(timeout: .seconds(30))
        let lines = written.withLock { $0 }
        #expect(lines.count == 17)
        #expect(lines.first?.contains(" GET /0 404 10 1.000ms") == true)
        #expect(lines.last?.contains(" GET /16 404 ") == true)
    }
}
