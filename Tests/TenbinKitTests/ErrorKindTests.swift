import Foundation
import Testing

@testable import TenbinKit

/// Every error the library throws says what kind of failure it is, so a command line can pick
/// its exit status and a server its HTTP status without reading messages.
@Suite struct ErrorKindTests {
    func kind(_ body: () throws -> Void) -> ErrorKind? {
        do {
            try body()
            return nil
        } catch {
            return ErrorKind.of(error)
        }
    }

    @Test func anUploadThatDoesNotExistIsNotFoundAndOneThatIsNotAnImageIsInvalid() {
        let codec = ImageCodec()
        #expect(kind { _ = try codec.readUpload(at: "/no/such/file.jpg") } == .notFound)
        #expect(kind { _ = try codec.probe(Array("hello".utf8), source: "a.txt") } == .invalidInput)
        #expect(kind { _ = try codec.probe([0xFF, 0xD8, 0xFF, 0xE0, 0, 0], source: "cut.jpg") } == .invalidInput)
    }

    @Test func uploadsOverALimitAreLimitExceeded() throws {
        let small = ImageCodec(limits: ImageLimits(maxFileBytes: 1000))
        #expect(kind { _ = try small.readUpload(at: Fixtures.sample("01-cats-or-dogs/1-cat.jpg")) } == .limitExceeded)
        let narrow = ImageCodec(limits: ImageLimits(maxSide: 100))
        let bytes = try Fixtures.bytes(Fixtures.sample("01-cats-or-dogs/1-cat.jpg"))
        #expect(kind { _ = try narrow.probe(bytes, source: "1-cat.jpg") } == .limitExceeded)
    }

    @Test func aMissingImportSourceIsNotFoundAndAFileOfTheWrongSortIsInvalid() {
        #expect(kind { _ = try ImportSource.at("/no/such/folder") } == .notFound)
        #expect(kind { _ = try ImportSource.at("/dev/null") } == .invalidInput)
    }

    @Test func aBlobStoreRefusedByTheSystemIsUnavailableAndAMissingBlobIsDamage() throws {
        let store = try TemporaryStore()
        let blobs = BlobStore(storeFolder: store.path)
        let digest = try blobs.write([1, 2, 3])
        try FileManager.default.removeItem(atPath: blobs.path(for: digest))
        #expect(kind { _ = try blobs.read(digest) } == .internal)
        #expect(BlobError(.write, path: "x", errno: ENOSPC).kind == .unavailable)
        #expect(BlobError(.write, path: "x", errno: EROFS).kind == .unavailable)
        #expect(BlobError(.write, path: "x", errno: EACCES).kind == .unavailable)
        #expect(BlobError(.read, path: "x", detail: "size differs").kind == .internal)
    }

    @Test func badFeedsAndMisfittingChangesHaveTheirKinds() {
        #expect(FeedError.invalidLimit(0).kind == .invalidInput)
        let poster = Poster(
            id: 1, contents: "", hashtags: [], good1: 0, good2: 0, createdAt: Timestamp(secondsSince1970: 0), images: [])
        #expect(kind { _ = try FeedDiff.apply([.removed(poster, oldIndex: 3)], to: []) } == .conflict)
    }

    @Test func anErrorThatDoesNotSayIsInternal() {
        struct Unknown: Error {}
        #expect(ErrorKind.of(Unknown()) == .internal)
    }
}
