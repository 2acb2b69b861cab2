import TenbinKit

/// One poster as a card on the board. app.js builds the same markup from the API's JSON when
/// posters arrive later (keep the two in step).
extension WebPage {
    /// `<li class="card">…</li>` for `poster`.
    static func card(_ poster: Poster, order: FeedOrder) -> String {
        let share = VoteShare(good1: poster.good1, good2: poster.good2)
        var html = """
            <li class="card" id="poster-\(poster.id)" data-id="\(poster.id)" data-good1="\(poster.good1)" data-good2="\(poster.good2)">
            <article aria-labelledby="question-\(poster.id)">
            <div class="pair">

            """
        for (index, image) in poster.images.prefix(2).enumerated() {
            html += picture(image, side: index + 1, poster: poster)
        }
        html += "</div>\n"
        let question = SafeText.html(poster.contents)
        html += "<p class=\"question\" id=\"question-\(poster.id)\" dir=\"auto\">\(question)</p>\n"
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
            \(voteButton(side: 1, count: poster.good1, percent: share.percent1, total: share.total))\(voteButton(side: 2, count: poster.good2, percent: share.percent2, total: share.total))
            </form>
            <p class="meta"><a href="/api/v1/posters/\(poster.id)">#\(poster.id)</a> · <time datetime="\(poster.createdAt)">\(poster.createdAt.description.prefix(10))</time></p>
            \(reportMenu(poster.id))</article>
            </li>

            """
        return html
    }

    /// Alt text for side 1 or 2: which image it is and the poster's question.
    static func altText(side: Int, poster: Poster) -> String {
        let which = side == 1 ? "Left image" : "Right image"
        return poster.contents.isEmpty ? "\(which) of poster \(poster.id)" : "\(which): \(poster.contents)"
    }

    private static func picture(_ image: StoredImage, side: Int, poster: Poster) -> String {
        let digest = image.digest.hex
        let srcset = thumbnailWidths.map { "/thumbs/\(digest)?w=\($0) \($0)w" }.joined(separator: ", ")
        return """
            <a class="image" href="/blobs/\(digest)"><img src="/thumbs/\(digest)?w=\(thumbnailWidths[1])" \
            srcset="\(srcset)" sizes="(min-width: 720px) 180px, 50vw" loading="lazy" decoding="async" \
            width="\(image.width)" height="\(image.height)" alt="\(html: altText(side: side, poster: poster))"></a>

            """
    }

    private static func voteButton(side: Int, count: Int, percent: Int, total: Int) -> String {
        let name = side == 1 ? "left" : "right"
        return """
            <button type="submit" name="side" value="\(side)" class="vote side\(side)" data-side="\(side)"><span class="label">Vote \(name)</span> \
            <span class="count">\(count)</span> <span class="pct">\(total == 0 ? "–" : "\(percent)%")</span></button>
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
