/// Upload digest → stored image, remembered during one import so that the same bytes met
/// under another path are not decoded again before their rows are committed.
///
/// Shared by the image tasks of an import; the mutex makes it `Sendable`. Bounded: when it
/// holds `capacity` entries it starts over (the store's `upload` table remembers for good).
final class ImageMemo: Sendable {
    private let table = Locked<[Digest: (image: StoredImage, staged: StagedBlob?)]>([:])
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// The image an upload became, and its staged blob when it was staged in this import.
    func image(for source: Digest) -> (StoredImage, StagedBlob?)? {
        table.withLock { $0[source] }
    }

    func remember(_ image: StoredImage, staged: StagedBlob?, for source: Digest) {
        table.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[source] = (image, staged)
        }
    }
}
