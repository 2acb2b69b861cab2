import Foundation
import TenbinKit

/// Live feeds for clients that take gzip (every browser): bytes on the wire per event, plain
/// and gzipped, then the server's memory and CPU per vote with 1,000 feeds of each kind open.
extension ServeBenchmark {
    static let wireVotes = 50

    static func feedCompression(board: Board, port: UInt16, server: Child) throws {
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

        var cost = Table("\(feeds) live feeds open", "resident memory", "server CPU per vote", "per feed event")
        for compressed in [false, true] {
            let (rss, cpu) = try feedCost(board: board, port: port, server: server, gzip: compressed)
            cost.add(
                compressed ? "gzip" : "plain", Format.mb(rss), Format.ms(cpu), String(format: "%.1f µs", cpu / Double(feeds) * 1e6))
        }
        cost.print()
        print("\nResident memory of the server with the feeds open (the plain feeds first, closed before the gzip ones are")
        print("opened); CPU from /proc/PID/stat over \(latencyVotes) votes, each sent to every feed.\n")
    }

    /// The server's resident memory with `feeds` feeds open (plus one plain one to watch), and
    /// its CPU seconds per vote while every feed receives each vote's event.
    private static func feedCost(board: Board, port: UInt16, server: Child, gzip: Bool) throws -> (rss: Int, cpu: Double) {
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
        return (rss, cpu)
    }
}
