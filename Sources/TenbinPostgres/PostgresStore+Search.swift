import TenbinKit

/// Search as schema steps 2–6 built it, kept because released steps never change: each
/// poster's pieces as index tokens in a GIN-indexed `text[]` (`grams`), windows of ids, and
/// functions answering words of one or two characters on the server. Step 15 replaced all of
/// it with posting lists (PostgresSession+SearchIndex.swift); nothing here runs on a database
/// past step 14 except the SQL of those steps when an older database is upgraded.
extension PostgresStore {
    /// The search index's name (schema step 4, see ``searchIndexSQL``).
    static let searchIndexName = "search_key_window"

    /// The sizes of the id windows a key is indexed under, as powers of two: 256 and 2,048
    /// ids. Part of the schema (``searchWindowSchemaSQL``): never changes.
    static let searchWindowLevels = [8, 11]

    /// The size of the id windows each piece is also indexed under, qualified by its window
    /// (16,384 ids). Part of the schema: never changes.
    static let searchPieceWindowLevel = 14

    /// What the search index holds for a key: its pieces; one token per window level naming
    /// the window of ids it falls in (`~11.488`: ids 488 × 2,048 up to the next window); and
    /// each piece qualified by its 16,384-id window (`09j8~14.61`). The core's tokens are
    /// base-36 digits only, so no added token equals a piece. Exactly as schema step 4 creates
    /// it.
    ///
    /// A window token restricts an intersection to the window's ids, at a cost of about the
    /// window's size (GIN walks the smallest posting list and skips through the others); a
    /// qualified piece's posting list holds only its window's ids, so intersecting those costs
    /// about the rarest piece's share of the window, whatever the window's size. The table is
    /// never scanned in parallel: with this function in the index expression, the planner
    /// chose parallel workers for a window of a few rows (20 ms to start them).
    static let searchWindowSchemaSQL = """
        CREATE FUNCTION tenbin_search_tokens(id bigint, grams text[]) RETURNS text[]
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT grams || ARRAY[\(searchWindowLevels.map { "'~\($0).' || (id >> \($0))::text" }.joined(separator: ", "))]
        || CASE WHEN cardinality(grams) = 0 THEN '{}'::text[] ELSE string_to_array(array_to_string(grams, \(pieceSuffix) || ',')
        || \(pieceSuffix), ',') END $$;
        ALTER TABLE search_key SET (parallel_workers = 0)
        """

    /// The suffix qualifying a piece by its window, in SQL (pieces hold no comma: they are
    /// joined with commas and split again, which builds the index twice as fast as unnesting).
    private static let pieceSuffix = "'~\(searchPieceWindowLevel).' || (id >> \(searchPieceWindowLevel))::text"

    /// The search index, exactly as schema step 4 creates it (through step 14 a bulk load
    /// dropped it and built it again at its end). Searches named its expression,
    /// ``searchTokensExpression``.
    static let searchIndexSQL = """
        CREATE INDEX IF NOT EXISTS \(searchIndexName) ON search_key USING gin (tenbin_search_tokens(poster_id, grams))
        """

    /// The indexed expression, as searches write it so the planner uses the index.
    static let searchTokensExpression = "tenbin_search_tokens(k.poster_id, k.grams)"

    /// The name of the exact search function (schema step 5, ``exactSearchFunctionSQL``).
    static let exactSearchFunction = "tenbin_search_newest"

    /// Schema step 5: a search the index answers exactly (``SearchGrams/indexIsExact(for:)``:
    /// every word at most two characters, one index token each) done whole on the server, so a
    /// search is one statement and one round trip
    /// (`PostgresSession.exactSearchPosters` (through step 14) selects the posters of the
    /// ids it returns). `terms` are the query's tokens and `words` its normalised words; it
    /// returns the ids of the matches below `below`, newest first, after skipping `skip`, at
    /// most `take`.
    ///
    /// The steps are those of `PostgresSession.searchCandidates` through step 14, with the
    /// core's recheck done here or not needed: the newest 128 keys, those containing every word
    /// kept (`LIKE '%word%'`, the core's byte-substring test: the walk took twice as long with
    /// `grams @>`, which unpacks every key's array), their share estimating how common the
    /// words are; while the estimate promises more than 256 matches below the cursor, the
    /// index restricted to windows of ids just below the cursor — for one term, up to 16
    /// windows of the smallest size (256 or 2,048 ids by their window tokens, else the term
    /// qualified by its 16,384-id windows) expected to hold the rest of the page and half as
    /// many again, as `&&` (GIN walks the windows' tokens and skips through the term's list:
    /// half the time of two fixed windows); for several, the two windows just below the cursor
    /// (of 256 or 2,048 ids where a page's worth is expected there, else the terms qualified by
    /// their window: with `&&`, GIN walked the common terms' whole lists); then the index below
    /// the cursor, unrestricted.
    /// What the index finds needs no recheck: a key holds a word's one token exactly when it
    /// contains the word. The function is STABLE, so every statement in it reads the calling
    /// statement's snapshot: the ids and the posters selected with them are one snapshot's,
    /// outside any transaction. Each statement in it is planned once per session (PL/pgSQL
    /// caches its plans; sessions plan generically, see ``Connection``), and the window
    /// statements order by `poster_id + 0`, so only the search index can serve them.
    static let exactSearchFunctionSQL = """
        CREATE FUNCTION \(exactSearchFunction)(terms text[], words text[], below bigint, skip bigint, take bigint) RETURNS bigint[]
        LANGUAGE plpgsql STABLE AS $$
        DECLARE
            wanted bigint := skip + take;
            patterns text[] := \(likePatternsSQL);
            ids bigint[];
            walked bigint[];
            hits bigint[];
            below_id bigint := below;
            seen double precision;
            covered double precision;
            rate double precision;
            span double precision;
            window_bits integer;
            upper_window bigint;
            lower_window bigint;
            next_below bigint;
            windows text[];
            newer text[];
            older text[];
        BEGIN
            SELECT array_agg(w.poster_id ORDER BY w.poster_id DESC),
                coalesce(array_agg(w.poster_id ORDER BY w.poster_id DESC) FILTER (WHERE w.key LIKE ALL (patterns)), '{}')
            INTO walked, ids
            FROM (SELECT k.poster_id, k.key FROM search_key k WHERE k.poster_id < below_id ORDER BY k.poster_id DESC LIMIT 128) w;
            IF cardinality(ids) >= wanted OR coalesce(cardinality(walked), 0) < 128 THEN
                RETURN ids[skip + 1 : wanted];
            END IF;
            below_id := walked[128];
            seen := cardinality(ids);
            covered := walked[1] - walked[128] + 1;
            WHILE below_id > 1 LOOP
                rate := greatest(seen, 0.5) / covered;
                EXIT WHEN rate * below_id <= 256;
                IF cardinality(terms) = 1 THEN
                    -- The ids below the cursor expected to hold the rest of the page, and half
                    -- as many again, covered by up to 16 windows of the smallest size that
                    -- suffices.
                    span := 1.5 * (wanted - cardinality(ids)) / rate;
                    window_bits := CASE \(searchWindowLevels.map { "WHEN span <= \(16 << $0) THEN \($0)" }.joined(separator: " ")) ELSE \(searchPieceWindowLevel) END;
                    upper_window := (below_id - 1) >> window_bits;
                    lower_window := greatest(0, upper_window - 15, (below_id - 1 - span::bigint) >> window_bits);
                    IF window_bits = \(searchPieceWindowLevel) THEN
                        windows := ARRAY(SELECT terms[1] || '~\(searchPieceWindowLevel).' || n FROM generate_series(lower_window, upper_window) AS n);
                    ELSE
                        windows := ARRAY(SELECT '~' || window_bits || '.' || n FROM generate_series(lower_window, upper_window) AS n);
                    END IF;
                    SELECT coalesce(array_agg(w.poster_id ORDER BY w.poster_id DESC), '{}') INTO hits FROM (
                        SELECT k.poster_id FROM search_key k
                        WHERE \(searchTokensExpression) @> terms AND \(searchTokensExpression) && windows
                        AND k.poster_id + 0 < below_id ORDER BY k.poster_id + 0 DESC LIMIT wanted - cardinality(ids)) w;
                    next_below := lower_window << window_bits;
                ELSE
                    -- Two windows, the one holding the id just below the cursor and the next:
                    -- of the smallest size where a page's worth is expected, with every term
                    -- (GIN walks the window's token and skips through the terms' lists), or of
                    -- the terms qualified by their window.
                    window_bits := CASE \(searchWindowLevels.map { "WHEN \(1 << $0) * rate >= least(wanted, 256) THEN \($0)" }.joined(separator: " ")) ELSE \(searchPieceWindowLevel) END;
                    upper_window := (below_id - 1) >> window_bits;
                    IF window_bits = \(searchPieceWindowLevel) THEN
                        newer := ARRAY(SELECT t || '~\(searchPieceWindowLevel).' || upper_window FROM unnest(terms) AS t);
                        older := ARRAY(SELECT t || '~\(searchPieceWindowLevel).' || (upper_window - 1) FROM unnest(terms) AS t);
                    ELSE
                        newer := terms || ('~' || window_bits || '.' || upper_window);
                        older := terms || ('~' || window_bits || '.' || (upper_window - 1));
                    END IF;
                    SELECT coalesce(array_agg(w.poster_id ORDER BY w.poster_id DESC), '{}') INTO hits FROM (
                        SELECT k.poster_id FROM search_key k
                        WHERE (\(searchTokensExpression) @> newer OR \(searchTokensExpression) @> older)
                        AND k.poster_id + 0 < below_id ORDER BY k.poster_id + 0 DESC LIMIT wanted - cardinality(ids)) w;
                    next_below := greatest(0, (upper_window - 1) << window_bits);
                END IF;
                ids := ids || hits;
                IF cardinality(ids) >= wanted THEN
                    RETURN ids[skip + 1 : wanted];
                END IF;
                seen := seen + cardinality(hits);
                covered := covered + below_id - next_below;
                below_id := next_below;
            END LOOP;
            IF below_id > 1 THEN
                SELECT coalesce(array_agg(w.poster_id ORDER BY w.poster_id DESC), '{}') INTO hits FROM (
                    SELECT k.poster_id FROM search_key k
                    WHERE \(searchTokensExpression) @> terms AND k.poster_id + 0 < below_id
                    ORDER BY k.poster_id + 0 DESC LIMIT wanted - cardinality(ids)) w;
                ids := ids || hits;
            END IF;
            RETURN ids[skip + 1 : wanted];
        END $$
        """

    /// The name of the exact search in popular order (schema step 5,
    /// ``exactPopularSearchFunctionSQL``).
    static let exactPopularSearchFunction = "tenbin_search_popular"

    /// Schema step 5: a search the index answers exactly, in popular order (votes, then id,
    /// descending), after the position (`after_votes`, `after_id`), done whole on the server as
    /// the core does it (``Board``'s `searchIDs`): the newest 128 keys estimate how many posters
    /// match; when few might (under 8,000), ``exactSearchFunctionSQL`` gathers up to 2,001 of
    /// them, and up to 2,000 are ranked here; otherwise (or when more than 2,000 match) the
    /// posters are walked by votes over the popular index, their keys tested with `LIKE`, in
    /// batches of 256 and then 4,096 (each batch's limit written into its statement, so the
    /// plan walks the index). Returns the page's ids, skipping `skip`, at most `take`.
    /// Schema step 6 replaces it (``popularWalkFunctionSQL``); this text is step 5's, as
    /// released.
    static let exactPopularSearchFunctionSQL = """
        CREATE FUNCTION \(exactPopularSearchFunction)(terms text[], words text[], after_votes bigint, after_id bigint, skip bigint, take bigint)
        RETURNS bigint[] LANGUAGE plpgsql STABLE AS $$
        DECLARE
            wanted bigint := skip + take;
            patterns text[] := \(likePatternsSQL);
            ids bigint[] := '{}';
            hits bigint[];
            batch_ids bigint[];
            batch_votes bigint[];
            sampled bigint;
            lowest bigint;
            highest bigint;
            last_votes bigint := after_votes;
            last_id bigint := after_id;
            large boolean := false;
        BEGIN
        \(fewMightMatchSQL)
                hits := \(exactSearchFunction)(terms, words, 9223372036854775807, 0, 2001);
                IF cardinality(hits) <= 2000 THEN
                    RETURN ARRAY(
                        SELECT p.id FROM poster p WHERE p.id = ANY(hits) AND ((p.good1 + p.good2), p.id) < (after_votes, after_id)
                        ORDER BY (p.good1 + p.good2) DESC, p.id DESC OFFSET skip LIMIT take);
                END IF;
            END IF;
            LOOP
                IF large THEN
        \(popularBatchSQL(limit: 4096))
                ELSE
        \(popularBatchSQL(limit: 256))
                END IF;
                ids := ids || hits;
                IF cardinality(ids) >= wanted OR coalesce(cardinality(batch_ids), 0) < (CASE WHEN large THEN 4096 ELSE 256 END) THEN
                    RETURN ids[skip + 1 : wanted];
                END IF;
                last_votes := batch_votes[cardinality(batch_votes)];
                last_id := batch_ids[cardinality(batch_ids)];
                large := true;
            END LOOP;
        END $$
        """

    /// The estimate both popular searches (schema steps 5 and 6) start with, in PL/pgSQL: the
    /// newest 128 keys are tested against `patterns`, and the share that matches, scaled to the
    /// span of ids they cover, says whether few posters (under 8,000) might match. Returns the
    /// empty `ids` when there are no keys; otherwise opens the `IF` of the few-matches path
    /// (the caller writes its body and `END IF`). Needs `sampled`, `lowest` and `highest`
    /// declared as `bigint`.
    static let fewMightMatchSQL = """
            SELECT count(*) FILTER (WHERE w.key LIKE ALL (patterns)), min(w.poster_id), max(w.poster_id) INTO sampled, lowest, highest
            FROM (SELECT k.poster_id, k.key FROM search_key k ORDER BY k.poster_id DESC LIMIT 128) w;
            IF highest IS NULL THEN
                RETURN ids;
            END IF;
            IF sampled * highest / (highest - lowest + 1) < 8000 THEN
        """

    /// `words` as `LIKE` patterns matching any text that contains the word (`\`, `%` and `_`
    /// escaped), in PL/pgSQL.
    static let likePatternsSQL = """
        ARRAY(SELECT '%' || replace(replace(replace(word, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' FROM unnest(words) AS word)
        """

    /// One batch of ``exactPopularSearchFunctionSQL``'s walk by votes: the next `limit` posters
    /// after (`last_votes`, `last_id`) over the popular index (the limit written into the text,
    /// so the plan walks the index), their ids and votes in order, and the ids of those whose
    /// key contains every word.
    private static func popularBatchSQL(limit: Int) -> String {
        """
                    SELECT array_agg(w.id ORDER BY w.votes DESC, w.id DESC), array_agg(w.votes ORDER BY w.votes DESC, w.id DESC),
                        coalesce(array_agg(w.id ORDER BY w.votes DESC, w.id DESC) FILTER (WHERE k.key LIKE ALL (patterns)), '{}')
                    INTO batch_ids, batch_votes, hits
                    FROM (SELECT p.id, p.good1 + p.good2 AS votes FROM poster p WHERE ((p.good1 + p.good2), p.id) < (last_votes, last_id)
                        ORDER BY (p.good1 + p.good2) DESC, p.id DESC LIMIT \(limit)) w
                    LEFT JOIN search_key k ON k.poster_id = w.id;
        """
    }

    /// Writes the keys and pieces of posters just inserted or edited (inside their transaction).
    static func indexSearchKeys(ids: [Int64], posters: [(contents: String, hashtags: [String])], on connection: Connection) throws {
        guard !ids.isEmpty else { return }
        let records = posters.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) }
        let keys = records.map(\.key)
        // One array literal per poster, unnested as text and cast back: unnest would flatten
        // an array of arrays.
        let grams = records.map { PostgresBind.textArrayLiteral($0.tokens) }
        try connection.query(
            """
            INSERT INTO search_key (poster_id, key, grams) SELECT id, k, g::text[] \
            FROM unnest(\(ids)::bigint[], \(keys)::text[], \(grams)::text[]) AS t(id, k, g)
            """)
    }

    /// Migration 2: indexes every poster stored before search existed.
    static func indexAllPosters(on connection: Connection) throws {
        var after: Int64 = 0
        while true {
            let rows = try connection.query(
                """
                SELECT p.id, p.contents, (SELECT array_agg(h.tag ORDER BY h.position) FROM hashtag h WHERE h.poster_id = p.id)
                FROM poster p WHERE p.id > \(after) ORDER BY p.id LIMIT 1000
                """)
            guard rows.count > 0 else { return }
            let ids = try (0..<rows.count).map { try rows.int64($0, 0) }
            let texts = (0..<rows.count).map {
                (contents: rows.bytesAsText($0, 1), hashtags: rows.isNull($0, 2) ? [] : ArrayLiteral.parse(rows.text($0, 2)))
            }
            try indexSearchKeys(ids: ids, posters: texts, on: connection)
            after = ids.last!  // rows.count > 0
        }
    }
}
