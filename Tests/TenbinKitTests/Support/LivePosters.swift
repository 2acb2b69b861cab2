@testable import TenbinKit

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
        try store.insert(
            NewPoster(contents: contents, hashtags: hashtags, images: Self.standInImages),
            createdAt: configuration.now(), encodingKey: "test", beforeCommit: {})
    }
}

/// Everything an observation delivered, and what its reader did, for a test to look at.
final class LiveRecorder: Sendable {
    private let updates = Locked<[FeedUpdate]>([])
    private let events = Locked<[FeedReader.Event]>([])

    var delivered: [FeedUpdate] { updates.withLock { $0 } }
    var readerEvents: [FeedReader.Event] { events.withLock { $0 } }

    func record(_ update: FeedUpdate) { updates.withLock { $0.append(update) } }

    /// Options polling every 50 ms of `clock`, reporting to this recorder.
    func options(_ clock: VirtualClock) -> FeedObservation.Options {
        var options = FeedObservation.Options(interval: .milliseconds(50), clock: clock)
        options.monitor = { event in self.events.withLock { $0.append(event) } }
        return options
    }

    func count(_ event: FeedReader.Event) -> Int { readerEvents.filter { $0 == event }.count }
}
