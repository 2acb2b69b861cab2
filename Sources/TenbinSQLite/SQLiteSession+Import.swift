import TenbinKit

/// Posters in SQLite a batch at a time (an import's; a single post is a batch of one): the
/// identity lookups of ``SQLiteSession/posterIDs(image1:image2:contents:)`` and the rows a
/// poster is made of, with each statement looked up once per batch instead of once per row (the
/// cache is keyed by the SQL text, hashed on every lookup) and values bound one by one. These
/// run on the thread that commits, which bounds a manifest import (docs/benchmarks.md).
extension SQLiteSession {
    func posterIDs(matching posters: [NewPoster]) throws -> [[Int64]] {
        let lookup = try db.statement(Self.identityLookup)
        return try posters.map { poster in
            guard let first = try blobID(poster.images[0].digest), let second = try blobID(poster.images[1].digest) else { return [] }
            lookup.reset()
            try lookup.bind(first, at: 1)
            try lookup.bind(second, at: 2)
            try lookup.bind(ContentsHash.of(poster.contents), at: 3)
            try lookup.bind(poster.contents, at: 4)
            return try lookup.map { $0.int64(0) }
        }
    }

    func insertPosters(_ posters: [NewPoster], createdAt: Timestamp, search: [SearchRecord]) throws -> [Int64] {
        // Invariant of the callers: one search record per poster.
        precondition(posters.count == search.count, "one search record per poster")
        let created = createdAt.secondsSince1970
        // One table at a time (posters, then hashtags, keys and the index's segment), not one
        // poster at a time: each B-tree then stays in the cache while it is written (a
        // 200,000-line import took 11.6 s instead of 13.6; docs/benchmarks.md). Ids come from
        // the poster rows, so those go first.
        let insertPoster = try db.statement(Self.posterInsert)
        var ids: [Int64] = []
        ids.reserveCapacity(posters.count)
        for poster in posters {
            guard let image1 = try blobID(poster.images[0].digest), let image2 = try blobID(poster.images[1].digest) else {
                // What the foreign key refused before blob ids: the caller inserts blob rows first.
                throw SQLiteError(code: 787, message: "a poster's image has no blob row")
            }
            insertPoster.reset()
            try insertPoster.bind(poster.contents, at: 1)
            try insertPoster.bind(ContentsHash.of(poster.contents), at: 2)
            try insertPoster.bind(created, at: 3)
            try insertPoster.bind(image1, at: 4)
            try insertPoster.bind(image2, at: 5)
            try insertPoster.bind(poster.alt1, at: 6)
            try insertPoster.bind(poster.alt2, at: 7)
            try insertPoster.run()
            ids.append(db.lastInsertedRowID)
        }
        let insertHashtag = try db.statement(Self.hashtagInsert)
        for (poster, id) in zip(posters, ids) {
            for (position, tag) in poster.hashtags.enumerated() {
                insertHashtag.reset()
                try insertHashtag.bind(id, at: 1)
                try insertHashtag.bind(position, at: 2)
                try insertHashtag.bind(tag, at: 3)
                try insertHashtag.run()
            }
        }
        try indexSearch(ids: ids, search: search)
        return ids
    }
}
