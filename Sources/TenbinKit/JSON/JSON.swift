/// tenbin's stable JSON shapes, shared by every front end: the command line's `--json`
/// output and the HTTP API print exactly these. docs/json.md documents each one.
///
/// Every function returns one JSON text without a trailing newline; the `JSONWriter`
/// methods of the same names write the same text into a larger document.
public enum JSON {
    /// A JSON string literal (see ``JSONWriter/string(_:)``).
    public static func string(_ text: String) -> String {
        write { $0.string(text) }
    }

    /// A poster object on one line: `{"id", "contents", "hashtags", "good1", "good2",
    /// "createdAt", "images"}`.
    public static func poster(_ poster: Poster) -> String {
        write { $0.poster(poster) }
    }

    /// A poster's timeline: `{"buckets": [{"start", "good1", "good2"}…]}`, one bucket per line
    /// (`show --timeline --json`, `GET /api/v1/posters/ID/timeline`).
    public static func timeline(_ buckets: [TimelineBucket]) -> String {
        write { $0.timeline(buckets) }
    }

    /// A tag's summary (`tag --json`, `GET /api/v1/tags/TAG`; see ``JSONWriter/tagSummary(_:)``).
    public static func tagSummary(_ summary: TagSummary) -> String {
        write { $0.tagSummary(summary) }
    }

    /// An array of posters, one per line (`[]` when empty): `list --json`, `search --json`.
    public static func posters(_ posters: [Poster]) -> String {
        write { $0.posters(posters) }
    }

    /// A page of posters: `{"posters": [...], "next": "CURSOR"}`, the posters one per line as
    /// in ``posters(_:)``; `next` is an opaque cursor for the following page, omitted when
    /// this is the last page.
    public static func page(_ posters: [Poster], next: String?) -> String {
        write { $0.page(posters, next: next) }
    }

    /// The `import --json` report (see ``JSONWriter/importReport(_:)``).
    public static func importReport(_ report: ImportReport) -> String {
        write { $0.importReport(report) }
    }

    /// The `check --json` report: `{"ok", "posters", "blobs", "problems", "notes"}`.
    public static func checkReport(_ report: CheckReport) -> String {
        write { $0.checkReport(report) }
    }

    /// The `gc --json` report: `{"removedBlobs", "removedBytes", "removedTemporaryFiles",
    /// "removedCardFiles"}`.
    public static func garbageReport(_ report: GarbageReport) -> String {
        write { $0.garbageReport(report) }
    }

    /// The lines of one feed update, in order, as `tenbin watch --json` prints them: one line
    /// for a snapshot, one per change.
    public static func feedLines(_ update: FeedUpdate) -> [String] {
        switch update {
        case .snapshot(let posters): [write { $0.feedSnapshot(posters) }]
        case .changes(let changes): changes.map { change in write { $0.feedChange(change) } }
        }
    }

    /// One feed change on one line (see ``JSONWriter/feedChange(_:)``).
    public static func feedChange(_ change: FeedChange) -> String {
        write { $0.feedChange(change) }
    }

    /// The error object `{"error": {"kind": KIND, "message": MESSAGE}}` for `error`: its
    /// ``ErrorKind`` and its description.
    public static func error(_ error: any Error) -> String {
        write { $0.error(error) }
    }

    /// The error object for a kind and a message.
    public static func error(kind: ErrorKind, message: String) -> String {
        write { $0.error(kind: kind, message: message) }
    }

    static func write(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        body(&writer)
        return writer.text
    }
}
