/// Counts with their nouns in the right number, for messages people read: `1 poster`,
/// `3 posters`, `0 blobs`, never `poster(s)`.
package enum Plural {
    /// `count` and the noun: `singular` for exactly one, else `plural` (default: `singular` + "s").
    package static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }
}
