import TenbinKit

/// The search index's blocks a store has read, kept for its later searches: which blocks each
/// segment holds (its *directory*: their first pieces, in order) and the blocks themselves, so
/// a search whose blocks were read before asks the server only for the segments of its read's
/// snapshot, not for every segment's block of every term (at 1M posters, 17 segments and up to
/// a hundred blocks of about 4 KB a search, most of a search's time on the server and in
/// transfer, docs/benchmarks.md). SQLite reads the same blocks from its memory map.
///
/// Only a segment outside any merge is looked up here: such a segment's blocks never change
/// (a write's segment is written whole in its transaction; a merge's target is whole once the
/// merge is done and no longer names it; a source changes only while a merge names it, and is
/// deleted after). Segments are named by id, top and posters, all fixed when a segment is made,
/// so a database restored under the same URL, whose ids may name other segments, is not read
/// from another's blocks unless all three agree.
///
/// Bounded: blocks are kept in two generations of at most half of ``budget`` bytes each; a
/// full newer generation becomes the older and the older is dropped, and a block found in the
/// older moves to the newer (least recently used, roughly). Directories are a few bytes a block
/// (about 100 KB at 1M posters) and are dropped with their segment.
final class SearchBlockCache: Sendable {
    /// A segment as a read's snapshot names it.
    struct Segment: Hashable, Sendable {
        let id: Int64
        let top: Int64
        let posters: Int
    }

    /// A kept segment list and its fingerprint (``PostgresSession/segmentsFingerprint(_:)``),
    /// written once when the list is kept rather than in every search that checks it.
    struct KeptSegments: Sendable {
        let list: [Segment]
        let fingerprint: String
    }

    /// One block: its segment and its first piece.
    struct BlockKey: Hashable, Sendable {
        let segment: Segment
        let piece: Int64
    }

    private struct State: Sendable {
        var kept: KeptSegments?
        var directories: [Segment: [Int64]] = [:]
        var newer: [BlockKey: [UInt8]] = [:]
        var newerBytes = 0
        var older: [BlockKey: [UInt8]] = [:]
    }

    /// The most bytes of blocks kept (both generations).
    let budget: Int
    private let state = Locked(State())

    /// A cache keeping at most `budget` bytes of blocks (64 MiB by default: at 1M posters, the
    /// blocks of a few thousand searches of rare words).
    init(budget: Int = 64 << 20) {
        self.budget = budget
    }

    /// The search index's segments as the last read that found none in a merge saw them
    /// (ascending by id) with their fingerprint, or nil. Never trusted as it is: a search that
    /// uses it checks it against the segment table in the statement that reads its hits
    /// (``PostgresSession/segmentsMatchSQL(_:)``), and forgets it when it no longer matches.
    var kept: KeptSegments? {
        state.withLock { $0.kept }
    }

    /// Keeps the segment list a read's snapshot holds, when no merge names any of them
    /// (otherwise forgets the kept one: a search then reads the list in its transaction).
    /// Reads on several threads may finish in any order, so the list kept may be older than
    /// another just read: the check in the statement finds that out, as it finds a newer one.
    func keepSegments(_ segments: [(segment: Segment, merging: Bool)]) {
        let list = segments.contains(where: \.merging) ? nil : segments.map(\.segment).sorted { $0.id < $1.id }
        let kept = list.map { KeptSegments(list: $0, fingerprint: PostgresSession.segmentsFingerprint($0)) }
        state.withLock { $0.kept = kept }
    }

    /// Forgets the kept segment list (it no longer matched the table).
    func forgetSegments(_ stale: [Segment]) {
        state.withLock { state in
            if state.kept?.list == stale { state.kept = nil }
        }
    }

    /// Drops every block of `segment` kept, as the budget drops blocks (tests).
    func dropBlocks(of segment: Segment) {
        state.withLock { state in
            for key in state.newer.keys where key.segment == segment {
                if let block = state.newer.removeValue(forKey: key) { state.newerBytes -= block.count }
            }
            state.older = state.older.filter { $0.key.segment != segment }
        }
    }

    /// The first pieces of `segment`'s blocks, in order, if known.
    func directory(of segment: Segment) -> [Int64]? {
        state.withLock { $0.directories[segment] }
    }

    /// Keeps the directories of `segments`, and forgets those of segments not among `live`
    /// (every segment of a read's snapshot: the others were merged away, or are newer than
    /// that snapshot and read again when next needed).
    func keep(_ directories: [Segment: [Int64]], live: Set<Segment>) {
        state.withLock { state in
            state.directories.merge(directories) { _, new in new }
            if state.directories.count > 2 * live.count + 8 {
                state.directories = state.directories.filter { live.contains($0.key) }
            }
        }
    }

    /// The block with this key, if kept (moved to the newer generation when in the older).
    func block(_ key: BlockKey) -> [UInt8]? {
        state.withLock { state in
            if let block = state.newer[key] { return block }
            guard let block = state.older.removeValue(forKey: key) else { return nil }
            Self.add(block, key, to: &state, half: budget / 2)
            return block
        }
    }

    /// Keeps a block read from the server.
    func add(_ block: [UInt8], _ key: BlockKey) {
        state.withLock { Self.add(block, key, to: &$0, half: budget / 2) }
    }

    private static func add(_ block: [UInt8], _ key: BlockKey, to state: inout State, half: Int) {
        guard block.count <= half else { return }
        if state.newerBytes + block.count > half {
            state.older = state.newer
            state.newer = [:]
            state.newerBytes = 0
        }
        if let old = state.newer.updateValue(block, forKey: key) { state.newerBytes -= old.count }
        state.newerBytes += block.count
    }

    /// How many bytes of blocks are kept (both generations).
    var bytes: Int {
        state.withLock { state in state.newerBytes + state.older.values.reduce(0) { $0 + $1.count } }
    }

    /// The first pieces in `directory` (ascending) of the blocks that can hold a piece in
    /// `range`: the last starting at or below its lowest piece, and every one starting after
    /// that up to its highest (as ``PostgresSession/blocksQuery(_:tier:)`` finds them).
    static func blocks(in directory: [Int64], covering range: ClosedRange<Int64>) -> ArraySlice<Int64> {
        // The first block starting above the lowest piece.
        var low = 0
        var high = directory.count
        while low < high {
            let middle = (low + high) / 2
            if directory[middle] <= range.lowerBound { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < directory.count && directory[end] <= range.upperBound { end += 1 }
        return directory[max(0, low - 1)..<end]
    }
}
