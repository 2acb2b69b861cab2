import TenbinKit

/// The poster routes of `/api/v1`: pages, search, one poster, new posters, votes, edits and
/// deletes.
extension Routes {
    /// `GET /api/v1/posters?sort=&limit=&cursor=`, from the read cache when the store has not
    /// changed since the same page was encoded.
    func page(_ head: RequestHead) throws -> Reply {
        let query = try APIInput.query(head.rawQuery)
        let key = ReadCache.Key(
            route: .page, order: try APIInput.order(query), limit: try APIInput.limit(query), cursor: APIInput.cursor(query))
        return .now(
            try cachedRead(key, head) {
                Self.pageBody(try gateway.page(order: key.order, limit: key.limit, cursor: key.cursor))
            })
    }

    /// `GET /api/v1/posters/{id}`, cached like pages.
    func poster(_ id: Int64, _ head: RequestHead) throws -> Reply {
        .now(
            try cachedRead(ReadCache.Key(route: .poster(id)), head) {
                let poster = try gateway.poster(id: id)
                return Self.jsonBody { $0.poster(poster) }
            })
    }

    /// `GET /api/v1/search?q=&sort=&limit=&cursor=`: from the read cache, else searched off the
    /// server's threads, since a search can take longer than a page read.
    func search(_ head: RequestHead) throws -> Reply {
        let query = try APIInput.query(head.rawQuery)
        let key = ReadCache.Key(
            route: .search(query["q"] ?? ""), order: try APIInput.order(query), limit: try APIInput.limit(query),
            cursor: APIInput.cursor(query))
        let version = try gateway.changeVersion()
        if let entry = readCache.entry(key, version: version) {
            return .now(Self.readAnswer(entry, head, cache: readCache, key: key, version: version))
        }
        return Self.later { [gateway, readCache] in
            let page = try await gateway.search(query: query["q"] ?? "", order: key.order, limit: key.limit, cursor: key.cursor)
            return Self.readAnswer(
                readCache.store(Self.pageBody(page), for: key, version: version), head, cache: readCache, key: key, version: version)
        }
    }

    /// The answer to a cached read: the entry for `key` under the store's version now, else
    /// `produce`'s body (read after that version), stored for the next request.
    func cachedRead(_ key: ReadCache.Key, _ head: RequestHead, produce: () throws -> [UInt8]) throws -> HTTPResponse {
        let version = try gateway.changeVersion()
        let entry = try readCache.entry(key, version: version) ?? readCache.store(produce(), for: key, version: version)
        return Self.readAnswer(entry, head, cache: readCache, key: key, version: version)
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
    static func readAnswer(
        _ entry: ReadCache.Entry, _ head: RequestHead, cache: ReadCache, key: ReadCache.Key, version: StoreVersion,
        headers: [(name: String, value: String)] = jsonReadHeaders
    ) -> HTTPResponse {
        let compressible = entry.body.count >= Gzip.smallest
        let gzipped =
            compressible && Gzip.accepted(by: head.header("accept-encoding"))
            ? cache.gzipped(entry, for: key, version: version).gzipped.flatMap { $0.isEmpty ? nil : $0 } : nil
        return representation(
            head, body: entry.body, gzipped: gzipped, etag: gzipped == nil ? entry.etag : entry.gzipETag, caching: "no-cache",
            varies: compressible, headers: headers)
    }

    /// A 200 with `body`, or with `gzipped` instead (`Content-Encoding: gzip`; `etag` must then
    /// name the gzipped bytes), or 304 when `If-None-Match` names `etag`. `varies`: whether the
    /// answer depends on `Accept-Encoding` (a body gzip could shrink), which caches must know.
    static func representation(
        _ head: RequestHead, body: [UInt8], gzipped: [UInt8]?, etag: String, caching: String, varies: Bool,
        headers: [(name: String, value: String)]
    ) -> HTTPResponse {
        var validators: [(name: String, value: String)] = [("ETag", etag), ("Cache-Control", caching)]
        if varies { validators.append(("Vary", "Accept-Encoding")) }
        if notModified(head, etag: etag) { return HTTPResponse(status: 304, headers: validators) }
        let encoding: [(name: String, value: String)] = gzipped == nil ? [] : [("Content-Encoding", "gzip")]
        return HTTPResponse(status: 200, headers: headers + encoding + validators, body: .bytes(gzipped ?? body))
    }

    static let jsonReadHeaders: [(name: String, value: String)] = [("Content-Type", "application/json; charset=utf-8")]

    /// `POST /api/v1/posters`: a multipart form with `image1`, `image2`, `contents` and
    /// repeated `hashtags`, validated and re-encoded as `tenbin post` does. The page's own form
    /// sent without JavaScript (a browser navigation) is answered with 303 to the new poster
    /// on the board, or a page naming the problem, instead of JSON.
    func newPoster(_ head: RequestHead) -> Admission {
        let route = "POST /api/v1/posters"
        let type = head.header("content-type")?.lowercased() ?? ""
        let page = head.wantsPage
        let failure: @Sendable (APIError) -> HTTPResponse
        if page {
            failure = { HTTPResponse.errorPage($0, back: "/") }
        } else {
            failure = { HTTPResponse.error($0) }
        }
        guard type.hasPrefix("multipart/form-data") else {
            do {
                try guardWrite(head, json: false, admin: false, limiter: nil, what: "posts")
            } catch {
                return .reply(route, .now(failure(error)))
            }
            return .reply(route, .now(failure(.unsupportedMediaType("a new poster is sent as multipart/form-data"))))
        }
        let upload = configuration.maximumUploadBytes
        let limits = FormLimits(
            maximumBytes: upload, maximumParts: 3 + PosterTextLimits.maximumHashtags,
            maximumFileBytes: min(upload, gateway.maximumImageBytes), maximumFieldBytes: PosterTextLimits.maximumContentsBytes)
        return write(route, head, allowed: "POST", json: false, limiter: postLimiter, what: "posts", limit: .form(limits), failure: failure)
        {
            [self] body throws(APIError) in
            guard case .form(let parts) = body else { throw .badRequest("the body is not a form") }
            let form = try APIInput.posterForm(parts, oneHashtagBox: page)
            let admitted = postsInProgress.withLock { count in
                guard count < configuration.maximumPostsInProgress else { return false }
                count += 1
                return true
            }
            guard admitted else { throw .unavailable("the server is busy storing other posters; try again shortly", retryAfter: 2) }
            let draft = PosterDraft(
                image1: .bytes(form.image1, label: "image1"), image2: .bytes(form.image2, label: "image2"), contents: form.contents,
                hashtags: form.hashtags)
            return Self.later(failure: failure) { [self] in
                defer { postsInProgress.withLock { $0 -= 1 } }
                let poster = try await gateway.post(draft)
                metrics.posterStored()
                if page { return .seeOther("/#poster-\(poster.id)") }
                return .json(JSON.poster(poster), status: 201, headers: [("Location", "/api/v1/posters/\(poster.id)")])
            }
        }
    }

    /// `POST /api/v1/posters/{id}/votes` with `{"side": 1|2, "times": N}` (or the page's form);
    /// answered with the poster once the votes are committed. The vote batcher answers from its own thread
    /// (no task per vote), with JSON written once per poster per commit.
    func vote(_ id: Int64, _ head: RequestHead) -> Admission {
        // The page's own form sends the same vote as `side=1|2`, urlencoded: what a tap does
        // before app.js has arrived, or without JavaScript. It must name this server as its
        // origin, is answered with 303 back to the page at the poster once committed, and a
        // failure with a page naming the problem.
        let form = head.header("content-type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        // A urlencoded body that no browser sent (no page asked for, no Origin or Referer) is a
        // program's JSON vote sent without its type, as `curl -d '{"side": 1}'` sends it: say
        // so in JSON, rather than answer with a page about forms.
        if form, !head.wantsPage, head.header("origin") == nil, head.header("referer") == nil {
            return .reply(
                "POST /api/v1/posters/{id}/votes",
                .now(
                    HTTPResponse.error(
                        .unsupportedMediaType("a vote is JSON sent with Content-Type: application/json, like {\"side\": 1}"))))
        }
        let back = form ? head.returnPath : "/"
        let failure: @Sendable (APIError) -> HTTPResponse
        if form {
            failure = { HTTPResponse.errorPage($0, back: back) }
        } else {
            failure = { HTTPResponse.error($0) }
        }
        return write(
            "POST /api/v1/posters/{id}/votes", head, allowed: "POST", json: !form, originRequired: form, limiter: voteLimiter,
            what: "votes", limit: .bytes(1024), failure: failure
        ) { [self] body throws(APIError) in
            let (side, times) = form ? (try APIInput.formVote(Self.bytes(body)), 1) : try APIInput.vote(Self.bytes(body))
            return .callback { [self] answer in
                do {
                    try gateway.vote(id: id, side: side, times: times) { [self] result in
                        switch result {
                        case .success(let poster):
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
    }

    /// `PATCH /api/v1/posters/{id}` with `{"contents", "hashtags"}` (admin token).
    func edit(_ id: Int64, _ head: RequestHead) -> Admission {
        write(
            "PATCH /api/v1/posters/{id}", head, allowed: "PATCH", json: true, admin: true, limit: .bytes(APIInput.maximumJSONBytes)
        ) { [gateway] body throws(APIError) in
            let (contents, hashtags) = try APIInput.edit(Self.bytes(body))
            return Self.later { .json(JSON.poster(try await gateway.edit(id: id, contents: contents, hashtags: hashtags))) }
        }
    }

    /// `DELETE /api/v1/posters/{id}` (admin token): answered with the deleted poster.
    func delete(_ id: Int64, _ head: RequestHead) -> Admission {
        write("DELETE /api/v1/posters/{id}", head, allowed: "DELETE", json: false, admin: true, limit: .bytes(0)) {
            [gateway] _ throws(APIError) in
            Self.later { .json(JSON.poster(try await gateway.delete(id: id))) }
        }
    }
}
