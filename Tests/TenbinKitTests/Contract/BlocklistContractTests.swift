import Foundation
import Testing

@testable import TenbinKit

/// Blocked images and the scanning hook on every backend, through `Board`: hashes stored
/// with blob rows, the blocklist's entries, posts refused by digest or by hash (real copies
/// made with tenbin's codecs), refusals that write nothing, and hashes computed lazily for
/// pictures stored without one.
@Suite(.timeLimit(.minutes(10))) struct BlocklistContractTests {
    static let cat = StoreContractTests.cat
    static let dog = StoreContractTests.dog
    static let others = [Fixtures.sample("02-sunrise-sunset/morning.jpg"), Fixtures.sample("02-sunrise-sunset/evening.jpg")]
    static let plain = "\(Fixtures.root)/Tests/Fixtures/colors/gray-128.jpg"

    static func board(_ backend: BackendUnderTest, _ store: TemporaryStore, scanner: ImageScanner? = nil) throws -> Board {
        var configuration = store.configuration()
        configuration.scanner = scanner
        return Board(configuration, store: try backend.make(store.path), blobs: BlobStore(storeFolder: store.path))
    }

    static func post(_ board: Board, _ first: ImageUpload, _ second: ImageUpload) throws -> Poster {
        try board.post(PosterDraft(image1: first, image2: second, contents: "which?"))
    }

    /// A copy of the picture at `path` made with tenbin's codec: JPEG at `quality`, scaled to
    /// `percent` of its size.
    static func copy(_ path: String, quality: Int, percent: Int = 100) throws -> ImageUpload {
        var codec = ImageCodec()
        codec.encoding.jpegQuality = quality
        let pixels = try codec.decode(try Fixtures.bytes(path), source: path, maxEdge: 2048)
        let scaled = Resampler.resize(pixels, width: pixels.width * percent / 100, height: pixels.height * percent / 100)
        return .bytes(try codec.encode(scaled, as: .jpeg, source: path).bytes, label: "copy")
    }

    @Test(arguments: BackendUnderTest.all)
    func aPostStoresThePerceptualHashOfEachImage(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store)
        defer { board.close() }
        let poster = try Self.post(board, .file(Self.cat), .file(Self.dog))
        let stored = try board.store.read { try $0.perceptualHashes(poster.images.map(\.digest)) }
        for (image, path) in zip(poster.images, [Self.cat, Self.dog]) {
            let expected = try board.codec.perceptualHash(try Fixtures.bytes(path), source: path)
            #expect(stored[image.digest] == expected)
            #expect(expected != nil)
        }
    }

    @Test(arguments: BackendUnderTest.all)
    func aModeratorsRemoveWithBlockImagesBlocksAndDeletesAHiddenPosterInOneStep(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store)
        defer { board.close() }
        let poster = try Self.post(board, .file(Self.cat), .file(Self.dog))
        _ = try board.hide(id: poster.id, actor: "alice")
        let removed = try board.remove(id: poster.id, actor: "alice", reason: "illegal", options: RemoveOptions(blockImages: true))
        #expect(removed.id == poster.id)
        #expect(try board.count() == 0)
        let entries = try board.blockedImages()
        #expect(entries.map(\.digest) == poster.images.map(\.digest))
        #expect(entries.map(\.note) == ["poster #\(poster.id), image 1", "poster #\(poster.id), image 2"])
        #expect(try board.auditLog().map(\.action) == [.remove, .hide])
        #expect(throws: ImageRefusal.blocked(image: "copy", entry: entries[0].id)) {
            try Self.post(board, .file(Self.others[0]), try Self.copy(Self.cat, quality: 40))
        }
        // No such poster: nothing is blocked, nothing logged.
        #expect(throws: BoardError.noSuchPoster(poster.id)) {
            try board.remove(id: poster.id, actor: "alice", options: RemoveOptions(blockImages: true))
        }
        #expect(try board.blockedImages().count == 2 && board.auditLog().count == 2)
    }

    @Test(arguments: BackendUnderTest.all)
    func blockingAPostersImagesRefusesTheSameFileAndItsCopies(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store)
        defer { board.close() }
        let poster = try Self.post(board, .file(Self.cat), .file(Self.dog))
        let stored = try board.blobBytes(poster.images[0].digest)
        let entries = try board.blockImages(ofPoster: poster.id)
        #expect(entries.map(\.note) == ["poster #\(poster.id), image 1", "poster #\(poster.id), image 2"])
        #expect(entries.map(\.digest) == poster.images.map(\.digest))
        #expect(entries.allSatisfy { $0.perceptualHash != nil })
        #expect(try board.blockImages(ofPoster: poster.id) == entries, "blocking again keeps the entries")
        #expect(try board.blockedImages() == entries)
        try board.delete(id: poster.id)
        let filesBefore = PosterTextLimitContractTests.blobFiles(store)

        let refusals: [(ImageUpload, String)] = [
            (.file(Self.cat), Self.cat), (.bytes(stored, label: "stored"), "stored"),
            (try Self.copy(Self.cat, quality: 30), "copy"), (try Self.copy(Self.cat, quality: 80, percent: 60), "copy"),
        ]
        for (upload, label) in refusals {
            #expect(throws: ImageRefusal.blocked(image: label, entry: entries[0].id)) {
                try Self.post(board, .file(Self.others[0]), upload)
            }
        }
        #expect(throws: ImageRefusal.blocked(image: "copy", entry: entries[1].id)) {
            try Self.post(board, try Self.copy(Self.dog, quality: 50), .file(Self.others[1]))
        }
        #expect(try board.count() == 0)
        #expect(PosterTextLimitContractTests.blobFiles(store) == filesBefore, "a refused post writes no blob")
        #expect(try board.check().isSound)
        let other = try Self.post(board, .file(Self.others[0]), .file(Self.others[1]))
        #expect(try board.poster(id: other.id) == other)
    }

    @Test(arguments: BackendUnderTest.all)
    func aPlainPictureIsBlockedByItsExactDigestOnly(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store)
        defer { board.close() }
        let entry = try #require(try board.blockImages(files: [Self.plain], note: "plain grey").first)
        #expect(entry.perceptualHash == nil)
        #expect(entry.note == "plain grey")
        #expect(entry.digest == Digest(of: try Fixtures.bytes(Self.plain)))
        #expect(throws: ImageRefusal.blocked(image: Self.plain, entry: entry.id)) {
            try Self.post(board, .file(Self.cat), .file(Self.plain))
        }
        let otherGrey = "\(Fixtures.root)/Tests/Fixtures/colors/gray-200.png"
        _ = try Self.post(board, .file(Self.cat), .file(otherGrey))
    }

    @Test(arguments: BackendUnderTest.all)
    func entriesAreListedAndRemoved(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store)
        defer { board.close() }
        let added = try board.blockImages(files: [Self.cat, Self.dog])
        #expect(added.map(\.note) == ["1-cat.jpg", "2-dog.jpg"])
        #expect(added.map(\.createdAt) == [store.configuration().now(), store.configuration().now()])
        #expect(try board.blockImages(files: [Self.cat], note: "again") == [added[0]], "a file listed already keeps its entry")
        #expect(try board.unblockImage(id: added[0].id) == added[0])
        #expect(try board.blockedImages() == [added[1]])
        #expect(throws: ModerationError.noSuchBlockedImage(added[0].id)) { try board.unblockImage(id: added[0].id) }
        #expect(ErrorKind.of(ModerationError.noSuchBlockedImage(1)) == .notFound)
        _ = try Self.post(board, .file(Self.cat), .file(Self.others[0]))
        #expect(throws: ImageRefusal.blocked(image: Self.dog, entry: added[1].id)) {
            try Self.post(board, .file(Self.dog), .file(Self.cat))
        }
    }

    @Test(arguments: BackendUnderTest.all)
    func aBadFileAmongThoseToBlockListsNone(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store)
        defer { board.close() }
        #expect(throws: ImageError.self) { try board.blockImages(files: [Self.cat, Fixtures.hostile("truncated.jpg")]) }
        #expect(throws: ImageError.self) { try board.blockImages(files: [Self.cat, "/nonexistent/picture.jpg"]) }
        #expect(try board.blockedImages() == [])
    }

    @Test(arguments: BackendUnderTest.all)
    func aPictureStoredWithoutAHashIsHashedWhenItIsBlocked(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store)
        defer { board.close() }
        // As an older tenbin stored it: a blob row and a poster, no hash.
        let images = try [Self.cat, Self.dog].map { path in
            let encoded = try board.codec.reencode(try Fixtures.bytes(path), source: path)
            let digest = try board.blobs.write(encoded.bytes)
            return StoredImage(
                digest: digest, format: encoded.format, width: encoded.width, height: encoded.height, bytes: encoded.bytes.count)
        }
        let id = try board.store.write { writing in
            for image in images { try writing.insertBlob(image, source: nil, encodingKey: "old") }
            return try writing.insertPoster(
                NewPoster(contents: "old", hashtags: [], images: images), createdAt: store.configuration().now(),
                search: SearchRecord(contents: "old", hashtags: []))
        }
        #expect(try board.store.read { try $0.perceptualHashes(images.map(\.digest)) }.isEmpty)
        let entries = try board.blockImages(ofPoster: id)
        let hashes = try board.store.read { try $0.perceptualHashes(images.map(\.digest)) }
        #expect(hashes.count == 2)
        #expect(entries.map(\.perceptualHash) == images.map { hashes[$0.digest] })
        #expect(throws: ImageRefusal.self) { try Self.post(board, .file(Self.others[0]), try Self.copy(Self.cat, quality: 40)) }
    }

    @Test(arguments: BackendUnderTest.all)
    func hashesAndNothingElseOfTheBlocklistTravelWithACopy(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let source = try Self.board(backend, store)
        defer { source.close() }
        let poster = try Self.post(source, .file(Self.cat), .file(Self.dog))
        let targetStore = try TemporaryStore()
        let target = try targetStore.board()
        defer { target.close() }
        _ = try source.copy(to: target)
        let digests = poster.images.map(\.digest)
        #expect(try target.store.read { try $0.perceptualHashes(digests) } == source.store.read { try $0.perceptualHashes(digests) })
    }

    @Test(arguments: BackendUnderTest.all)
    func aScanThatRefusesOrFailsLeavesNothingBehind(backend: BackendUnderTest) throws {
        let scripts = try ImageScannerTests.Scripts()
        let refuse = try scripts.script("refuse", "echo 'classifier: not allowed'; exit 1")
        let hang = try scripts.script("hang", "exec sleep 1000")
        let accept = try scripts.script("accept", "for f in \"$@\"; do [ -s \"$f\" ] || exit 2; done; exit 0")
        let store = try TemporaryStore()
        for (scanner, expected) in [
            (ImageScanner(command: refuse), ImageRefusal.refusedByScan(reason: "classifier: not allowed")),
            (ImageScanner(command: hang, timeoutSeconds: 1), .scanFailed("the scan command ran longer than 1 s and was stopped")),
        ] {
            let board = try Self.board(backend, store, scanner: scanner)
            #expect(throws: expected) { try Self.post(board, .file(Self.cat), .file(Self.dog)) }
            #expect(try board.count() == 0)
            #expect(PosterTextLimitContractTests.blobFiles(store) == [])
            board.close()
        }
        let board = try Self.board(backend, store, scanner: ImageScanner(command: accept))
        defer { board.close() }
        let poster = try Self.post(board, .file(Self.cat), .file(Self.dog))
        #expect(try board.poster(id: poster.id) == poster)
    }
}
