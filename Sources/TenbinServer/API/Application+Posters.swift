import TenbinKit

/// The poster routes of `/api/v1`: pages, search, one poster, new posters, votes, edits and
/// deletes.
extension Application {
    /// `GET /api/v1/posters?sort=&limit=&cursor=`, a cached read.
    func page(_ request: Request) throws -> CachedBody {
        let query = try request.query()
        let page = try gateway.page(order: try APIInput.order(query), limit: try APIInput.limit(query), cursor: APIInput.cursor(query))
        return CachedBody(bytes: Self.pageBody(page))
    }

    /// `GET /api/v1/posters/{id}`, a cached read.
    func poster(_ request: Request) throws -> CachedBody {
        let poster = try gateway.poster(id: request.poster())
        return CachedBody(bytes: Self.jsonBody { $0.poster(poster) })
    }

    /// `GET /api/v1/posters/{id}/timeline?bucket=minute|hour|day`, a cached read.
    func timeline(_ request: Request) throws -> CachedBody {
        let size = try APIInput.bucket(try request.query())
        let buckets = try gateway.timeline(id: request.poster(), size: size)
        return CachedBody(bytes: Self.jsonBody { $0.timeline(buckets) })
    }

    /// `GET /api/v1/search?q=&sort=&limit=&cursor=`, a cached read.
    func search(_ request: Request) throws -> CachedBody {
        let query = try request.query()
        let page = try gateway.search(
            query: query["q"] ?? "", order: try APIInput.order(query), limit: try APIInput.limit(query), cursor: APIInput.cursor(query))
        return CachedBody(bytes: Self.pageBody(page))
    }

    /// A JSON body with its newline, as ``HTTPResponse/json(_:status:headers:)`` sends it.
    static func jsonBody(_ write: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: 16 << 10)
        write(&writer)
        var bytes = writer.bytes
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    static func pageBody(_ page: BoardGateway.Page) -> [UInt8] {
        jsonBody { $0.page(page.posters, next: page.next) }
    }

    /// A cached read's answer: its body with its entity tag and `headers` (JSON's by default),
    /// or 304 when the client holds it. Clients may keep it but must ask again (`no-cache`):
    /// the next vote changes it. A body of 1 KiB or more goes gzipped to a client that takes
    /// gzip (a page of twenty posters: 8 KB of JSON, 1.3 KB gzipped; 43 KB of HTML, 3.7 KB), a
    /// representation with a validator of its own.
    static func readAnswer(_ entry: ReadCache.Entry, _ head: RequestHead, cache: ReadCache, key: ReadCache.Key) -> HTTPResponse {
        let compressible = entry.body.count >= Gzip.smallest
        let gzipped =
            compressible && Gzip.accepted(by: head.header("accept-encoding"))
            ? cache.gzipped(entry, for: key).gzipped.flatMap { $0.isEmpty ? nil : $0 } : nil
        return representation(
            head, body: entry.body, gzipped: gzipped, etag: gzipped == nil ? entry.etag : entry.gzipETag, caching: "no-cache",
            varies: compressible, alsoVaries: entry.html ? "Accept-Language, Cookie" : nil,
            headers: entry.html ? cachedHTMLHeaders : jsonReadHeaders)
    }

    /// A 200 with `body`, or with `gzipped` instead (`Content-Encoding: gzip`; `etag` must then
    /// name the gzipped bytes), or 304 when `If-None-Match` names `etag`. `varies`: whether the
    /// answer depends on `Accept-Encoding` (a body gzip could shrink), which caches must know;
    /// `alsoVaries`: the other fields it depends on (a page: its language's), in the same `Vary`.
    static func representation(
        _ head: RequestHead, body: [UInt8], gzipped: [UInt8]?, etag: String, caching: String, varies: Bool,
        alsoVaries: String? = nil, headers: [(name: String, value: String)]
    ) -> HTTPResponse {
        var validators: [(name: String, value: String)] = [("ETag", etag), ("Cache-Control", caching)]
        let vary = (varies ? ["Accept-Encoding"] : []) + (alsoVaries.map { [$0] } ?? [])
        if !vary.isEmpty { validators.append(("Vary", vary.joined(separator: ", "))) }
        if notModified(head, etag: etag) { return HTTPResponse(status: 304, headers: validators) }
        let encoding: [(name: String, value: String)] = gzipped == nil ? [] : [("Content-Encoding", "gzip")]
        return HTTPResponse(status: 200, headers: headers + encoding + validators, body: .bytes(gzipped ?? body))
    }

    static let jsonReadHeaders: [(name: String, value: String)] = [("Content-Type", "application/json; charset=utf-8")]

    /// `POST /api/v1/posters`: a multipart form with `image1`, `image2`, `contents` and
    /// repeated `hashtags`, validated and re-encoded as `tenbin post` does. The page's own form
    /// sent without JavaScript (a browser navigation) is answered with 303 to the new poster's
    /// page, or a page naming the problem, instead of JSON.
    func newPoster(_ request: Request, _ body: RequestBody) throws(APIError) -> Reply {
        guard case .form(let parts) = body else { throw .badRequest("the body is not a form") }
        let page = request.answersWithPage
        let form = try APIInput.posterForm(parts, oneHashtagBox: page)
        let admitted = postsInProgress.withLock { count in
            guard count < configuration.maximumPostsInProgress else { return false }
            count += 1
            return true
        }
        guard admitted else { throw .unavailable("the server is busy storing other posters; try again shortly", retryAfter: 2) }
        let draft = PosterDraft(
            image1: .bytes(form.image1, label: "image1"), image2: .bytes(form.image2, label: "image2"), contents: form.contents,
            hashtags: form.hashtags, alt1: form.alt1, alt2: form.alt2)
        return executor.reply(failure: request.failure) { [self] in
            defer { postsInProgress.withLock { $0 -= 1 } }
            let poster: Poster
            do {
                poster = try gateway.post(draft)
            } catch let error as ImageError where error.kind == .invalidInput {
                var refusal = APIError(error)
                refusal.postRefusal = .invalidImage
                throw refusal
            }
            committed()
            metrics.posterStored()
            if page { return .seeOther("/p/\(poster.id)") }
            return .json(JSON.poster(poster), status: 201, headers: [("Location", "/api/v1/posters/\(poster.id)")])
        }
    }

    /// `POST /api/v1/posters/{id}/votes` with `{"side": 1|2, "times": N}`, or the page's form
    /// (`side=1|2`, urlencoded: what a tap sends before app.js has arrived, or without
    /// JavaScript; answered with 303 back to the page at the poster). Answered with the poster
    /// once the votes are committed: the vote batcher answers from its own thread (no task per
    /// vote), with JSON written once per poster per commit. The votes are spent from the
    /// client's budget, all or none, before anything is counted.
    func vote(_ request: Request, _ body: RequestBody) throws(APIError) -> Reply {
        let id = request.poster()
        let form = request.bodyKind == .urlencoded
        let (side, times): (VoteSide, Int)
        switch body {
        case .form(let parts) where form: (side, times) = (try APIInput.formVote(parts), 1)
        default: (side, times) = try APIInput.vote(Self.bytes(body))
        }
        try request.spend(times)
        let back = request.head.returnPath
        let failure = request.failure
        return .callback { [self] answer in
            do {
                try gateway.vote(id: id, side: side, times: times) { [self] result in
                    switch result {
                    case .success(let poster):
                        committed()
                        metrics.votesCommitted(times)
                        answer(form ? .seeOther(back + "#poster-\(id)") : voteAnswers.response(for: poster))
                    case .failure(let error):
                        answer(failure(APIError(error)))
                    }
                }
            } catch {
                answer(failure(APIError(error)))
            }
        }
    }

    /// `PATCH /api/v1/posters/{id}` with `{"contents", "hashtags"}` (admin token).
    func edit(_ request: Request, _ body: RequestBody) throws(APIError) -> Reply {
        let id = request.poster()
        let (contents, hashtags) = try APIInput.edit(Self.bytes(body))
        return executor.reply(failure: request.failure) { [self] in
            let poster = try gateway.edit(id: id, contents: contents, hashtags: hashtags)
            committed()
            return .json(JSON.poster(poster))
        }
    }

    /// `DELETE /api/v1/posters/{id}` (admin token): answered with the deleted poster.
    func delete(_ request: Request, _ body: RequestBody) throws(APIError) -> Reply {
        let id = request.poster()
        return executor.reply(failure: request.failure) { [self] in
            let poster = try gateway.delete(id: id)
            committed()
            return .json(JSON.poster(poster))
        }
    }
}
