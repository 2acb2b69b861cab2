import TenbinKit

/// A poster's own page, `/p/ID`: the board's card for it (votes through its form without
/// JavaScript; live counts and a Share button with app.js), its hashtags as links to their
/// search, and the link-preview tags scrapers read (Open Graph, Twitter, oEmbed discovery),
/// whose image is the poster's ``PreviewCard``.
struct PosterPage: Sendable {
    let poster: Poster
    /// The board's public origin (`https://host[:port]`), absolute URLs' start.
    let origin: String
    /// The page's language (the preview tags, read by scrapers of every language, stay English).
    var text = WebText(language: .en)
    /// The poster's votes over time, shown under its pictures (none for a page without them).
    var timeline: TimelineChart? = nil

    /// The page's canonical URL.
    var url: String { origin + "/p/\(poster.id)" }
    /// The preview card's URL.
    var cardURL: String { url + "/card.jpg" }

    /// The poster's title: its question on one line (at most 200 characters), or its number
    /// for a poster without one. Not yet escaped for HTML.
    var title: String {
        let question = String(SafeText.terminal(poster.contents).trimmingCharacters)
        guard !question.isEmpty else { return "Which do you prefer? – poster #\(poster.id)" }
        return question.count > 200 ? question.prefix(199) + "…" : question
    }

    /// One line about the votes and hashtags, for previews. Not yet escaped for HTML.
    var summary: String {
        let share = VoteShare(good1: poster.good1, good2: poster.good2)
        var text =
            share.total == 0
            ? "No votes yet: which do you prefer?"
            : "Left \(share.percent1)% (\(Self.votes(poster.good1))) · Right \(share.percent2)% (\(Self.votes(poster.good2)))"
        if !poster.hashtags.isEmpty { text += " · " + poster.hashtags.map { "#" + SafeText.terminal($0) }.joined(separator: " ") }
        return text
    }

    private static func votes(_ count: Int) -> String { count == 1 ? "1 vote" : "\(count) votes" }

    /// `/oembed?url=…&format=json` for this page, as the page's discovery link names it.
    var oembedURL: String {
        origin + "/oembed" + URLQuery.string(["url": url, "format": "json"])
    }

    /// The whole page.
    var html: String {
        var html = WebPage.documentHead(title: title + " – tenbin", script: true, text: text, extra: previewTags)
        html += """
            <body class="poster-page" data-poster="\(poster.id)" data-sort="new" data-query="" data-page-size="1" \
            data-lang="\(text.language.rawValue)" data-strings="\(html: text.scriptTable)">
            \(WebPage.header(order: .new, query: "", text: text))
            <main id="main">
            <ol id="board" class="board single" tabindex="-1">
            \(WebPage.card(
                poster, order: .new, text: text, priority: .first, sizes: WebPage.posterPageImageSizes,
                extra: timeline?.html(posterID: poster.id, text: text) ?? ""))</ol>
            <div class="share">
            <button type="button" id="share" class="share-button" data-url="\(html: url)" data-title="\(html: title)" hidden>\(html: text[.share])</button>
            <a id="share-link" class="share-link" href="\(html: url)">\(html: url)</a>
            <span id="share-status" class="share-status" role="status" aria-live="polite"></span>
            </div>
            \(tagLinks)<p class="back"><a href="/">\(html: text[.allPosters])</a></p>
            <p id="announcer" class="sr" aria-live="polite"></p>
            </main>
            </body>
            </html>

            """
        return html
    }

    /// A link to each hashtag's own page (``TagPage``), one line; nothing without hashtags.
    /// (The card's hashtags search for the tag, as on the board.)
    var tagLinks: String {
        guard !poster.hashtags.isEmpty else { return "" }
        let links = poster.hashtags.map { tag in
            "<a class=\"tag-link\" href=\"\(html: TagPage.path(tag))\">\(html: text.format(.tagPage, tag))</a>"
        }
        return "<p class=\"tag-links\">\(links.joined(separator: " · "))</p>\n"
    }

    /// The tags in `<head>` that link previews read: canonical URL, Open Graph, Twitter's card
    /// and oEmbed discovery. Every value is escaped for a quoted attribute.
    var previewTags: String {
        let (title, summary) = (self.title, self.summary)
        let alt = "Two pictures side by side: \(title)"
        return """
            <link rel="canonical" href="\(html: url)">
            <link rel="alternate" type="application/json+oembed" href="\(html: oembedURL)" title="\(html: title)">
            <meta name="description" content="\(html: summary)">
            <meta property="og:type" content="website">
            <meta property="og:site_name" content="tenbin">
            <meta property="og:title" content="\(html: title)">
            <meta property="og:description" content="\(html: summary)">
            <meta property="og:url" content="\(html: url)">
            <meta property="og:image" content="\(html: cardURL)">
            <meta property="og:image:type" content="image/jpeg">
            <meta property="og:image:width" content="\(PreviewCard.width)">
            <meta property="og:image:height" content="\(PreviewCard.height)">
            <meta property="og:image:alt" content="\(html: alt)">
            <meta name="twitter:card" content="summary_large_image">
            <meta name="twitter:title" content="\(html: title)">
            <meta name="twitter:description" content="\(html: summary)">
            <meta name="twitter:image" content="\(html: cardURL)">

            """
    }

    /// The oEmbed answer (`type: photo`: the card, with the page's title), its size scaled
    /// down to fit `maxWidth`×`maxHeight` when given.
    func oembed(maxWidth: Int? = nil, maxHeight: Int? = nil) -> [UInt8] {
        let scale = min(
            1, Double(maxWidth ?? PreviewCard.width) / Double(PreviewCard.width),
            Double(maxHeight ?? PreviewCard.height) / Double(PreviewCard.height))
        let (width, height) = (max(1, Int(Double(PreviewCard.width) * scale)), max(1, Int(Double(PreviewCard.height) * scale)))
        return Application.jsonBody { json in
            json.object { json in
                json.field("version", "1.0")
                json.field("type", "photo")
                json.field("title", title)
                json.field("url", cardURL)
                json.field("width", width)
                json.field("height", height)
                json.field("provider_name", "tenbin")
                json.field("provider_url", origin + "/")
                json.field("web_page", url)
                json.field("cache_age", 300)
            }
        }
    }
}
