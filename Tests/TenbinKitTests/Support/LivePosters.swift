@testable import TenbinKit
@testable import TenbinSQLite

/// Posters written straight to a store, without images to encode, for live-feed tests.
extension Board {
    /// Two stand-in images (rows only; live feeds never read blob files).
    static let standInImages = [
        StoredImage(digest: Digest(of: Array("left".utf8)), format: .jpeg, width: 4, height: 3, bytes: 10),
        StoredImage(digest: Digest(of: Array("right".utf8)), format: .png, width: 3, height: 4, bytes: 12),
    ]

    /// Inserts a poster with stand-in images.
    @discardableResult
    func quickPost(_ contents: String = "", hashtags: [String] = []) throws -> Poster {
        try quickPost([(contents, hashtags)])[0]
    }

    /// Inserts posters with stand-in images in one transaction.
    @discardableResult
    func quickPost(_ posters: [(String, [String])], images: [StoredImage] = standInImages) throws -> [Poster] {
        let ids = try store.write { writing in
            for image in images { try writing.insertBlob(image, source: nil, encodingKey: "test") }
            return try posters.map { contents, hashtags in
                try writing.insertPoster(
                    NewPoster(contents: contents, hashtags: hashtags, images: images), createdAt: configuration.now(),
                    search: SearchRecord(contents: contents, hashtags: Hashtags.normalize(hashtags)))
            }
        }
        return try store.read { try $0.posters(ids: ids) }
    }
}

/// Everything an observation delivered, and what its reader did, for a test to look at.
final class LiveRecorder: Sendable {
    private let updates = Locked<[FeedUpdate]>([])
    private let events = Locked<[LiveFeeds.Event]>([])

    var delivered: [FeedUpdate] { updates.withLock { $0 } }
    var sourceEvents: [LiveFeeds.Event] { events.withLock { $0 } }

    func record(_ update: FeedUpdate) { updates.withLock { $0.append(update) } }

    /// Options polling every 50 ms of `clock`, reporting to this recorder.
    func options(_ clock: VirtualClock) -> LiveFeeds.Options {
        LiveFeeds.Options(interval: .milliseconds(50), clock: clock) { event in self.events.withLock { $0.append(event) } }
    }

    /// How many times the source read a feed.
    var reads: Int {
        sourceEvents.filter { if case .read = $0 { true } else { false } }.count
    }
}
