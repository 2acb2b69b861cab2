extension Board {
    /// Reads, recognises and (unless `writing` is off) stages one image of an import: its
    /// blob is written to a temporary file, made durable and named with the rest of its batch
    /// by `commitImport`. The same bytes met earlier in the import are taken from `memo`
    /// without decoding. A poster whose other image fails leaves only a temporary file, which
    /// the import removes at its end (or `gc`, after a kill).
    func prepareImport(_ path: String, writing: Bool, memo: ImageMemo) throws -> StoredUpload {
        let upload = ImageUpload.file(path)
        let bytes = try codec.readUpload(at: path)
        let source = Digest(of: bytes)
        if let (stored, staged) = memo.image(for: source), !writing || staged?.temporary != nil || blobs.contains(stored.digest) {
            return StoredUpload(
                prepared: PreparedImage(upload: upload, source: source, known: stored, encoded: nil), stored: stored, staged: staged)
        }
        let prepared = try prepare(bytes, source: source, upload: upload)
        // A picture met earlier in the import (above) was checked then.
        try refuseBlocked([prepared])
        let ready = try stageBlob(prepared, writing: writing)
        memo.remember(ready.stored, staged: ready.staged, for: source)
        return ready
    }

    /// Stages a prepared image's blob unless it is already stored; without `writing` (a dry
    /// run) only its digest is computed.
    func stageBlob(_ prepared: PreparedImage, writing: Bool) throws -> StoredUpload {
        guard writing, let encoded = prepared.encoded else { return try writeBlob(prepared, writing: false) }
        let staged = try blobs.stage(encoded.bytes)
        let stored = StoredImage(
            digest: staged.digest, format: encoded.format, width: encoded.width, height: encoded.height, bytes: encoded.bytes.count)
        return StoredUpload(prepared: prepared, stored: stored, staged: staged)
    }

    /// Commits a batch of imported posters in one transaction; each is inserted unless an
    /// identical one is stored (or comes earlier in the batch). `images` are the batch's
    /// distinct images: their staged blobs are published (made durable and named) first, so
    /// no committed row ever references a blob that a power loss could lose. `records` are
    /// the posters' search records when the caller computed them already (an import does, on
    /// its reading thread, while the previous batch commits), and so may `blobRecords` be
    /// (``blobRecords(_:encodingKey:)`` with the codec's encoding key).
    func commitImport(
        _ posters: [NewPoster], records: [SearchRecord]? = nil, blobRecords: [BlobRecord]? = nil, images: [StoredUpload]
    ) throws -> [PosterImportOutcome] {
        let staged = images.compactMap(\.staged)
        do {
            try blobs.publish(staged)
            let key = codec.encoding.key
            let createdAt = configuration.now()
            // Computed outside the transaction: the write lock is held only for the writes.
            let records = records ?? SearchRecord.records(of: posters)
            let blobRecords = blobRecords ?? Self.blobRecords(posters, encodingKey: key)
            return try store.write { writing in
                try writing.lockBlobs(Array(Set(images.map(\.stored.digest))))
                for image in images { try restoreBlob(image) }
                try writing.insertBlobs(blobRecords)
                try writing.setPerceptualHashes(Self.hashes(of: images))
                // Looked up and inserted in one transaction: two imports of the same poster
                // running at once cannot both add it, and a poster identical to one earlier in
                // the batch finds that one.
                return try Self.insertUnlessStored(posters, records: records, createdAt: createdAt, in: writing)
            }
        } catch {
            // The import stops here: what was not renamed into place is of no further use.
            blobs.discard(staged)
            throw error
        }
    }

    /// Removes the temporary files of staged blobs no batch published.
    func discardStaged(_ staged: [StagedBlob]) {
        blobs.discard(staged)
    }

    /// The id of a stored poster identical to `poster`.
    func matchingPoster(_ poster: NewPoster) throws -> Int64? {
        try matchingPosters([poster])[0]
    }

    /// For each poster, the id of a stored poster identical to it (a dry run's batch: one
    /// read, and on PostgreSQL a few statements, whatever its size).
    func matchingPosters(_ posters: [NewPoster]) throws -> [Int64?] {
        guard !posters.isEmpty else { return [] }
        return try store.read { try Self.matchingPosters(posters, in: $0) }
    }

    /// The blob rows a batch's posters reference, each once, with the uploads that became
    /// them (a batch of a manifest typically reuses a few images many times).
    static func blobRecords(_ posters: [NewPoster], encodingKey: String) -> [BlobRecord] {
        var records: [BlobRecord] = []
        var index: [Digest: Int] = [:]
        var uploads: Set<Digest> = []
        for poster in posters {
            for (image, source) in zip(poster.images, poster.sources) {
                let at =
                    index[image.digest]
                    ?? {
                        records.append(BlobRecord(image: image, uploads: []))
                        index[image.digest] = records.count - 1
                        return records.count - 1
                    }()
                if let source, uploads.insert(source).inserted {
                    records[at].uploads.append(UploadKey(source: source, encodingKey: encodingKey))
                }
            }
        }
        return records
    }

    /// Inserts the posters of a batch that have no identical poster stored or earlier in the
    /// batch, all in one call, and says what became of each.
    static func insertUnlessStored(
        _ posters: [NewPoster], records: [SearchRecord], createdAt: Timestamp, in writing: any StoreWriting
    ) throws -> [PosterImportOutcome] {
        let stored = try matchingPosters(posters, in: writing)
        // Each poster to insert, by identity, and for every poster not stored, which of those it is.
        var fresh: [Int] = []
        var firstOfIdentity: [ImportIdentity: Int] = [:]
        firstOfIdentity.reserveCapacity(posters.count)
        var insertedAs: [Int?] = Array(repeating: nil, count: posters.count)
        for (index, poster) in posters.enumerated() where stored[index] == nil {
            let identity = ImportIdentity(poster)
            if let earlier = firstOfIdentity[identity] {
                insertedAs[index] = earlier
            } else {
                firstOfIdentity[identity] = fresh.count
                insertedAs[index] = fresh.count
                fresh.append(index)
            }
        }
        let ids = try writing.insertPosters(fresh.map { posters[$0] }, createdAt: createdAt, search: fresh.map { records[$0] })
        return posters.indices.map { index in
            if let id = stored[index] { return .existing(id) }
            // Set above for every poster not stored.
            let position = insertedAs[index]!
            return fresh[position] == index ? .inserted(ids[position]) : .existing(ids[position])
        }
    }

    /// For each poster, the lowest id of a stored poster with the same two images, contents and
    /// hashtags (in order), if any: candidates of the whole batch are looked up and read at once.
    static func matchingPosters(_ posters: [NewPoster], in reading: any StoreReading) throws -> [Int64?] {
        let candidates = try reading.posterIDs(matching: posters)
        let ids = Array(Set(candidates.joined()))
        guard !ids.isEmpty else { return Array(repeating: nil, count: posters.count) }
        var hashtags: [Int64: [String]] = [:]
        for poster in try reading.posters(ids: ids) { hashtags[poster.id] = poster.hashtags }
        return zip(posters, candidates).map { poster, ids in ids.first { hashtags[$0] == poster.hashtags } }
    }

    /// What makes two posters of one import the same poster: images, contents (byte for byte,
    /// as a store compares them) and hashtags.
    ///
    /// Built and hashed once per poster on the thread that commits a batch, so it copies
    /// nothing: the contents' bytes are hashed in place, and the hashtags only by their count.
    /// Hashing a non-ASCII `String` normalises it (`String` equality is canonical equivalence),
    /// which made this a twentieth of the committing thread's time; posters alike in images and
    /// contents but not in hashtags are rare, and `==` still compares the hashtags themselves.
    struct ImportIdentity: Hashable {
        let image1: Digest
        let image2: Digest
        let contents: String
        let hashtags: [String]

        init(_ poster: NewPoster) {
            image1 = poster.images[0].digest
            image2 = poster.images[1].digest
            contents = poster.contents
            hashtags = poster.hashtags
        }

        static func == (lhs: ImportIdentity, rhs: ImportIdentity) -> Bool {
            lhs.image1 == rhs.image1 && lhs.image2 == rhs.image2 && lhs.contents.utf8.elementsEqual(rhs.contents.utf8)
                && lhs.hashtags == rhs.hashtags
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(image1)
            hasher.combine(image2)
            var contents = contents
            hasher.combine(contents.utf8.count)
            contents.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            hasher.combine(hashtags.count)
        }
    }
}

/// What importing one poster did.
enum PosterImportOutcome: Sendable, Hashable {
    /// The poster was added with this id.
    case inserted(Int64)
    /// An identical poster (same two images, contents and hashtags) already had this id.
    case existing(Int64)
}
