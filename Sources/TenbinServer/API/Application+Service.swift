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
        let feed =
            try query["poster"].map { Feed(poster: try APIInput.posterID(query: $0)) }
            ?? Feed(order: try APIInput.order(query), limit: try APIInput.limit(query), query: query["q"])
        let lastEventID = head.header("last-event-id").map { String($0.prefix(64)) }
        let stream = try feeds.open(
            try gateway.observe(feed), of: feed, lastEventID: lastEventID, gzip: Gzip.accepted(by: head.header("accept-encoding")))
        var headers = [
            ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
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

    /// `GET /readyz`: 200 when the board takes writes (the store answers, and the blob folder
    /// exists and takes a probe file, written, flushed and removed), else 503 with the reason.
    /// Probed at most once a second: a load balancer asking often costs one probe.
    func readiness() -> Reply {
        let now = ContinuousClock.now
        if let last = lastReadiness.withLock({ $0 }), now - last.at < .seconds(1) { return .now(last.answer) }
        return executor.reply(failure: HTTPResponse.error) { [self] in
            var answer: HTTPResponse
            do {
                try gateway.checkReady()
                answer = .json("{\"status\": \"ready\"}")
            } catch {
                var refusal = APIError.unavailable("not ready: " + Self.readinessReason(error))
                refusal.cause = "\(error)"
                answer = .error(refusal)
            }
            lastReadiness.withLock { $0 = (ContinuousClock.now, answer) }
            return answer
        }
    }

    /// What an operator reads in `/readyz`'s 503: whether the blob folder or the store failed,
    /// without paths or database details (the log has those).
    static func readinessReason(_ error: any Error) -> String {
        guard let blob = error as? BlobError else { return "the store does not answer" }
        switch blob.operation {
        case .create: return "the blob folder does not exist"
        case .write, .flush, .remove: return "the blob folder does not take a write (full, read-only or not permitted)"
        case .read, .list: return "the blob folder cannot be read"
        }
    }

    /// `GET /metrics` in Prometheus' text format.
    func metricsText() -> HTTPResponse {
        let exchanges = exchangesInProgress.withLock { $0 }?() ?? 0
        return .text(
            metrics.render(
                feeds: feeds.count, thumbnails: thumbnails.statistics, exchanges: exchanges, reads: readCache.statistics,
                logLinesDropped: log?.dropped ?? 0, cardFileFailures: previewCards.files?.failures.withLock { $0 } ?? 0,
                process: .current()) + gateway.board.store.metricsText,
            contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}
