import TenbinKit

/// Live feeds, health and metrics.
extension Application {
    /// `GET /api/v1/feed?sort=&limit=&q=`: a server-sent event stream. A connection starts with
    /// a snapshot, or, when it names with `Last-Event-ID` an event this server sent for the same
    /// feed and still remembers, with just the changes since that event. Compressed (one endless
    /// gzip member, each event flushed) for a client whose `Accept-Encoding` takes gzip.
    func feed(_ request: Request) throws -> Reply {
        let head = request.head
        let query = try request.query()
        let feed = Feed(order: try APIInput.order(query), limit: try APIInput.limit(query), query: query["q"])
        let lastEventID = head.header("last-event-id").map { String($0.prefix(64)) }
        let stream = try feeds.open(
            try gateway.observe(feed), of: feed, lastEventID: lastEventID, gzip: Gzip.accepted(by: head.header("accept-encoding")))
        var headers = [
            ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
            // nginx would otherwise hold events back in its buffer.
            ("X-Accel-Buffering", "no"), ("Vary", "Accept-Encoding"),
        ]
        if stream.isCompressed { headers.append(("Content-Encoding", "gzip")) }
        return .now(HTTPResponse(status: 200, headers: headers, body: .events(stream)))
    }

    /// `GET /healthz`: 200 when the store answers, else 503.
    func health() -> Reply {
        executor.reply(failure: HTTPResponse.error) { [gateway] in
            do {
                let count = try gateway.checkHealth()
                return .json("{\"status\": \"ok\", \"posters\": \(count)}")
            } catch {
                return .error(.unavailable("the store does not answer"))
            }
        }
    }

    /// `GET /metrics` in Prometheus' text format.
    func metricsText() -> HTTPResponse {
        let exchanges = exchangesInProgress.withLock { $0 }?() ?? 0
        return .text(
            metrics.render(
                feeds: feeds.count, thumbnails: thumbnails.statistics, exchanges: exchanges, reads: readCache.statistics,
                logLinesDropped: log?.dropped ?? 0),
            contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}
