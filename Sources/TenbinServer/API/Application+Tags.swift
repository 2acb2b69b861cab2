import TenbinKit

/// A hashtag's page (`/t/TAG`) and its JSON (`GET /api/v1/tags/TAG`): its posters trending
/// first, their votes, and their summed timeline (``Board/tagSummary(_:limit:after:)``).
extension Application {
    /// `GET /t/{tag}?cursor=`: the tag's page (``TagPage``), in the reader's language. A tag no
    /// poster has is an empty page, not an error. Not a cached read, like the poster page.
    func tagPage(_ request: Request) throws -> Reply {
        let tag = try APIInput.tag(request.parameters.text("tag"))
        let cursor = APIInput.cursor(try request.query())
        let text = WebText(language: WebLanguage(request.head))
        return executor.reply(failure: request.failure) { [self] in
            var page = Self.html(TagPage(summary: try gateway.tag(tag, limit: 20, cursor: cursor), text: text).html)
            page.headers.append(("Vary", "Accept-Language, Cookie"))  // in the reader's language
            return page
        }
    }

    /// `GET /api/v1/tags/{tag}?limit=&cursor=`, a cached read.
    func tag(_ request: Request) throws -> CachedBody {
        let query = try request.query()
        let summary = try gateway.tag(
            try APIInput.tag(request.parameters.text("tag")), limit: try APIInput.limit(query), cursor: APIInput.cursor(query))
        return CachedBody(bytes: Self.jsonBody { $0.tagSummary(summary) })
    }
}
