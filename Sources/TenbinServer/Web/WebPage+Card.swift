import TenbinKit

/// One poster as a card on the board. app.js builds the same markup from the API's JSON when
/// posters arrive later (keep the two in step).
extension WebPage {
    /// `<li class="card">…</li>` for `poster`. Each image is a tap target that votes for its
    /// side once app.js runs (a link to the full image without it), with a control that
    /// opens it large; the two vote buttons do the same for keyboards and screen readers, and
    /// their names say the side and the question.
    static func card(_ poster: Poster, order: FeedOrder, text: WebText = WebText(language: .en)) -> String {
        let share = VoteShare(good1: poster.good1, good2: poster.good2)
        let name = posterName(poster, text: text)
        var html = """
            <li class="card" id="poster-\(poster.id)" data-id="\(poster.id)" data-good1="\(poster.good1)" data-good2="\(poster.good2)">
            <article aria-labelledby="question-\(poster.id)">
            <div class="pair">

            """
        for (index, image) in poster.images.prefix(2).enumerated() {
            html += picture(image, side: index + 1, poster: poster, text: text)
        }
        html += "</div>\n"
        if poster.contents.isEmpty {
            // A poster without a question is still named, for screen readers.
            html += "<p class=\"question sr\" id=\"question-\(poster.id)\">\(html: name)</p>\n"
        } else {
            html += "<p class=\"question\" id=\"question-\(poster.id)\" dir=\"auto\">\(html: poster.contents)</p>\n"
        }
        if !poster.hashtags.isEmpty {
            html += "<ul class=\"tags\">"
            for tag in poster.hashtags {
                let href = "/" + URLQuery.string(["sort": order == .new ? nil : order.rawValue, "q": "#" + tag])
                html += "<li><a href=\"\(html: href)\" dir=\"auto\">#\(html: tag)</a></li>"
            }
            html += "</ul>\n"
        }
        html += """
            <div class="meter\(share.total == 0 ? " none" : "")" aria-hidden="true"><span class="fill p\(share.percent1)"></span></div>
            <form class="votes" method="post" action="/api/v1/posters/\(poster.id)/votes">
            \(voteButton(side: 1, count: poster.good1, percent: share.percent1, total: share.total, name: name, text: text))\
            \(voteButton(side: 2, count: poster.good2, percent: share.percent2, total: share.total, name: name, text: text))
            </form>
            <p class="meta"><a href="/p/\(poster.id)">#\(poster.id)</a> · <time datetime="\(poster.createdAt)">\(poster.createdAt.description.prefix(10))</time>\
            <span class="tally">\(share.total == 0 ? " · " + SafeText.html(text[.noVotes]) : "")</span></p>
            \(reportMenu(poster.id))</article>
            </li>

            """
        return html
    }

    /// What names a poster to a screen reader: its question, or "Poster #ID" without one.
    static func posterName(_ poster: Poster, text: WebText = WebText(language: .en)) -> String {
        poster.contents.isEmpty ? text.format(.posterNumber, String(poster.id)) : poster.contents
    }

    /// Alt text for side 1 or 2: the poster's own for that image when it has one, else which
    /// image it is and the poster's question.
    static func altText(side: Int, poster: Poster, text: WebText = WebText(language: .en)) -> String {
        let own = side == 1 ? poster.alt1 : poster.alt2
        if !own.isEmpty { return own }
        let which = text[side == 1 ? .leftImage : .rightImage]
        return poster.contents.isEmpty
            ? text.format(.altWithoutQuestion, which, String(poster.id)) : text.format(.altWithQuestion, which, poster.contents)
    }

    private static func picture(_ image: StoredImage, side: Int, poster: Poster, text: WebText) -> String {
        let digest = image.digest.hex
        let srcset = thumbnailWidths.map { "/thumbs/\(digest)?w=\($0) \($0)w" }.joined(separator: ", ")
        let zoom = text.format(.viewLarge, text[side == 1 ? .leftImage : .rightImage])
        return """
            <div class="side side\(side)"><a class="image" href="/blobs/\(digest)" data-side="\(side)" tabindex="-1"><img src="/thumbs/\(digest)?w=\(thumbnailWidths[1])" \
            srcset="\(srcset)" sizes="(min-width: 720px) 180px, 50vw" loading="lazy" decoding="async" \
            width="\(image.width)" height="\(image.height)" alt="\(html: altText(side: side, poster: poster, text: text))"></a>\
            <a class="zoom" href="/blobs/\(digest)" data-side="\(side)" aria-label="\(html: zoom)" title="\(html: zoom)"></a></div>

            """
    }

    private static func voteButton(side: Int, count: Int, percent: Int, total: Int, name: String, text: WebText) -> String {
        let label = text[side == 1 ? .voteLeft : .voteRight]
        return """
            <button type="submit" name="side" value="\(side)" class="vote side\(side)" data-side="\(side)"><span class="label">\(html: label)</span>\
            <span class="sr"> – \(html: name)</span> \
            <span class="count">\(total == 0 ? "" : String(count))</span> <span class="pct">\(total == 0 ? "" : "\(percent)%")</span></button>
            """
    }
}

/// The two sides' shares of a poster's votes as whole percentages that add up to 100.
struct VoteShare: Sendable, Equatable {
    /// Votes for both sides together.
    let total: Int
    /// Side 1's share, rounded half up; 50 when nobody has voted.
    let percent1: Int
    /// Side 2's share: 100 minus side 1's.
    var percent2: Int { 100 - percent1 }

    init(good1: Int, good2: Int) {
        total = good1 + good2
        percent1 = total == 0 ? 50 : Int((Double(good1) * 100 / Double(total)).rounded())
    }
}
