import TenbinKit

/// The `tenbin watch --json` lines: one object per line, documented in the README.
extension JSON {
    /// `{"type": "snapshot", "posters": [...]}` on one line.
    static func feedSnapshot(_ posters: [Poster]) -> String {
        object(["type": string("snapshot"), "posters": array(posters.map(poster))])
    }

    /// One change: `added` has `newIndex`, `removed` has `oldIndex`, `modified` has both.
    static func feedChange(_ change: FeedChange) -> String {
        switch change {
        case .added(let poster, let newIndex):
            object(["type": string("added"), "id": String(poster.id), "newIndex": String(newIndex), "poster": self.poster(poster)])
        case .modified(let poster, let oldIndex, let newIndex):
            object([
                "type": string("modified"), "id": String(poster.id), "oldIndex": String(oldIndex), "newIndex": String(newIndex),
                "poster": self.poster(poster),
            ])
        case .removed(let poster, let oldIndex):
            object(["type": string("removed"), "id": String(poster.id), "oldIndex": String(oldIndex), "poster": self.poster(poster)])
        }
    }

    /// The lines for one update, in order.
    static func feedLines(_ update: FeedUpdate) -> [String] {
        switch update {
        case .snapshot(let posters): [feedSnapshot(posters)]
        case .changes(let changes): changes.map(feedChange)
        }
    }
}
