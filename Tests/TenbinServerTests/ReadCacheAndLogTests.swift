import Dispatch
import TenbinKit
import Testing

@testable import TenbinServer

/// The read cache's versioning and bounds, and the request log's writer thread, alone.
@Suite struct ReadCacheAndLogTests {
    let page = ReadCache.Key(route: .page, order: .new, limit: 20, cursor: nil)

    @Test func anEntryAnswersOnlyTheVersionItWasMadeUnder() {
        let cache = ReadCache(maximumBytes: 1 << 20)
        #expect(cache.entry(page, version: StoreVersion(1)) == nil)
        let stored = cache.store(Array("{}\n".utf8), for: page, version: StoreVersion(1))
        #expect(cache.entry(page, version: StoreVersion(1))?.body == stored.body)
        #expect(cache.entry(page, version: StoreVersion(2)) == nil, "a newer version is never answered from an older read")
        cache.store(Array("{\"a\": 1}\n".utf8), for: page, version: StoreVersion(2))
        #expect(cache.entry(page, version: StoreVersion(1)) == nil, "storing under a new version drops the old entries")
        #expect(cache.entry(page, version: StoreVersion(2))?.body == Array("{\"a\": 1}\n".utf8))
        #expect(cache.statistics.hits == 2)
        #expect(cache.statistics.misses == 3)
    }

    @Test func theCacheStaysWithinItsBoundsAndTagsDifferentBodiesDifferently() {
        let cache = ReadCache(maximumBytes: 4096, maximumEntries: 3)
        for limit in 1...10 {
            cache.store(
                [UInt8](repeating: UInt8(limit), count: 500), for: ReadCache.Key(route: .page, limit: limit), version: StoreVersion(7))
        }
        #expect(cache.statistics.bytes <= 4096)
        #expect(cache.entry(ReadCache.Key(route: .page, limit: 10), version: StoreVersion(7)) != nil, "the newest entry stays")
        let hits = (1...10).filter { cache.entry(ReadCache.Key(route: .page, limit: $0), version: StoreVersion(7)) != nil }
        #expect(hits.count == 3)
        #expect(ReadCache.etag(of: [1, 2]) != ReadCache.etag(of: [1, 3]))
        #expect(ReadCache.etag(of: [1, 2]) == ReadCache.etag(of: [1, 2]))
    }

    @Test func aGzippedBodyIsMadeOnceKeptWithItsEntryAndCountedInTheBytes() {
        let cache = ReadCache(maximumBytes: 1 << 20)
        let body = Array(String(repeating: "{\"id\": 1, \"contents\": \"猫か犬か\"}\n", count: 100).utf8)
        let stored = cache.store(body, for: page, version: StoreVersion(3))
        #expect(stored.gzipped == nil, "nothing is compressed before a client asks for gzip")
        #expect(cache.statistics.bytes == body.count)
        let zipped = cache.gzipped(stored, for: page, version: StoreVersion(3))
        let gzip = zipped.gzipped ?? []
        #expect(gzip.count > 0 && gzip.count < body.count / 10)
        #expect(zipped.gzipETag != stored.etag)
        #expect(cache.entry(page, version: StoreVersion(3))?.gzipped == gzip, "kept with the entry")
        #expect(cache.statistics.bytes == body.count + gzip.count)
        // A body gzip cannot shrink is marked as tried (empty), not compressed on every request.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (0..<2000).map { _ in
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            return UInt8(truncatingIfNeeded: seed >> 32)
        }
        let key = ReadCache.Key(route: .page, limit: 2)
        let tried = cache.gzipped(cache.store(noise, for: key, version: StoreVersion(3)), for: key, version: StoreVersion(3))
        #expect(tried.gzipped == [])
        // An entry of an older version is compressed for its caller but not kept.
        cache.store(body, for: page, version: StoreVersion(4))
        #expect(cache.gzipped(stored, for: page, version: StoreVersion(3)).gzipped == gzip)
        #expect(cache.entry(page, version: StoreVersion(4))?.gzipped == nil)
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
