import Glibc

/// Trending order's score: every vote weighs 2^((t − 1970) / half-life), so a vote a
/// half-life older weighs half as much, and a poster's score is the base-2 logarithm of the
/// sum of its votes' weights, in fixed point (``unitsPerHalfLife`` units a half-life).
///
/// Decay multiplies every poster's sum by the same factor as time passes, so the order never
/// changes with time alone: only a vote moves a poster, the score is stored on its row and
/// indexed like popular's votes, and a page is one index range scan after a (score, id)
/// cursor. In the log domain the sum never overflows (a vote cast now adds about 20,600 half-lives,
/// times 2^24, to a 64-bit integer's 2^63), and adding a vote is `max + log2(1 + 2^-|difference|)`,
/// which SQLite, PostgreSQL and Swift compute alike (``adding(_:to:)``; the backends spell
/// the same arithmetic in SQL). A poster without votes scores 0 and a voted one at least 1, so
/// `score > 0` is exactly "has votes".
public enum Trending {
    /// How long a vote takes to weigh half as much, in seconds: a day, so today's votes
    /// outweigh yesterday's two to one.
    public static let halfLife: Int64 = 86_400

    /// The score's fixed point: units a half-life (2^24: a unit is about 5 ms of a vote's age).
    package static let unitsPerHalfLife: Double = 16_777_216

    /// A difference in units past which the smaller side adds nothing a double can hold
    /// (2^-64 next to 1), used to bound the power so PostgreSQL never reports an underflow.
    package static let negligible: Double = 64

    /// The weight of `count` votes cast at `time`, in score units: log2(count) + t / half-life.
    package static func weight(count: Int, at time: Timestamp) -> Double {
        (log2(Double(max(count, 1))) + Double(time.secondsSince1970) / Double(halfLife)) * unitsPerHalfLife
    }

    /// `score` with a vote weight added (``weight(count:at:)``): the log of the sum of both.
    package static func adding(_ weight: Double, to score: Int64) -> Int64 {
        guard score > 0 else { return Self.rounded(weight) }
        let current = Double(score)
        let power = max(-negligible, -abs(current - weight) / unitsPerHalfLife)
        return Self.rounded(max(current, weight) + unitsPerHalfLife * log2(1 + exp2(power)))
    }

    /// A score in units, rounded (half up, as every backend's SQL writes it: `floor(x + 0.5)`),
    /// and at least 1 (a voted poster's; a clock before 1970 would otherwise make it 0 or less).
    static func rounded(_ units: Double) -> Int64 {
        guard units.isFinite else { return 1 }
        return max(1, Int64((units + 0.5).rounded(.down)))
    }

    /// The score a timeline gives (its buckets as (start, votes)), as migrations seed it.
    package static func score(of buckets: some Sequence<(start: Timestamp, votes: Int)>) -> Int64 {
        buckets.reduce(0) { score, bucket in
            bucket.votes > 0 ? adding(weight(count: bucket.votes, at: bucket.start), to: score) : score
        }
    }
}
