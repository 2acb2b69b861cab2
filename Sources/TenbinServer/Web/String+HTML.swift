import TenbinKit

extension String.StringInterpolation {
    /// `"\(html: text)"`: store or request text placed in the page through `SafeText.html`,
    /// the one HTML escaping function (the HTML sibling of `SafeText.terminal`): `& < > " '`
    /// become entities, controls and bidirectional overrides are shown visibly, so the result
    /// is safe as element content and inside a quoted attribute.
    mutating func appendInterpolation(html text: String) {
        appendLiteral(SafeText.html(text))
    }
}
