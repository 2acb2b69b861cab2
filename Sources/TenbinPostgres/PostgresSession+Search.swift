import TenbinKit

/// Search's reads: candidates from the posting lists (PostgresSession+SearchIndex.swift), and
/// keys in popular or trending order for the core's walk by votes or scores. The core rechecks
/// every candidate against its key, so a stale entry costs time, never a wrong answer, and the
/// answers are SQLite's.
extension PostgresSession {
    /// Keys read newest first, unfiltered, before the index is asked: a common word (one poster
    /// in a few) fills a page from them in one statement, where the index would hand over
    /// every segment's whole lists.
    static let walkBudget = 128

    /// Below this many expected candidates (estimated from the walk) every segment's lists are
    /// read at once: they are short. Above it, segments are read newest first, in tiers
    /// (``Tier``), so a common word's page costs its newest segments' lists, not every list.
    static let tieredAbove = 4_096

    /// How many candidates the first tier of segments is expected to hold.
    static let firstTierCandidates = 256

    /// Candidates newest first: the newest ``walkBudget`` keys below the cursor, unfiltered
    /// (how many hold every term estimates how common the terms are); then the posting lists,
    /// all segments in one statement for rare terms, or for common ones tier by tier, newest
    /// first; intersected here, and the hits' keys read in growing batches. All in this read's
    /// snapshot.
    func searchCandidates(_ terms: [IndexTerm], below: Int64?, visit: (SearchEntry) throws -> Bool) throws {
        var cursor = below ?? Int64.max
        guard !terms.isEmpty else {
            var batch = Self.walkBudget
            while let walked = try walk(below: cursor, limit: batch, pieces: [], visit: visit) {
                cursor = walked.last
                batch = min(batch * 4, 8192)
            }
            return
        }
        var batch = 32
        if let kept = try keptCursors(terms) {
            // Every block is kept: the hits straight from the lists, without the walk.
            guard kept.allSatisfy({ !$0.isEmpty }) else { return }
            var hits = PostingIntersection(kept.map(TermCursor.init), below: below)
            while true {
                var ids: [Int64] = []
                while ids.count < batch, let id = try hits.next() { ids.append(id) }
                for entry in try searchEntries(ids: ids) {
                    guard try visit(entry) else { return }
                }
                guard ids.count == batch else { return }
                batch = min(batch * 4, 4096)
            }
        }
        let pieces = terms.compactMap { SearchGrams.piece(ofToken: $0.token) }
        guard let walked = try walk(below: cursor, limit: Self.walkBudget, pieces: pieces, visit: visit) else { return }
        try hitBatches(terms, after: walked, size: { batch }) { ids in
            batch = min(batch * 4, 4096)
            // A hit whose poster is gone (a stale entry) has no key and is passed over.
            for entry in try searchEntries(ids: ids) {
                guard try visit(entry) else { return false }
            }
            return true
        }
    }

    /// Hands the ids holding every term below the walk's last, highest first, to `take` in
    /// batches of `size()` (asked before each; a tier's last batch may be shorter) until it
    /// returns false or none are left: all segments in one statement for terms the walk found
    /// rare, or for common ones segments newest first, tier by tier (``Tier``), each tier's
    /// hits complete before the next is read.
    private func hitBatches(
        _ terms: [IndexTerm], after walked: (first: Int64, last: Int64, holding: Int), size: () -> Int, _ take: ([Int64]) throws -> Bool
    ) throws {
        var cursor = walked.last
        let rate = max(Double(walked.holding), 0.5) / Double(max(1, walked.first - walked.last + 1))
        // Ids below the cursor expected to hold the first tier's candidates; every id when the
        // terms are rare.
        var span = rate * Double(cursor) <= Double(Self.tieredAbove) ? cursor : Int64(Double(Self.firstTierCandidates) / rate)
        var tier = Tier.between(floor: max(0, cursor - span), ceiling: Int64.max)
        var found = Array(repeating: [PostingCursor](), count: terms.count)
        while true {
            guard try addCursors(terms, tier: tier, to: &found) else { return }
            let floor = tier.floor
            // Every segment that can hold an id at or above the floor has been read: the
            // hits there are complete. A term none of them holds has none there.
            if found.allSatisfy({ !$0.isEmpty }) {
                var hits = PostingIntersection(found.map(TermCursor.init), below: cursor)
                var more = true
                while more {
                    let batch = size()
                    var ids: [Int64] = []
                    while ids.count < batch, let id = try hits.next() {
                        guard id >= floor else {
                            more = false
                            break
                        }
                        ids.append(id)
                    }
                    if ids.count < batch { more = false }
                    if !ids.isEmpty {
                        guard try take(ids) else { return }
                    }
                }
            }
            guard floor > 0 else { return }
            cursor = floor
            span = span > Int64.max / 8 ? Int64.max : span * 8
            tier = .between(floor: max(0, floor - span), ceiling: floor)
        }
    }

    /// A page of the matches of `query` newest first below `below`, skipping `offset`, at most
    /// `limit` (``PostgresStore/visibleSearchPosters(_:order:after:offset:limit:)``), for a
    /// query the index answers exactly (``SearchGrams/indexIsExact(for:)``) unless `recheckAll`. As
    /// ``searchCandidates(_:below:visit:)`` finds them, but the hits need no key read to be
    /// rechecked: a hit is a match unless the poster has a stale mark (it was edited, deleted or
    /// re-keyed since a segment was written), and only those are rechecked, with the key read
    /// beside the poster's row. So the hits' posters are read once, the page's worth at a time,
    /// where the candidates' keys and then the page's posters were two statements reading
    /// twice as many rows (cold ones, at 1M posters: most of a search's time).
    ///
    /// `visibleOnly`: the hidden posters left out, in the same snapshot (the statement reading
    /// the hits' rows leaves them out; the walk's matches are tested against the hidden posters
    /// read in the read's transaction). With ``verifiedSegments`` set (no transaction), the hits
    /// come from the kept blocks alone and each statement checks the kept segment list
    /// (``KeptSegmentsMoved`` when it no longer matches, ``KeptBlocksMissing`` when a block is
    /// not kept): a search whose page is in its first batch is one statement.
    ///
    /// `recheckAll`: any query, every hit rechecked (its key read with its row, tested as the
    /// core tests it, ``SearchGrams/key(_:holdsEvery:)``) where only those marked stale are for a
    /// query the index answers exactly.
    func exactNewestPosters(
        _ query: SearchQuery, below: Int64?, offset: Int, limit: Int, visibleOnly: Bool = false, recheckAll: Bool = false
    ) throws -> [Poster] {
        let wanted = offset + limit
        guard limit > 0 else { return [] }
        let terms = SearchGrams.terms(for: query)
        guard !terms.isEmpty else { return [] }
        // The matches in order, and the posters read so far.
        var matched: [Int64] = []
        var read: [Int64: Poster] = [:]
        let pieces = terms.compactMap { SearchGrams.piece(ofToken: $0.token) }
        // The core's recheck: every word in the key, byte for byte.
        let words = query.words.map { Array($0.utf8) }
        // Matches of the walk, read with the first batch of hits.
        var waiting: [Int64] = []
        /// Reads the posters of `ids` (hits, highest first) and of those waiting, and keeps the
        /// matches; false once the page is full.
        func take(_ ids: [Int64]) throws -> Bool {
            // One row at least: the check's (whether the kept segment list matches the table in
            // this statement's snapshot; true in a transaction), with the posters beside it.
            let current: PostgresQuery = verifiedSegments.map { Self.segmentsMatchSQL($0.fingerprint) } ?? "true"
            let hidden: PostgresQuery = visibleOnly ? " AND NOT p.hidden" : ""
            // Every hit's key when each is rechecked (its copy in the row, a long one looked up);
            // otherwise only the keys of those marked stale.
            let posters = PostgresStore.posterColumns(from: "poster", adding: recheckAll ? ", p.walk_key" : "")
            let keys =
                recheckAll
                ? "true AS marked, coalesce(q.walk_key, (SELECT k.key FROM search_key k WHERE k.poster_id = q.id)) AS key"
                : """
                s.poster_id IS NOT NULL AS marked,
                CASE WHEN s.poster_id IS NOT NULL THEN (SELECT k.key FROM search_key k WHERE k.poster_id = q.id) END AS key
                """
            // `OFFSET 0` keeps `v` a subquery of its own, so the check runs once: pulled up, it
            // was copied into both places that name it and ran twice (`EXPLAIN`: two pairs of
            // init plans).
            let rows = try select(
                """
                SELECT w.*, v.current FROM (SELECT \(current) AS current OFFSET 0) v LEFT JOIN LATERAL (
                    SELECT q.*, \(unescaped: keys)
                    FROM (\(unescaped: posters) WHERE p.id = ANY(\(waiting + ids)::bigint[]) AND v.current\(hidden)) q
                    \(unescaped: recheckAll ? "" : "LEFT JOIN search_stale s ON s.poster_id = q.id")) w ON true
                """)
            waiting.removeAll()
            // The columns after the poster's (and its `walk_key`): whether it is rechecked, its
            // key, the check.
            let markedColumn = PostgresStore.posterColumnCount + (recheckAll ? 1 : 0)
            let keyColumn = markedColumn + 1
            guard rows.count > 0, try rows.bool(0, markedColumn + 2) else { throw KeptSegmentsMoved() }
            var stale: [Int64: String?] = [:]
            for row in 0..<rows.count where !rows.isNull(row, 0) {
                let poster = try PostgresStore.decodePoster(rows, row)
                read[poster.id] = poster
                if try rows.bool(row, markedColumn) { stale[poster.id] = rows.isNull(row, keyColumn) ? nil : rows.text(row, keyColumn) }
            }
            for id in ids where read[id] != nil {
                if let key = stale[id], !(key.map { SearchGrams.key($0, holdsEvery: words) } ?? false) { continue }
                matched.append(id)
                guard matched.count < wanted else { return false }
            }
            return true
        }
        // How many hits the next statement reads: the page's rest. Rechecked hits may fail, so
        // then each batch after the first is four times the last (as the core reads candidates'
        // keys): a word whose pieces are common and the word rare costs a few round trips, not
        // one per page's worth.
        var previous = 0
        func nextBatch() -> Int {
            var batch = max(4, wanted - matched.count)
            if recheckAll { batch = previous == 0 ? batch + 8 : min(4096, max(batch, previous * 4)) }
            previous = batch
            return batch
        }
        // Outside a transaction, each term's cursor reads the kept segments' lists lazily,
        // newest top first, as SQLite's does: only the segments the page reaches are decoded,
        // and one whose blocks are not kept throws ``KeptBlocksMissing`` when it is reached.
        let lazy = verifiedSegments != nil ? try lazyKeptCursors(terms) : nil
        let kept = lazy != nil ? nil : try keptCursors(terms)
        if kept == nil && lazy == nil && verifiedSegments != nil { throw KeptBlocksMissing() }
        // The walk's matches are the page's without a read of their rows: those hidden are
        // left out by the hidden posters' ids, read in the same snapshot.
        let hidden = kept == nil && lazy == nil && visibleOnly ? try hiddenIDs() : []
        if lazy != nil || kept != nil {
            // Every block is kept: the hits straight from the lists, without the walk. Outside a
            // transaction at least one statement runs, whose check is what makes the kept
            // segment list (and so an answer of no hits) this moment's.
            var checked = false
            let cursors = lazy ?? kept.map { $0.contains(where: \.isEmpty) ? [] : $0.map(TermCursor.init) } ?? []
            if !cursors.isEmpty {
                var hits = PostingIntersection(cursors, below: below)
                while true {
                    let batch = nextBatch()
                    var ids: [Int64] = []
                    while ids.count < batch, let id = try hits.next() { ids.append(id) }
                    guard !ids.isEmpty else { break }
                    checked = true
                    guard try take(ids), ids.count == batch else { break }
                }
            }
            if verifiedSegments != nil && !checked { _ = try take([]) }
        } else if let walked = try walk(
            below: below ?? Int64.max, limit: Self.walkBudget, pieces: pieces,
            visit: { entry in
                if !hidden.contains(entry.id) && SearchGrams.key(entry.key, holdsEvery: words) { matched.append(entry.id) }
                return matched.count < wanted
            }), matched.count < wanted
        {
            waiting = Array(matched.dropFirst(offset))
            try hitBatches(terms, after: walked, size: nextBatch, take)
        }
        let page = Array(matched.dropFirst(offset).prefix(limit))
        let unread = page.filter { read[$0] == nil }
        if !unread.isEmpty {
            for poster in try posters(ids: unread) { read[poster.id] = poster }
        }
        return page.compactMap { read[$0] }
    }

    /// The first `offset + limit` matches of `query` (a query the index answers exactly) among
    /// the newest ``walkBudget`` posters below `below`, the hidden ones left out, in one
    /// statement outside any transaction: the page when they fill it, nil when they do not (the
    /// search is then done in a read). A common word's page is among the newest posters, so it
    /// costs one round trip, where a read's walk costs two (the walk, then the page's rows).
    /// The keys are tested on the server by `strpos`, a byte substring test on UTF-8 text as
    /// ``SearchGrams/key(_:holdsEvery:)`` is, word by word: the core's own test, so no
    /// candidate needs a recheck and no index is involved (nothing kept needs checking). A
    /// poster without a key (a damaged store: check names it) is left out, as the walk leaves it.
    func walkedPage(_ query: SearchQuery, below: Int64?, offset: Int, limit: Int) throws -> [Poster]? {
        let wanted = offset + limit
        guard limit > 0, wanted <= Self.walkBudget, !query.words.isEmpty else { return nil }
        let newest = PostgresStore.posterColumns(
            from: "poster", adding: ", coalesce(p.walk_key, (SELECT k.key FROM search_key k WHERE k.poster_id = p.id)) AS key, p.hidden")
        let rows = try select(
            """
            SELECT w.* FROM (\(unescaped: newest) WHERE p.id < \(below ?? Int64.max) ORDER BY p.id DESC LIMIT \(unescaped: Self.walkBudget)) w
            WHERE w.key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM unnest(\(query.words)::text[]) AS x(word) WHERE strpos(w.key, x.word) = 0)
            AND NOT w.hidden
            ORDER BY w.id DESC LIMIT \(unescaped: wanted)
            """)
        guard rows.count == wanted else { return nil }
        return try (offset..<rows.count).map { try PostgresStore.decodePoster(rows, $0) }
    }

    /// The ids of the hidden posters, in this read's snapshot.
    private func hiddenIDs() throws -> Set<Int64> {
        let rows = try select("SELECT poster_id FROM poster_hidden")
        return Set(try (0..<rows.count).map { try rows.int64($0, 0) })
    }

    /// Thrown by a search outside any transaction whose kept segment list
    /// (``verifiedSegments``) no longer matches the segment table: the search is done again in
    /// a read, which reads the list.
    struct KeptSegmentsMoved: Error {}

    /// Thrown by a search outside any transaction that needs a block or a directory not kept:
    /// the search is done again in a read, which reads them.
    struct KeptBlocksMissing: Error {}

    /// Whether the segment table, in the statement's snapshot, holds exactly the segments of
    /// `fingerprint` (``segmentsFingerprint(_:)``: by id, top and posters) and no merge is under
    /// way: then every hit a search takes from the kept blocks of those segments is what
    /// reading the snapshot's segment list and blocks would have given. A few dozen rows read
    /// (at 1M posters, 17 segments), in the statement that reads the hits' rows.
    static func segmentsMatchSQL(_ fingerprint: String) -> PostgresQuery {
        """
        ((SELECT coalesce(string_agg(s.id || ':' || s.top || ':' || s.posters, ',' ORDER BY s.id), '') FROM search_segment s) \
        = \(fingerprint) AND NOT EXISTS (SELECT 1 FROM search_merge))
        """
    }

    /// `segments` as ``segmentsMatchSQL(_:)`` writes the table's: `id:top:posters`, by id, comma-separated.
    static func segmentsFingerprint(_ segments: [SearchBlockCache.Segment]) -> String {
        segments.sorted { $0.id < $1.id }.map { "\($0.id):\($0.top):\($0.posters)" }.joined(separator: ",")
    }

    /// Which segments a statement reads blocks of, by `top` (the highest id a segment can hold).
    enum Tier: Equatable {
        /// Those whose top is at least `floor` and below `ceiling`: with every tier above it
        /// read, every segment that can hold an id at or above `floor`.
        case between(floor: Int64, ceiling: Int64)
        /// Those whose top is within `span` of the highest top.
        case newest(span: Int64)
        /// The others.
        case older(span: Int64)
        /// Those with these ids.
        case segments([Int64])

        var floor: Int64 {
            guard case .between(let floor, _) = self else { return 0 }
            return floor
        }

        /// The condition on `s`, a segment.
        var condition: PostgresQuery {
            switch self {
            case .between(let floor, let ceiling): "s.top >= \(floor) AND s.top < \(ceiling)"
            case .newest(let span): "s.top >= (SELECT max(top) FROM search_segment) - \(span)"
            case .older(let span): "s.top < (SELECT max(top) FROM search_segment) - \(span)"
            case .segments(let ids): "s.id = ANY(\(ids)::bigint[])"
            }
        }

        /// Whether `segment` is in the tier, `highest` being the highest top of all segments
        /// (as ``condition`` tests it on the server).
        func holds(_ segment: SearchBlockCache.Segment, highest: Int64) -> Bool {
            switch self {
            case .between(let floor, let ceiling): segment.top >= floor && segment.top < ceiling
            case .newest(let span): segment.top >= highest - span
            case .older(let span): segment.top < highest - span
            case .segments(let ids): ids.contains(segment.id)
            }
        }
    }

    /// Up to `limit` keys below `cursor`, newest first, each visited (with `pieces`, only those
    /// holding every one of them: no other can match): the first and last ids read and how many
    /// keys held every piece, or nil when the walk is over (fewer rows than asked, or `visit`
    /// stopped). Read from the poster rows as ``searchEntries(ids:)`` reads them: one index
    /// scan down from the cursor. With `pieces` the server tests the keys (`strpos`, a byte
    /// substring test on UTF-8 as ``SearchGrams/key(_:holdsEvery:)`` is) and sends only the
    /// keys that hold every piece: the 128 keys were 20 KB to send and most of the client's
    /// time to decode and test.
    private func walk(
        below cursor: Int64, limit: Int, pieces: [[UInt8]], visit: (SearchEntry) throws -> Bool
    ) throws -> (first: Int64, last: Int64, holding: Int)? {
        let below = PostgresQuery.Shared(cursor)
        let newest: PostgresQuery = """
            SELECT p.id, coalesce(p.walk_key, (SELECT k.key FROM search_key k WHERE k.poster_id = p.id)) AS key, p.votes
            FROM poster p WHERE p.id < \(below) ORDER BY p.id DESC LIMIT \(unescaped: limit)
            """
        var walk = newest
        if !pieces.isEmpty {
            var holds: PostgresQuery = ""
            for (index, piece) in pieces.enumerated() {
                holds.append(index == 0 ? "" : " AND ")
                holds.append("strpos(w.key, \(String(decoding: piece, as: UTF8.self))) > 0")
            }
            walk = "SELECT w.id, CASE WHEN \(holds) THEN w.key END, w.votes FROM (\(newest)) w ORDER BY w.id DESC"
        }
        let rows: Rows
        if !pieces.isEmpty && searchBlocks != nil && searchSegments == nil {
            // The index's segments, which the search reads next, in the same round trip.
            let both = try select(pipelined: [walk, Self.segmentsQuery])
            rows = both[0]
            let segments = try Self.segments(both[1])
            searchSegments = segments
            searchBlocks?.keepSegments(segments)
        } else {
            rows = try select(walk)
        }
        var holding = 0
        for row in 0..<rows.count where !rows.isNull(row, 1) {
            let entry = try SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2))
            guard try visit(entry) else { return nil }
            holding += 1
        }
        guard rows.count == limit else { return nil }
        return try (rows.int64(0, 0), rows.int64(rows.count - 1, 0), holding)
    }

    /// Up to `limit` ids of posters holding every term, highest first (the intersection of
    /// the posting lists, as SQLite's): first from the segments holding the newest
    /// ``newestSpan`` ids, where a common term finds them all; then from every segment.
    func searchCandidateIDs(_ terms: [IndexTerm], limit: Int) throws -> [Int64] {
        guard limit > 0 else { return [] }
        guard !terms.isEmpty else {
            let rows = try select("SELECT poster_id FROM search_key LIMIT \(unescaped: limit)")
            return try (0..<rows.count).map { try rows.int64($0, 0) }
        }
        var found = Array(repeating: [PostingCursor](), count: terms.count)
        var ids: [Int64] = []
        for tier in [Tier.newest(span: Self.newestSpan), .older(span: Self.newestSpan)] {
            guard try addCursors(terms, tier: tier, to: &found) else { return [] }
            guard found.allSatisfy({ !$0.isEmpty }) else { continue }
            // Every id found counts, those of the newest segments that older ones also hold
            // (an edited poster's) included, so a second pass finds a superset of the first.
            var hits = PostingIntersection(found.map(TermCursor.init), below: nil)
            ids.removeAll()
            while ids.count < limit, let id = try hits.next() { ids.append(id) }
            if ids.count >= limit { return ids }
        }
        return ids
    }

    /// The ids whose segments ``searchCandidateIDs(_:limit:)`` reads first.
    static let newestSpan: Int64 = 1 << 16

    /// Every term's cursors in every segment of this read's snapshot, from blocks kept in
    /// ``searchBlocks`` alone (one array per term; empty ones when a term names no piece): nil
    /// when a segment is in a merge or a block is not kept, and the caller walks the newest keys
    /// and reads blocks (``hitBatches(_:after:size:_:)``). With every block kept, a search needs
    /// no walk: the segment list, then the hits' rows.
    private func keptCursors(_ terms: [IndexTerm]) throws -> [[PostingCursor]]? {
        guard let cache = searchBlocks else { return nil }
        var found = Array(repeating: [PostingCursor](), count: terms.count)
        var ranges: [(term: Int, range: ClosedRange<Int64>)] = []
        for (index, term) in terms.enumerated() {
            guard let pieces = term.pieceRanges else { return found }
            ranges += pieces.map { (index, $0) }
        }
        for (segment, merging) in try snapshotSegments() {
            guard !merging, let directory = cache.directory(of: segment) else { return nil }
            for (term, range) in ranges {
                var blocks: [(firstPiece: Int64, block: [UInt8])] = []
                for piece in SearchBlockCache.blocks(in: directory, covering: range) {
                    guard let block = cache.block(SearchBlockCache.BlockKey(segment: segment, piece: piece)) else { return nil }
                    blocks.append((piece, block))
                }
                found[term] += Self.segmentCursors(blocks, within: range)
            }
        }
        return found
    }

    /// Each term's cursor over the snapshot's segments (none in a merge), reading a segment's
    /// lists from the kept blocks when the intersection first reaches its top (SQLite's
    /// `TermCursor(segments:read:)`): a page the newest segments fill decodes only theirs, and
    /// needs only theirs kept. Reaching a segment whose directory or a block is not kept throws
    /// ``KeptBlocksMissing``: a segment holds no id above its top, so every hit taken before
    /// that was complete. Empty when a term names no piece (the query matches nothing); nil
    /// without a cache or with a segment in a merge.
    private func lazyKeptCursors(_ terms: [IndexTerm]) throws -> [TermCursor]? {
        guard let cache = searchBlocks else { return nil }
        var termRanges: [[ClosedRange<Int64>]] = []
        for term in terms {
            guard let ranges = term.pieceRanges else { return [] }
            termRanges.append(ranges)
        }
        let segments = try snapshotSegments()
        guard !segments.contains(where: \.merging) else { return nil }
        var byID: [Int64: SearchBlockCache.Segment] = [:]
        for (segment, _) in segments { byID[segment.id] = segment }
        let index = segments.map { IndexSegment(id: $0.segment.id, top: $0.segment.top) }
        return try termRanges.map { ranges in
            try TermCursor(segments: index) { id in
                guard let segment = byID[id], let directory = cache.directory(of: segment) else { throw KeptBlocksMissing() }
                var found: [PostingCursor] = []
                for range in ranges {
                    var blocks: [(firstPiece: Int64, block: [UInt8])] = []
                    for piece in SearchBlockCache.blocks(in: directory, covering: range) {
                        guard let block = cache.block(SearchBlockCache.BlockKey(segment: segment, piece: piece)) else {
                            throw KeptBlocksMissing()
                        }
                        blocks.append((piece, block))
                    }
                    found += Self.segmentCursors(blocks, within: range)
                }
                return found
            }
        }
    }

    /// Adds each term's cursors in the segments of `tier` to `found` (one array per term);
    /// false when a term names no piece (it matches nothing). In a read, through the store's
    /// ``SearchBlockCache``: the snapshot's segments once a read, then only the blocks not kept
    /// yet (``cachedBlocks(_:tier:)``); otherwise every segment's blocks for every term in one
    /// statement (``blocksQuery(_:tier:)``).
    private func addCursors(_ terms: [IndexTerm], tier: Tier, to found: inout [[PostingCursor]]) throws -> Bool {
        var ranges: [ClosedRange<Int64>] = []
        var termOfRange: [Int] = []
        for (index, term) in terms.enumerated() {
            guard let pieces = term.pieceRanges else { return false }
            ranges += pieces
            termOfRange += Array(repeating: index, count: pieces.count)
        }
        // The blocks of each segment for each range, in order of first piece.
        var blocks: [SegmentRange: [(firstPiece: Int64, block: [UInt8])]] = [:]
        if searchBlocks != nil {
            blocks = try cachedBlocks(ranges, tier: tier)
        } else {
            let rows = try select(Self.blocksQuery(ranges, tier: tier))
            for row in 0..<rows.count {
                let key = try SegmentRange(segment: rows.int64(row, 0), range: rows.int(row, 1) - 1)
                try blocks[key, default: []].append((rows.int64(row, 2), rows.bytes(row, 3)))
            }
        }
        for (key, segmentBlocks) in blocks {
            found[termOfRange[key.range]] += Self.segmentCursors(segmentBlocks, within: ranges[key.range])
        }
        return true
    }

    /// The blocks ``blocksQuery(_:tier:)`` would read, through ``searchBlocks``: the segments of
    /// `tier` outside any merge by their directories, the blocks kept read from the cache and
    /// the others in one statement (then kept); segments in a merge (whose blocks change as it
    /// moves) by ``blocksQuery(_:tier:)``, as before.
    private func cachedBlocks(_ ranges: [ClosedRange<Int64>], tier: Tier) throws -> [SegmentRange: [(firstPiece: Int64, block: [UInt8])]] {
        guard let cache = searchBlocks else { return [:] }
        let segments = try snapshotSegments()
        let highest = segments.map(\.segment.top).max() ?? 0
        let chosen = segments.filter { tier.holds($0.segment, highest: highest) }
        let merging = chosen.filter(\.merging).map(\.segment.id)
        let settled = chosen.filter { !$0.merging }.map(\.segment)
        var directories: [SearchBlockCache.Segment: [Int64]] = [:]
        var unknown: [SearchBlockCache.Segment] = []
        for segment in settled {
            if let directory = cache.directory(of: segment) { directories[segment] = directory } else { unknown.append(segment) }
        }
        if !unknown.isEmpty {
            let rows = try select(
                "SELECT segment, piece FROM search_posting WHERE segment = ANY(\(unknown.map(\.id))::bigint[]) ORDER BY segment, piece")
            var read: [Int64: [Int64]] = [:]
            for row in 0..<rows.count { try read[rows.int64(row, 0), default: []].append(rows.int64(row, 1)) }
            var loaded: [SearchBlockCache.Segment: [Int64]] = [:]
            for segment in unknown { loaded[segment] = read[segment.id] ?? [] }
            cache.keep(loaded, live: Set(segments.map(\.segment)))
            directories.merge(loaded) { _, new in new }
        }
        var blocks: [SegmentRange: [(firstPiece: Int64, block: [UInt8])]] = [:]
        var missing: [(range: SegmentRange, key: SearchBlockCache.BlockKey)] = []
        for segment in settled {
            guard let directory = directories[segment], !directory.isEmpty else { continue }
            for (index, range) in ranges.enumerated() {
                let place = SegmentRange(segment: segment.id, range: index)
                for piece in SearchBlockCache.blocks(in: directory, covering: range) {
                    let key = SearchBlockCache.BlockKey(segment: segment, piece: piece)
                    if let block = cache.block(key) {
                        blocks[place, default: []].append((piece, block))
                    } else {
                        missing.append((place, key))
                    }
                }
            }
        }
        if !missing.isEmpty {
            // Each block once, however many ranges need it.
            var wanted: [SearchBlockCache.BlockKey] = []
            var seen: Set<SearchBlockCache.BlockKey> = []
            for entry in missing where seen.insert(entry.key).inserted { wanted.append(entry.key) }
            let rows = try select(
                """
                SELECT k.n, b.postings FROM unnest(\(wanted.map(\.segment.id))::bigint[], \(wanted.map(\.piece))::bigint[])
                WITH ORDINALITY AS k(s, p, n)
                CROSS JOIN LATERAL (SELECT q.postings FROM search_posting q WHERE q.segment = k.s AND q.piece = k.p OFFSET 0) b
                """)
            var fetched: [SearchBlockCache.BlockKey: [UInt8]] = [:]
            for row in 0..<rows.count {
                let key = wanted[try rows.int(row, 0) - 1]
                let block = rows.bytes(row, 1)
                fetched[key] = block
                cache.add(block, key)
            }
            for entry in missing {
                // A block of a settled segment is in every snapshot that names the segment.
                guard let block = fetched[entry.key] else { continue }
                blocks[entry.range, default: []].append((entry.key.piece, block))
            }
        }
        if !merging.isEmpty {
            let rows = try select(Self.blocksQuery(ranges, tier: .segments(merging)))
            for row in 0..<rows.count {
                let key = try SegmentRange(segment: rows.int64(row, 0), range: rows.int(row, 1) - 1)
                try blocks[key, default: []].append((rows.int64(row, 2), rows.bytes(row, 3)))
            }
        }
        return blocks
    }

    /// The search index's segments in this read's snapshot, and whether a merge names each
    /// (as its source or target), read once a read.
    private func snapshotSegments() throws -> [(segment: SearchBlockCache.Segment, merging: Bool)] {
        if let searchSegments { return searchSegments }
        let segments = try Self.segments(select(Self.segmentsQuery))
        searchSegments = segments
        searchBlocks?.keepSegments(segments)
        return segments
    }

    /// Every segment of the search index, and whether a merge names it.
    static let segmentsQuery: PostgresQuery = """
        SELECT s.id, s.top, s.posters, EXISTS (SELECT 1 FROM search_merge m WHERE m.source = s.id OR m.target = s.id)
        FROM search_segment s
        """

    /// The segments ``segmentsQuery`` read.
    static func segments(_ rows: Rows) throws -> [(segment: SearchBlockCache.Segment, merging: Bool)] {
        try (0..<rows.count).map { row in
            (
                segment: SearchBlockCache.Segment(id: try rows.int64(row, 0), top: try rows.int64(row, 1), posters: try rows.int(row, 2)),
                merging: try rows.bool(row, 3)
            )
        }
    }

    /// One segment's blocks for one range of pieces.
    private struct SegmentRange: Hashable {
        let segment: Int64
        let range: Int
    }

    /// One segment's cursors for the pieces in `range`, from its blocks that can hold them
    /// (in order of first piece, as ``blocksQuery(_:tier:)`` finds them).
    static func segmentCursors(_ blocks: [(firstPiece: Int64, block: [UInt8])], within range: ClosedRange<Int64>) -> [PostingCursor] {
        var found: [PostingCursor] = []
        for block in blocks.sorted(by: { $0.firstPiece < $1.firstPiece }) {
            PostingBlock.cursors(in: block.block, firstPiece: block.firstPiece, within: range, into: &found)
        }
        return found
    }

    /// In every segment of `tier`, for each range of pieces (its 1-based place in `ranges`), the
    /// blocks that can hold its pieces: the last starting at or below its lowest piece, and
    /// every one starting after that up to its highest: (segment, range, first piece, block).
    /// A range of one piece (every term the core asks for: ``IndexTerm/isPrefix`` is for
    /// backends of tokens) is in one block, the last starting at or below it: one index probe
    /// a segment, where a range takes two.
    ///
    /// `OFFSET 0` (and `LIMIT 1`) keeps the lookup a subquery of its own, planned as index
    /// probes per segment and range; flattened into the join, the generic plan of the prepared
    /// statement hashed a sequential scan of every block (58 ms at 1M posters against 2 ms,
    /// docs/benchmarks.md).
    static func blocksQuery(_ ranges: [ClosedRange<Int64>], tier: Tier) -> PostgresQuery {
        let lookup =
            ranges.allSatisfy { $0.lowerBound == $0.upperBound }
            ? "SELECT p.piece, p.postings FROM search_posting p WHERE p.segment = s.id AND p.piece <= r.hi ORDER BY p.piece DESC LIMIT 1"
            : """
            SELECT p.piece, p.postings FROM search_posting p WHERE p.segment = s.id AND p.piece <= r.hi
            AND p.piece >= coalesce((SELECT max(q.piece) FROM search_posting q WHERE q.segment = s.id AND q.piece <= r.lo), r.lo)
            OFFSET 0
            """
        return """
            SELECT s.id, r.n, b.piece, b.postings FROM search_segment s
            CROSS JOIN unnest(\(ranges.map(\.lowerBound))::bigint[], \(ranges.map(\.upperBound))::bigint[]) WITH ORDINALITY AS r(lo, hi, n)
            CROSS JOIN LATERAL (\(unescaped: lookup)) b
            WHERE \(tier.condition)
            """
    }

    /// The keys of `ids` from the poster rows (`walk_key`, the key's copy beside the votes; a
    /// long key looked up in `search_key`): one index probe a poster where joining `search_key`
    /// took two (the hits of a search are old posters at random places, mostly outside the
    /// server's buffers: at 1M posters, 64 of them took 3.2 ms cold through the join, 2.2 ms from
    /// the row). A poster without a key (a damaged store: check names it) is left out, as the
    /// join left it.
    func searchEntries(ids: [Int64]) throws -> [SearchEntry] {
        guard !ids.isEmpty else { return [] }
        let rows = try select(
            """
            SELECT p.id, coalesce(p.walk_key, (SELECT k.key FROM search_key k WHERE k.poster_id = p.id)), p.votes, p.trend
            FROM poster p WHERE p.id = ANY(\(ids)::bigint[])
            """)
        var byID: [Int64: SearchEntry] = [:]
        for row in 0..<rows.count where !rows.isNull(row, 1) {
            let entry = try SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2), score: rows.int64(row, 3))
            byID[entry.id] = entry
        }
        return ids.compactMap { byID[$0] }
    }

    func searchEntriesByVotes(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        try searchEntriesRanked(order: .popular, after: after, visit: visit)
    }

    func searchEntriesByScore(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        try searchEntriesRanked(order: .trending, after: after, visit: visit)
    }

    /// Every poster's key in popular or trending order after `after`, in batches.
    private func searchEntriesRanked(order: FeedOrder, after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        // Popular reads `poster_popular` as an index-only scan (schema step 6: the keys beside
        // the votes; a long one looked up), so it asks for no column outside it (a constant for
        // the score); trending reads `poster_trending` and looks the keys up.
        let (key, score) = order == .trending ? ("p.trend", "p.trend") : ("p.votes", "0::bigint")
        var cursor = after
        var batch = 256
        while true {
            // The limit is written into the text (one plan per batch size, sized for it); the
            // first batch, without a cursor, reads the index from its start.
            var condition: PostgresQuery = ""
            if let cursor {
                let value = order == .trending ? cursor.score : Int64(cursor.votes)
                condition = " WHERE (\(unescaped: key), p.id) < (\(value), \(cursor.id))"
            }
            let rows = try select(
                """
                SELECT p.id, coalesce(p.walk_key, (SELECT k.key FROM search_key k WHERE k.poster_id = p.id)), p.votes, \(unescaped: score)
                FROM poster p\(condition) ORDER BY \(unescaped: key) DESC, p.id DESC LIMIT \(unescaped: batch)
                """)
            for row in 0..<rows.count {
                let entry = try SearchEntry(
                    id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2), score: rows.int64(row, 3))
                guard try visit(entry) else { return }
            }
            guard rows.count == batch else { return }
            cursor = try FeedPosition(
                id: rows.int64(rows.count - 1, 0), votes: rows.int(rows.count - 1, 2), score: rows.int64(rows.count - 1, 3))
            batch = min(batch * 4, 4096)
        }
    }
}
