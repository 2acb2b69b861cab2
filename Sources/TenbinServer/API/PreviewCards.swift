import TenbinKit

/// Posters' preview cards (``PreviewCard``), drawn when first asked for and kept as JPEG bytes
/// in an LRU cache bounded by memory, one per poster: a card is drawn again only when what it
/// shows changes (its images, its question, or its votes' rounded percentages), so a poster
/// being voted on keeps its card through most votes. With a store folder, cards are also kept
/// on disk (``PreviewCardFiles``): through restarts, and for every server on the same files.
final class PreviewCards: Sendable {
    /// A drawn card: what it shows and its JPEG.
    struct Card: Sendable {
        var face: PreviewCard.Face
        var jpeg: [UInt8]
    }

    private let cache: LRUCache<Int64, Card>
    private let pipeline: ImagePipeline
    private let codec = ImageCodec(encoding: EncodingOptions(jpegQuality: 82))
    /// How many cards were drawn (for tests and the log of a bench run).
    let drawn = Locked(0)
    /// The cards kept on disk beside the blobs (``PreviewCardFiles``), when the board has a
    /// store folder.
    let files: PreviewCardFiles?

    /// Cards whose pictures are decoded through `pipeline`, kept up to `cacheBytes` in memory
    /// and, with a `storeFolder`, in its `cards/` folder.
    init(pipeline: ImagePipeline, cacheBytes: Int, storeFolder: String? = nil) {
        self.pipeline = pipeline
        cache = LRUCache(costLimit: cacheBytes, countLimit: 10_000)
        files = storeFolder.map(PreviewCardFiles.init(storeFolder:))
    }

    /// The card of `poster` as it is now: the kept one when it shows the same, else drawn
    /// (its pictures decoded off the caller's thread, by the image pipeline's tasks).
    func card(for poster: Poster) async throws -> Card {
        let face = PreviewCard.Face(poster)
        if let kept = cache.value(forKey: poster.id), kept.face == face { return kept }
        if let jpeg = files?.read(poster: poster.id, face: face) {
            let card = Card(face: face, jpeg: jpeg)
            cache.setValue(card, forKey: poster.id, cost: jpeg.count)
            return card
        }
        guard poster.images.count == 2 else {
            throw APIError(
                status: 500, kind: "internal", message: "the server failed to answer this request",
                cause: "poster \(poster.id) has \(poster.images.count) images")
        }
        let requests = poster.images.map { ImageRequest($0.digest, size: PreviewCard.pictureSize($0)) }
        let pictures = try await pipeline.images(for: requests).map { try $0.get() }
        let drawing = try PreviewCard.draw(pictures[0], pictures[1], face: face)
        let encoded = try codec.encode(drawing.pixels, source: "preview card of poster \(poster.id)")
        let card = Card(face: face, jpeg: encoded.bytes)
        cache.setValue(card, forKey: poster.id, cost: card.jpeg.count)
        files?.write(card.jpeg, poster: poster.id, face: face)
        drawn.withLock { $0 += 1 }
        return card
    }

    /// Forgets `id`'s card in memory: the poster was deleted or removed (its files went with
    /// it, in ``Board/delete(id:)``).
    func forget(_ id: Int64) {
        _ = cache.removeValue(forKey: id)  // the card itself is not needed
    }
}
