import TenbinKit

/// Popular order read from one index (schema step 6): each poster's votes as a stored column,
/// and its search key beside them in the popular index, so a search walking posters by votes
/// tests each key where the index holds it, without a lookup per poster.
///
/// Measured at 1M posters (`EXPLAIN ANALYZE`, warm): walking 4,096 posters by votes and looking
/// up each one's key in `search_key` took 54 ms (20,000 buffers: the poster row, then the key's
/// index entry and row, each at a random place); the same walk as an index-only scan of
/// `(votes DESC, id DESC) INCLUDE (walk_key)`, testing each key with `LIKE`, takes about
/// 0.3 µs a poster (a page of a word in 3.6 % of posters: 0.16 ms, 290 buffers).
extension PostgresStore {
    /// The longest key, in UTF-8 bytes, the popular index holds beside the votes: a btree entry
    /// must fit a third of a page, and a poster's text may be far longer. A longer key's
    /// `walk_key` is NULL, and the walk looks that key up in `search_key` instead. Part of the
    /// schema (the rows of step 6 and later were written with it).
    static let walkKeyLimit = 512

    /// The `walk_key` stored for the key `key` (an SQL expression, or a shared value): the key
    /// itself, or NULL when it is longer than ``walkKeyLimit``.
    static func walkKeySQL(_ key: PostgresQuery) -> PostgresQuery {
        "CASE WHEN octet_length(\(key)) <= \(unescaped: walkKeyLimit) THEN \(key) END"
    }

    /// Schema step 6, before the search function: the columns and the index. Votes become a
    /// stored column (`votes`, generated from both sides, so a vote's statement is unchanged)
    /// and the key a column of the poster row (`walk_key`, filled from `search_key`); the
    /// popular index, which was on the expression `good1 + good2` (an index-only scan cannot
    /// return an expression's value), is built again on the column, with the key included.
    ///
    /// The same rewrite copies each poster's two blob rows into it (``imageColumns``): a blob
    /// row never changes (its name is its content's hash, and it is only ever inserted or, once
    /// nothing references it, deleted), so a poster is read from its own row, without the two
    /// joins to `blob` that were a page's main server-side cost (0.029 against 0.011 ms).
    ///
    /// The index is dropped before the rows are rewritten, so the rewrite does not update it
    /// row by row; `ALTER TABLE … ADD COLUMN … STORED` rewrites the table once more, which
    /// leaves it compact (measured at 1M posters: about 30 s, most of it the UPDATE). Every
    /// write from this version on writes `walk_key` with the key (``walkKeySQL(_:)``) and the
    /// images' columns with the images.
    static let popularWalkSchemaSQL = """
        DROP INDEX poster_popular;
        ALTER TABLE poster ADD COLUMN walk_key text, \(imageColumns.map { "ADD COLUMN \($0.name) \($0.type)" }.joined(separator: ", "));
        UPDATE poster p SET walk_key = (SELECT \(walkKeySQL("k.key").sql) FROM search_key k WHERE k.poster_id = p.id),
            \(imageColumns.map { "\($0.name) = b\($0.side).\($0.blobColumn)" }.joined(separator: ", "))
        FROM blob b1, blob b2 WHERE b1.digest = p.image1 AND b2.digest = p.image2;
        ALTER TABLE poster ADD COLUMN votes bigint GENERATED ALWAYS AS (good1 + good2) STORED,
            \(imageColumns.map { "ALTER COLUMN \($0.name) SET NOT NULL" }.joined(separator: ", "));
        CREATE INDEX poster_popular ON poster (votes DESC, id DESC) INCLUDE (walk_key);
        ANALYZE poster
        """

    /// The poster row's copies of its two images' blob rows (schema step 6): for each image
    /// (`side` 1 or 2), its format, width, height and size, named `image1_format` and so on.
    static let imageColumns: [(side: Int, blobColumn: String, name: String, type: String)] = [1, 2].flatMap { side in
        [("format", "text"), ("width", "integer"), ("height", "integer"), ("bytes", "bigint")].map { column, type in
            (side, column, "image\(side)_\(column)", type)
        }
    }

    /// ``imageColumns``' names, in order, for an INSERT's column list.
    static let imageColumnNames = imageColumns.map(\.name).joined(separator: ", ")

    /// `images`' ``imageColumns`` values as `unnest` arguments, arrays of one element per
    /// poster: the formats, widths, heights and sizes of the first images, then of the second.
    static func imageColumnUnnest(_ images: [[StoredImage]]) -> PostgresQuery {
        let (first, second) = (images.map { $0[0] }, images.map { $0[1] })
        return """
            \(first.map(\.format.rawValue))::text[], \(first.map(\.width))::int[], \(first.map(\.height))::int[], \
            \(first.map(\.bytes))::bigint[], \(second.map(\.format.rawValue))::text[], \(second.map(\.width))::int[], \
            \(second.map(\.height))::int[], \(second.map(\.bytes))::bigint[]
            """
    }

    /// Schema step 6's search in popular order, replacing step 5's
    /// (``exactPopularSearchFunctionSQL``) under the same name and arguments: the page's ids,
    /// after the position (`after_votes`, `after_id`), skipping `skip`, at most `take`.
    ///
    /// The posters are walked by votes over the popular index, as an index-only scan testing
    /// `walk_key` with `LIKE` (a NULL one, a long key, looked up in `search_key`): about 0.3 µs a
    /// poster at 1M. That is cheapest for all but rare words, which a walk would have to follow
    /// deep into the board; the GIN index serves those. So, when the newest 128 keys suggest
    /// fewer than 8,000 matches, the walk first reads only the 2,048 posters with most votes
    /// (0.6 ms); if they hold the page, that is the answer; if they hold fewer than two matches
    /// (fewer than one poster in a thousand), the matches are gathered from the GIN index —
    /// one bitmap scan, at most 2,001 — and, if no more than 2,000, ranked by votes. Otherwise
    /// the walk goes on after the last match it found, unbounded. (Measured over the
    /// benchmark's 98 distinct queries of one- and two-character words at 1M, on the server:
    /// median 2.1–2.4 ms, p90 6.3–6.7 ms; gathering first, as step 5 did, in windows of ids
    /// newest first, 4.3 ms and 13–16 ms: gathering 2,001 took 12–14 ms, and ranking a
    /// thousand costs a primary-key lookup each, 3.7 ms.)
    ///
    /// Each walk is a cursor read one row at a time: a cursor is planned for its first rows, so
    /// its one generic plan walks the index whatever the words (as a plain statement the
    /// planner, taking `LIKE ALL` over an array parameter to match almost nothing, costed the
    /// index walk and a sort of the whole table within 2 % of each other), and it stops at the
    /// page's last match. `jit` is off inside: the walk's estimated cost is far above
    /// `jit_above_cost`, and compiling it took 25–80 ms a call.
    static let popularWalkFunctionSQL = """
        CREATE OR REPLACE FUNCTION \(exactPopularSearchFunction)(terms text[], words text[], after_votes bigint, after_id bigint, skip bigint, take bigint)
        RETURNS bigint[] LANGUAGE plpgsql STABLE SET jit = off AS $$
        DECLARE
            wanted bigint := skip + take;
            patterns text[] := \(likePatternsSQL);
            ids bigint[] := '{}';
            hits bigint[];
            hit bigint;
            hit_votes bigint;
            last_votes bigint := after_votes;
            last_id bigint := after_id;
            walk refcursor;
            sampled bigint;
            lowest bigint;
            highest bigint;
        BEGIN
        \(fewMightMatchSQL)
                OPEN walk NO SCROLL FOR
                    SELECT w.id, w.votes FROM (
                        SELECT p.id, p.votes, p.walk_key FROM poster p WHERE (p.votes, p.id) < (after_votes, after_id)
                        ORDER BY p.votes DESC, p.id DESC LIMIT 2048) w
                    WHERE coalesce(w.walk_key, (SELECT k.key FROM search_key k WHERE k.poster_id = w.id)) LIKE ALL (patterns);
                WHILE cardinality(ids) < wanted LOOP
                    FETCH walk INTO hit, hit_votes;
                    EXIT WHEN NOT FOUND;
                    ids := ids || hit;
                    last_votes := hit_votes;
                    last_id := hit;
                END LOOP;
                CLOSE walk;
                IF cardinality(ids) >= wanted THEN
                    RETURN ids[skip + 1 : wanted];
                END IF;
                IF cardinality(ids) < 2 THEN
                    hits := ARRAY(SELECT k.poster_id FROM search_key k WHERE \(searchTokensExpression) @> terms LIMIT 2001);
                    IF cardinality(hits) <= 2000 THEN
                        RETURN ARRAY(
                            SELECT p.id FROM poster p WHERE p.id = ANY(hits) AND (p.votes, p.id) < (after_votes, after_id)
                            ORDER BY p.votes DESC, p.id DESC OFFSET skip LIMIT take);
                    END IF;
                END IF;
            END IF;
            OPEN walk NO SCROLL FOR
                SELECT p.id FROM poster p WHERE (p.votes, p.id) < (last_votes, last_id)
                AND coalesce(p.walk_key, (SELECT k.key FROM search_key k WHERE k.poster_id = p.id)) LIKE ALL (patterns)
                ORDER BY p.votes DESC, p.id DESC;
            WHILE cardinality(ids) < wanted LOOP
                FETCH walk INTO hit;
                EXIT WHEN NOT FOUND;
                ids := ids || hit;
            END LOOP;
            CLOSE walk;
            RETURN ids[skip + 1 : wanted];
        END $$
        """
}
