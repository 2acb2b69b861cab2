import Foundation
import TenbinKit

/// Live feeds for clients that take gzip (every browser): bytes on the wire per event, plain
/// and gzipped, then the server's memory and CPU per vote with 1,000 feeds of each kind open.
extension ServeBenchmark {
    static let wireVotes = 50

    static func feedCompression(board: Board, port: UInt16, server: Child) throws {
        try wireBytes(board: board, port: port)
        var cost = Table("\(feeds) live feeds open", "resident memory", "growth per feed", "server CPU per vote", "per feed event")
        for compressed in [false, true] {
            let (rss, growth, cpu) = try feedCost(board: board, port: port, server: server, gzip: compressed)
            cost.add(
                compressed ? "gzip" : "plain", Format.mb(rss), String(format: "%.1f KB", Double(growth) / Double(feeds) / 1000),
                Format.ms(cpu), Format.microseconds(cpu / Double(feeds)))
        }
        cost.print()
        print("\nResident memory of the server with the feeds open, and its growth while they opened (the plain feeds")
        print("first; each kind opened once the server had let go of every earlier feed, so memory they freed is reused);")
        print("CPU from /proc/PID/stat over \(latencyVotes) votes, each sent to every feed.\n")
    }

    /// Bytes per event on one plain and one gzipped feed, both open while the same votes land.
    private static func wireBytes(board: Board, port: UInt16) throws {
        let path = "/api/v1/feed?sort=new&limit=20"
        let shown = try board.posters(order: .new, limit: 20, offset: 0).map(\.id)
        let plain = try FeedStream(port: port, path: path)
        let gzip = try FeedStream(port: port, path: path, gzip: true)
        try plain.read(until: "snapshot", within: 30)
        // The compressed stream cannot be searched for a marker: it is read for as long as the
        // plain one plus a margin (loopback, an idle server: everything has arrived by then).
        try plain.drain(for: 0.5)
        try gzip.drain(for: 1)
        var table = Table("live feed, bytes on the wire", "plain", "gzip", "ratio")
        table.add(
            "head, retry line and snapshot (20 posters)", String(plain.received), String(gzip.received),
            Format.ratio(Double(gzip.received) / Double(plain.received)))

        var random = SystemRandomNumberGenerator()
        for (name, hot) in [("spread over the 20 posters shown", false), ("one hot poster", true)] {
            let before = (plain.received, gzip.received)
            for _ in 0..<wireVotes {
                let id = hot ? shown[0] : shown.randomElement(using: &random)!  // the feed shows 20 posters
                _ = try board.vote(id: id, side: .first)
                try plain.read(until: "\"type\": \"modified\", \"id\": \(id),", within: 10)
            }
            try plain.drain(for: 0.5)
            try gzip.drain(for: 1)
            let plainBytes = Double(plain.received - before.0) / Double(wireVotes)
            let gzipBytes = Double(gzip.received - before.1) / Double(wireVotes)
            table.add(
                "modified event, votes \(name)", Format.number(plainBytes, digits: 0), Format.number(gzipBytes, digits: 0),
                Format.ratio(gzipBytes / plainBytes))
        }
        table.print()
        print("\nMeans over \(wireVotes) votes, one event each, chunk framing included. One gzip stream per feed: a 2 KiB window and")
        print("memLevel 2 (16 KB of zlib state), each event flushed (Z_SYNC_FLUSH).\n")
    }

    /// Waits until the server counts no live feed open: a client that left is noticed when its
    /// socket hangs up, and its feed's memory is freed then.
    private static func waitForFeedsClosed(port: UInt16) throws {
        for _ in 0..<100 {
            let metrics = String(decoding: try LoopbackHTTP.get(port: port, "/metrics").body, as: UTF8.self)
            if metrics.split(separator: "\n").contains("tenbin_live_feeds 0") { return }
            usleep(300_000)
        }
        throw BenchError("the server still counts live feeds open 30 s after they were closed")
    }

    /// The server's resident memory with `feeds` feeds open (plus one plain one to watch), its
    /// growth while they opened, and its CPU seconds per vote while every feed receives each
    /// vote's event.
    private static func feedCost(board: Board, port: UInt16, server: Child, gzip: Bool) throws -> (rss: Int, growth: Int, cpu: Double) {
        try waitForFeedsClosed(port: port)
        let start = LiveBenchmark.residentBytes(of: server.pid)
        let path = "/api/v1/feed?sort=new&limit=20"
        var streams: [FeedStream] = []
        for _ in 0..<feeds {
            streams.append(try FeedStream(port: port, path: path, gzip: gzip))
        }
        let watched = try FeedStream(port: port, path: path)
        try watched.read(until: "snapshot", within: 30)
        // A compressed snapshot of 20 posters is over 1,000 bytes.
        for stream in streams { try stream.read(atLeast: 1000, within: 30) }
        let rss = LiveBenchmark.residentBytes(of: server.pid)
        let before = try LiveBenchmark.statSeconds(of: server.pid)
        _ = try voteToFeed(board: board, watched: watched, votes: latencyVotes)
        let cpu = (try LiveBenchmark.statSeconds(of: server.pid) - before) / Double(latencyVotes)
        return (rss, rss - start, cpu)
    }
}
