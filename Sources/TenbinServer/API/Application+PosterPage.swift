import TenbinKit

/// A poster's own page (`/p/ID`), its preview card (`/p/ID/card.jpg`) and `/oembed`: what a
/// shared link shows.
extension Application {
    /// `GET /p/{id}`: the poster's page (``PosterPage``), or a page saying it is not there
    /// (404) or was deleted (410). Not a cached read: its absolute URLs follow the request's
    /// host when no `--public-url` is set.
    func posterPage(_ request: Request) throws -> Reply {
        guard let id = APIInput.posterID(request.parameters.text("id")) else {
            throw APIError.notFound("there is no poster page here: a poster's page is /p/ followed by its number")
        }
        let (origin, text) = (publicOrigin(request.head), WebText(language: WebLanguage(request.head)))
        return executor.reply(failure: request.failure) { [self] in
            let poster = try shownPoster(id)
            let chart = TimelineChart(try gateway.timeline(id: id, size: .hour), size: .hour, now: gateway.board.configuration.now())
            var page = Self.html(PosterPage(poster: poster, origin: origin, text: text, timeline: chart).html)
            page.headers.append(("Vary", "Accept-Language, Cookie"))  // in the reader's language
            return page
        }
    }

    /// `GET /p/{id}/card.jpg`: the poster's preview card, drawn once per face (see
    /// ``PreviewCards``); its `ETag` names the face, so a client holding the card as it is gets
    /// 304 without a drawing.
    func posterCard(_ request: Request) throws -> Reply {
        let (id, head, failure) = (request.poster(), request.head, request.failure)
        return executor.reply(failure: failure) { [self] answer in
            let poster = try shownPoster(id)
            let etag = PreviewCard.Face(poster).etag
            let headers: [(name: String, value: String)] = [("ETag", etag), ("Cache-Control", Self.cardCaching)]
            if Self.notModified(head, etag: etag) { return answer(HTTPResponse(status: 304, headers: headers)) }
            // The pictures are decoded by the image pipeline's tasks, not on the executor.
            Task { [previewCards] in
                do {
                    let card = try await previewCards.card(for: poster)
                    answer(HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg")] + headers, body: .bytes(card.jpeg)))
                } catch {
                    answer(failure(APIError(error)))
                }
            }
        }
    }

    /// `Cache-Control` of a card: kept a few minutes (a vote may change it), then revalidated.
    static let cardCaching = "public, max-age=300"

    /// `GET /oembed?url=…&format=json[&maxwidth=&maxheight=]`: the oEmbed answer (type `photo`,
    /// the preview card) for a poster page's URL on this board.
    func oembed(_ request: Request) throws -> Reply {
        let query = try request.query()
        if let format = query["format"], format != "json" {
            throw APIError(status: 501, kind: "not_implemented", message: "only format=json is served")
        }
        guard let url = query["url"], let id = posterID(pageURL: url) else {
            throw APIError.notFound("url must be the address of a poster page on this board (…/p/ID)")
        }
        let bounds = (width: try Self.bound(query, "maxwidth"), height: try Self.bound(query, "maxheight"))
        let origin = publicOrigin(request.head)
        return executor.reply(failure: request.failure) { [self] in
            let page = PosterPage(poster: try shownPoster(id), origin: origin)
            return HTTPResponse(
                status: 200, headers: Self.jsonReadHeaders + [("Cache-Control", Self.cardCaching)],
                body: .bytes(page.oembed(maxWidth: bounds.width, maxHeight: bounds.height)))
        }
    }

    /// `maxwidth`/`maxheight`: a whole number of pixels from 1, or nil when absent.
    private static func bound(_ query: QueryString, _ name: String) throws(APIError) -> Int? {
        guard let text = query[name] else { return nil }
        guard text.utf8.count <= 6, let value = Int(text), value >= 1 else {
            throw .badRequest("\(name) must be a whole number of pixels from 1")
        }
        return value
    }

    /// The poster a page URL (`http(s)://HOST/p/ID`, a host this server answers for) names.
    func posterID(pageURL url: String) -> Int64? {
        guard let authority = RequestPolicy.authority(of: url), policy.origins.allows(host: String(authority)),
            let start = url.firstRange(of: authority)?.upperBound
        else { return nil }
        let path = url[start...].prefix { $0 != "?" && $0 != "#" }
        guard path.hasPrefix("/p/") else { return nil }
        var id = path.dropFirst(3)
        if id.hasSuffix("/") { id = id.dropLast() }
        return APIInput.posterID(id)
    }

    /// A poster that pages show: 410 when it was deleted (its id was given, and ids are never
    /// reused), else the board's 404 for one never given.
    func shownPoster(_ id: Int64) throws -> Poster {
        do {
            return try gateway.poster(id: id)
        } catch let error where ErrorKind.of(error) == .notFound {
            // A hidden poster is still in the store (moderators see it): not found, as if it
            // had never been, for the public; only a deleted one is gone.
            if (try? gateway.moderationItem(id: id)) != nil { throw error }
            if try gateway.lastPosterID() >= id {
                throw APIError(status: 410, kind: "gone", message: "poster \(id) was deleted")
            }
            throw error
        }
    }

    /// The origin absolute URLs in pages start with (a preview's image, the canonical URL): the
    /// first `--public-url`, else the request's host, which ``RequestPolicy/checkHost(_:)``
    /// accepted before any route ran (`https` only behind a trusted proxy that says so).
    func publicOrigin(_ head: RequestHead) -> String {
        if let published = policy.origins.published.first { return published.description }
        let https = isHTTPS(head)
        let scheme = https ? "https" : "http"
        // Behind a trusted proxy without --public-url any host is accepted: only a plain name
        // goes into a page.
        guard let host = policy.host(head)?.lowercased(), host.utf8.allSatisfy(Self.isHostByte),
            let (name, port) = PublicOrigins.Origin.split(host[...], scheme: scheme)
        else { return scheme + "://localhost" }
        return PublicOrigins.Origin(scheme: scheme, host: name, port: port).description
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "-.:[]".utf8.contains(byte)
        }
    }
}
