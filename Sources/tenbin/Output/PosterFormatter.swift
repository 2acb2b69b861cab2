import TenbinKit

/// Poster output for people: aligned rows with a vote bar showing each side's share, the
/// way the original app's majority bar did.
struct PosterFormatter {
    /// Terminal columns available.
    var width = 80
    /// Whether to colour the bar (only on a terminal, never with NO_COLOR).
    var color = false

    /// `▕██████░░░░▏`: side 1's share filled, side 2's shaded; dotted when nobody voted.
    func bar(_ poster: Poster, cells: Int) -> String {
        guard poster.totalVotes > 0 else { return "▕" + String(repeating: "┈", count: cells) + "▏" }
        let first = Int((poster.share(of: .first) * Double(cells)).rounded())
        let left = String(repeating: "█", count: first)
        let right = String(repeating: "░", count: cells - first)
        guard color else { return "▕" + left + right + "▏" }
        return "▕\u{1B}[38;5;209m" + left + "\u{1B}[38;5;75m" + right + "\u{1B}[0m▏"
    }

    static func percent(_ share: Double) -> String { "\(Int((share * 100).rounded()))%" }

    /// One line per poster: id, bar, counts, question and hashtags, columns aligned.
    func list(_ posters: [Poster]) -> String {
        guard !posters.isEmpty else { return "No posters." }
        let idWidth = posters.map { "#\($0.id)".count }.max() ?? 2
        // Compact counts (1.2M) keep the column at most four wide whatever the votes.
        let countWidth = posters.map { max(CountText.compact($0.good1).count, CountText.compact($0.good2).count) }.max() ?? 1
        return posters.map { poster in
            let one = CountText.compact(poster.good1)
            let counts = TextWidth.padLeft(one, to: countWidth) + " : " + CountText.compact(poster.good2).padding(countWidth)
            let prefix = TextWidth.padLeft("#\(poster.id)", to: idWidth) + "  " + bar(poster, cells: 12) + " " + counts + "  "
            // The bar takes 14 columns whatever its colour codes add to the string.
            let used = idWidth + 2 + 14 + 1 + TextWidth.of(counts) + 2
            let text = ([poster.displayQuestion(.one)] + poster.displayHashtags).joined(separator: "  ")
            return prefix + TextWidth.truncate(text, to: max(10, width - used))
        }.joined(separator: "\n")
    }

    /// Everything about one poster.
    func detail(_ poster: Poster) -> String {
        var lines: [String] = []
        lines.append("Poster #\(poster.id) · \(poster.createdAt)")
        if !poster.hashtags.isEmpty { lines.append(poster.displayHashtags.joined(separator: " ")) }
        lines.append(poster.displayQuestion(.many))
        lines.append("")
        let cells = max(10, min(40, width - 12))
        lines.append("  1 " + bar(poster, cells: cells) + " 2")
        if let (one, two) = Self.sides(poster) {
            let gap = max(2, cells + 6 - TextWidth.of(one) - TextWidth.of(two) - 2)
            lines.append("  " + one + String(repeating: " ", count: gap) + two)
        } else {
            lines.append("  " + Self.noVotes)
        }
        lines.append("")
        for (index, image) in poster.images.enumerated() {
            lines.append(
                "  image \(index + 1): \(image.format.rawValue) \(image.width)×\(image.height), \(image.bytes) bytes, sha256 \(image.digest.hex.prefix(16))…"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// The counts after a vote, on one line.
    func voteResult(_ poster: Poster) -> String {
        "#\(poster.id)  " + bar(poster, cells: 20) + "  \(CountText.grouped(poster.good1)) : \(CountText.grouped(poster.good2))"
            + "  (\(Self.percent(poster.share(of: .first))) : \(Self.percent(poster.share(of: .second))))"
    }

    /// What a poster nobody has voted on shows instead of two counts of 0 at 50%.
    static let noVotes = "no votes yet"

    /// Each side's exact votes and share (`1,234 votes (62%)`), or nil before the first vote.
    static func sides(_ poster: Poster) -> (String, String)? {
        guard poster.totalVotes > 0 else { return nil }
        func side(_ count: Int, _ share: Double) -> String {
            "\(count == 1 ? "1 vote" : "\(CountText.grouped(count)) votes") (\(percent(share)))"
        }
        return (side(poster.good1, poster.share(of: .first)), side(poster.good2, poster.share(of: .second)))
    }
}

extension String {
    /// The string padded with spaces on the right to `columns` terminal columns.
    func padding(_ columns: Int) -> String {
        self + String(repeating: " ", count: max(0, columns - TextWidth.of(self)))
    }
}
