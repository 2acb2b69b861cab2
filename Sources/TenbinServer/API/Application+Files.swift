import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// Images, thumbnails, the web page and its static files.
extension Application {
    /// Headers of content-addressed answers: cached for a year, never revalidated.
    static func immutable(etag: String) -> [(name: String, value: String)] {
        [("ETag", etag), ("Cache-Control", immutableCaching)]
    }

    /// Whether `If-None-Match` names `etag` (or is `*`).
    static func notModified(_ head: RequestHead, etag: String) -> Bool {
        guard let header = head.header("if-none-match") else { return false }
        return header.split(separator: ",").contains { tag in
            let tag = tag.trimmingCharacters
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// `GET /blobs/{digest}`: the stored bytes, sent from the file by libmicrohttpd (with
    /// sendfile); the digest's file and format come from memory after the first request, which
    /// looks them up on the board executor.
    func blob(_ request: Request) throws -> Reply {
        let hex = request.parameters.text("digest")
        guard let digest = Digest(hex: String(hex)) else { throw APIError.notFound("that is not a blob digest (64 hex digits)") }
        if let file = blobFiles.known(digest) { return .now(try blobAnswer(digest, file, request.head)) }
        return executor.reply(failure: request.failure) { [self] in
            try blobAnswer(digest, try blobFiles.file(digest) { try gateway.blob(digest) }, request.head)
        }
    }

    /// The answer for a blob whose file is known: 304, its bytes from memory, or the open file
    /// (whose bytes are then kept, when small enough).
    private func blobAnswer(_ digest: Digest, _ file: BlobFiles.File, _ head: RequestHead) throws -> HTTPResponse {
        // Made only when needed: most requests send no If-None-Match, and a kept answer has its own.
        var etag: String { "\"" + digest.hex + "\"" }
        if head.header("if-none-match") != nil, Self.notModified(head, etag: etag) {
            return HTTPResponse(status: 304, headers: Self.immutable(etag: etag))
        }
        if let kept = file.kept {
            // The bytes never change (the digest names them), but a delete or gc removes the file,
            // and then the image is gone, as it is for an answer from the file.
            guard file.exists else { throw blobUnreadable(digest) }
            return kept.answer
        }
        let headers = [("Content-Type", Self.mediaType(file.format)), ("ETag", etag), ("Cache-Control", Self.immutableCaching)]
        let descriptor = file.path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw blobUnreadable(digest) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            _ = close(descriptor)  // read-only; nothing to lose
            throw APIError(status: 500, kind: "internal", message: "the image \(digest.hex) cannot be read")
        }
        let size = Int(info.st_size)
        if blobFiles.keeps(size), let bytes = SharedBytes(reading: descriptor, count: size) {
            _ = close(descriptor)  // read-only; nothing to lose
            let kept = PreparedResponse(status: 200, headers: headers, bytes: bytes)
            blobFiles.keep(digest, kept)
            return kept.answer
        }
        return HTTPResponse(status: 200, headers: headers, body: .file(descriptor: descriptor, size: size))
    }

    /// Why a blob's file cannot be opened (`errno`): gone (deleted since it was looked up, like
    /// any missing image, and forgotten), or unreadable.
    private func blobUnreadable(_ digest: Digest) -> APIError {
        guard errno == ENOENT else { return APIError(status: 500, kind: "internal", message: "the image \(digest.hex) cannot be read") }
        blobFiles.forget(digest)
        return APIError.notFound("no image with digest \(digest.hex)")
    }

    /// `Cache-Control` of content-addressed answers.
    static let immutableCaching = "public, max-age=31536000, immutable"

    /// The media type of a stored format.
    static func mediaType(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        }
    }

    /// `GET /thumbs/{digest}?w=N`: from the cache, else produced off the server's threads.
    func thumbnail(_ request: Request) throws -> Reply {
        let (hex, head) = (request.parameters.text("digest"), request.head)
        guard let digest = Digest(hex: String(hex)) else { throw APIError.notFound("that is not a blob digest (64 hex digits)") }
        let query = try request.query()
        guard let text = query["w"], let width = Int(text), Thumbnails.widths.contains(width) else {
            throw APIError.badRequest("w must be one of \(Thumbnails.widths.map(String.init).joined(separator: ", "))")
        }
        // WebP to a browser that says it takes it (every current one does), the image's own
        // format to anyone else; the answer varies with Accept, and so does its tag.
        let webp = Self.acceptsWebP(head)
        let etag = "\"\(digest.hex)-w\(width)\(webp ? "-webp" : "")\""
        if Self.notModified(head, etag: etag) { return .now(HTTPResponse(status: 304, headers: Self.thumbnailHeaders(etag: etag))) }
        // Only while the image itself is served: a thumbnail of a deleted poster's image (a
        // moderator's delete, on this server or another) is gone at once, cached or not.
        let key = Thumbnails.Key(digest: digest, width: width, webp: webp)
        let failure = request.failure
        // Made from the image's file by the image pipeline (its own tasks), once the file is
        // known to exist (looked up on the board executor the first time).
        let produce: @Sendable (BlobFiles.File, @escaping @Sendable (HTTPResponse) -> Void) -> Void = { [self] file, answer in
            guard file.exists else {
                blobFiles.forget(digest)
                return answer(failure(.notFound("no image with digest \(digest.hex)")))
            }
            if let cached = thumbnails.cached(key) { return answer(Self.thumbnailResponse(cached, etag: etag)) }
            Task { [thumbnails] in
                do {
                    answer(Self.thumbnailResponse(try await thumbnails.thumbnail(key), etag: etag))
                } catch {
                    answer(failure(APIError(error)))
                }
            }
        }
        if let file = blobFiles.known(digest) {
            if file.exists, let cached = thumbnails.cached(key) { return .now(Self.thumbnailResponse(cached, etag: etag)) }
            return .callback { answer in produce(file, answer) }
        }
        return executor.reply(failure: failure) { [self] answer in produce(try blobFiles.file(digest) { try gateway.blob(digest) }, answer)
        }
    }

    private static func thumbnailResponse(_ image: Thumbnails.Encoded, etag: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", image.mediaType)] + thumbnailHeaders(etag: etag), body: .bytes(image.bytes))
    }

    /// A thumbnail's caching headers: immutable like a blob's, and varying with `Accept`.
    private static func thumbnailHeaders(etag: String) -> [(name: String, value: String)] {
        immutable(etag: etag) + [("Vary", "Accept")]
    }

    /// Whether `Accept` names `image/webp` (with a weight above 0).
    static func acceptsWebP(_ head: RequestHead) -> Bool {
        QualityList.accepts(head.header("accept"), "image/webp")
    }

    /// The headers every HTML answer carries.
    static let htmlHeaders: [(name: String, value: String)] = [
        ("Content-Type", "text/html; charset=utf-8"),
        (
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' blob:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
        ),
        ("Referrer-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
    ]

    /// `GET /?sort=&q=&cursor=`: a page of the board rendered on the server (the first, or the
    /// one a "More posters" link's cursor names), so reading works without JavaScript. A cached
    /// read like the API's pages, revalidated with its `ETag` (a phone reloading an unchanged
    /// board gets 304 and no body). A link whose walk began longer ago than walks are kept
    /// (``BoardError/cursorExpired``) shows the first page: the walk starts again.
    func webPage(_ request: Request) throws -> CachedBody {
        let query = try request.query()
        let order = try APIInput.order(query)
        let words = query["q"].flatMap { $0.trimmingCharacters.isEmpty ? nil : $0 }
        func read(after cursor: String?) throws -> BoardGateway.Page {
            try words.map { try gateway.search(query: $0, order: order, limit: WebPage.pageSize, cursor: cursor) }
                ?? gateway.page(order: order, limit: WebPage.pageSize, cursor: cursor)
        }
        let page: BoardGateway.Page
        do {
            page = try read(after: APIInput.cursor(query))
        } catch BoardError.cursorExpired {
            page = try read(after: nil)
        }
        let html = WebPage.board(
            posters: page.posters, order: order, query: words, next: page.next, maximumUploadBytes: configuration.maximumUploadBytes,
            postProofBits: configuration.postProofBits, text: WebText(language: WebLanguage(request.head)))
        return CachedBody(bytes: Array(html.utf8), html: true)
    }

    /// `GET /language/{en|ja}`: the language switch. Keeps the choice in the `tenbin_lang`
    /// cookie for a year (it then wins over `Accept-Language`) and sends the browser back to
    /// the page it came from.
    static func switchLanguage(_ request: Request) throws -> Reply {
        let code = request.parameters.text("code")
        guard let language = WebLanguage(rawValue: String(code)) else {
            throw APIError.notFound("tenbin's pages speak English (en) and Japanese (ja), not \"\(code.prefix(20))\"")
        }
        var response = HTTPResponse.seeOther(request.head.returnPath)
        response.headers.append(
            ("Set-Cookie", "\(WebLanguage.cookieName)=\(language.rawValue); Path=/; Max-Age=31536000; SameSite=Lax"))
        return .now(response)
    }

    /// The headers of a cached HTML page: every HTML answer's, less `no-store` (the read cache
    /// answer adds its validators and `no-cache`).
    static let cachedHTMLHeaders = htmlHeaders.filter { $0.name != "Cache-Control" }

    static func html(_ text: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: htmlHeaders, body: .bytes(Array(text.utf8)))
    }

    /// `GET /static/{name}`: the page's script, style sheet and icons. Under the URL the page
    /// names (`?v=` its version, which changes with its bytes) a file is cached for a year and
    /// never asked for again, so a phone on a slow network fetches it once; under any other URL
    /// it is kept but asked for again. Either way its `ETag` (the version) answers 304.
    func staticFile(_ request: Request) throws -> Reply {
        let (name, head) = (String(request.parameters.text("name")), request.head)
        guard let asset = WebPage.asset(named: name) else { throw APIError.notFound("no such static file") }
        // gzip (about a third of the script's bytes, a third of the style sheet's) for a client
        // that takes it: a representation of its own, with its own validator.
        let gzipped = Gzip.accepted(by: head.header("accept-encoding")) ? asset.gzipped : nil
        let etag = "\"" + asset.version + (gzipped == nil ? "" : "-gz") + "\""
        let versioned = head.rawQuery.split(separator: "&").contains { $0 == "v=" + asset.version }
        return .now(
            Self.representation(
                head, body: asset.body, gzipped: gzipped, etag: etag, caching: versioned ? Self.immutableCaching : "no-cache",
                varies: asset.gzipped != nil, headers: [("Content-Type", asset.contentType)]))
    }
}
