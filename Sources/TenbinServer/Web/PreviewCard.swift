import CPreviewCard
import TenbinKit

/// A poster's preview card, the `og:image` of its page (`/p/ID/card.jpg`): a 1200×630 picture
/// with both images side by side, the question under them and the vote bar at the bottom,
/// drawn with cairo and pango (`CPreviewCard`) in a Japanese-capable font and encoded as JPEG by
/// the board's codec.
package enum PreviewCard {
    /// The card's size: what link previews show at 1.91:1.
    package static let width = 1200
    package static let height = 630
    /// The font families the text is drawn in, first found first: IPA P Gothic
    /// (fonts-ipafont-gothic) draws Japanese and Latin text; the others are fallbacks.
    static let fonts = "IPAPGothic, IPAGothic, Noto Sans CJK JP, sans-serif"
    /// The drawing's version: raised when card.c draws differently.
    static let layout = 1

    /// What a card shows: a card is drawn again only when this changes (the percentages are
    /// rounded, so most votes leave a popular poster's card as it was).
    package struct Face: Hashable, Sendable {
        var digests: [Digest]
        var text: String
        var percent1: Int
        var voted: Bool

        package init(_ poster: Poster) {
            let share = VoteShare(good1: poster.good1, good2: poster.good2)
            digests = poster.images.map(\.digest)
            text = PreviewCard.text(of: poster)
            percent1 = share.percent1
            voted = share.total > 0
        }

        /// A validator naming this face: changes whenever the drawing would.
        var etag: String { "\"card-" + key + "\"" }

        /// Hex digits naming this face (the ETag's and the kept file's), changing whenever the
        /// drawing would.
        var key: String {
            // A cache key, not a security measure; the layout's version is in it so a changed
            // drawing is fetched again.
            let named = digests.map(\.hex).joined(separator: ",") + "\u{0}\(text)\u{0}\(percent1)\u{0}\(voted)\u{0}\(layout)"
            return String(FNV1a.hash(named), radix: 16)
        }
    }

    /// The card's line of text: the question, or for a poster without one, its number.
    static func text(of poster: Poster) -> String {
        let question = String(SafeText.terminal(poster.contents).trimmingCharacters)
        return question.isEmpty ? "Which do you prefer? #\(poster.id)" : question
    }

    /// The size to decode a stored image at so that it still covers its half of the card: its
    /// shorter side (relative to the half's) at the half's size, never larger than stored.
    static func pictureSize(_ image: StoredImage) -> ImageSize {
        let (halfWidth, halfHeight) = (Double(width) / 2, Double(height) * 0.71)
        let scale = max(halfWidth / Double(max(1, image.width)), halfHeight / Double(max(1, image.height)))
        return .thumbnail(
            width: Int((Double(image.width) * scale).rounded(.up)), height: Int((Double(image.height) * scale).rounded(.up)))
    }

    /// A drawn card's pixels (RGB) and how many characters of its text no font could draw.
    package struct Drawing: Sendable {
        package var pixels: PixelBuffer
        package var unknownGlyphs: Int
    }

    /// Draws the card of `face` with its two decoded pictures. Throws when pango and cairo
    /// cannot be loaded or fail to draw.
    package static func draw(_ left: PixelBuffer, _ right: PixelBuffer, face: Face) throws -> Drawing {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        var unknown: Int32 = 0
        var error = [CChar](repeating: 0, count: 256)
        let status = left.pixels.withUnsafeBufferPointer { leftPixels in
            right.pixels.withUnsafeBufferPointer { rightPixels in
                face.text.withCString { text in
                    fonts.withCString { fonts in
                        var first = tb_card_picture(
                            pixels: leftPixels.baseAddress, width: Int32(left.width), height: Int32(left.height),
                            channels: Int32(left.channels))
                        var second = tb_card_picture(
                            pixels: rightPixels.baseAddress, width: Int32(right.width), height: Int32(right.height),
                            channels: Int32(right.channels))
                        var words = tb_card_text(text: text, font: fonts, percent1: Int32(face.percent1), voted: face.voted ? 1 : 0)
                        return tb_card_draw(&first, &second, &words, Int32(width), Int32(height), &rgb, &unknown, &error)
                    }
                }
            }
        }
        guard status == 0 else {
            throw APIError(
                status: 503, kind: "unavailable", message: "this server cannot draw preview cards now",
                cause: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return Drawing(pixels: PixelBuffer(width: width, height: height, channels: 3, pixels: rgb), unknownGlyphs: Int(unknown))
    }
}
