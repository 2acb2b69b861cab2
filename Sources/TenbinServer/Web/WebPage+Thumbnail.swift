import TenbinKit

/// Responsive thumbnails: every picture a page shows is an `<img>` whose `srcset` lists each
/// width `/thumbs/{digest}?w=N` can make and whose `sizes` says how wide it is drawn, so the
/// browser fetches the smallest thumbnail that fills it at the screen's pixel density (a
/// 390-pixel phone at DPR 2 takes the 480-pixel one for a half-screen picture, at DPR 3 the
/// 640-pixel one) and no more. The lightbox shows the full image (`/blobs/{digest}`).
extension WebPage {
    /// When a picture's bytes are fetched.
    enum ImagePriority: Sendable {
        /// The page's first, largest picture (its Largest Contentful Paint): at once, ahead of
        /// other images.
        case first
        /// On the first screen: at once.
        case eager
        /// Below the first screen: when scrolled near.
        case lazy
    }

    /// How wide a board card's picture is drawn (app.css): half a phone's width less the
    /// page's padding, the card's border and the gap between the pictures; from 720 px two
    /// columns of cards, from 1068 px three in the page's 1100 px.
    static let cardImageSizes = "(min-width: 1068px) 174px, (min-width: 720px) calc(25vw - 11px), calc(50vw - 14px)"

    /// How wide a poster page's picture is drawn: its one card is at most 560 px wide.
    static let posterPageImageSizes = "(min-width: 584px) 278px, calc(50vw - 14px)"

    /// How wide the moderation page draws a picture (report.css): at most 160 px.
    static let adminImageSizes = "160px"

    /// `<img>` of `image`'s thumbnails, drawn `sizes` wide, with `alt` (escaped here) and its
    /// size in pixels (so the page does not move as it arrives).
    static func thumbnail(_ image: StoredImage, sizes: String, priority: ImagePriority, alt: String) -> String {
        let digest = image.digest.hex
        let srcset = Thumbnails.widths.map { "/thumbs/\(digest)?w=\($0) \($0)w" }.joined(separator: ", ")
        let loading =
            switch priority {
            case .first: "fetchpriority=\"high\" "
            case .eager: ""
            case .lazy: "loading=\"lazy\" "
            }
        return """
            <img src="/thumbs/\(digest)?w=\(Thumbnails.widths[1])" srcset="\(srcset)" sizes="\(sizes)" \(loading)decoding="async" \
            width="\(image.width)" height="\(image.height)" alt="\(html: alt)">
            """
    }

    /// The priority of the card at `index` on a page's first screen: the first three cards are
    /// what a phone (one card and the next's top) or a wide screen (a row of three) shows before
    /// scrolling.
    static func imagePriority(ofCardAt index: Int) -> ImagePriority {
        index == 0 ? .first : index < 3 ? .eager : .lazy
    }
}
