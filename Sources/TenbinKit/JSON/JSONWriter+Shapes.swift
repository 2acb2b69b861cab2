/// The documented shapes, written into a larger document.
extension JSONWriter {
    /// A poster object, keys in their documented order, then any `more` fields (an export's
    /// timeline).
    package mutating func poster(_ poster: Poster, more: (inout JSONWriter) -> Void = { _ in }) {
        object { json in
            json.field("id", poster.id)
            json.field("contents", poster.contents)
            json.key("hashtags")
            json.strings(poster.hashtags)
            json.field("good1", poster.good1)
            json.field("good2", poster.good2)
            json.key("createdAt")
            json.timestamp(poster.createdAt)
            json.key("images")
            json.array(poster.images) { $0.image($1) }
            // Only when given: every poster without them keeps its documented shape.
            if !poster.alt1.isEmpty { json.field("alt1", poster.alt1) }
            if !poster.alt2.isEmpty { json.field("alt2", poster.alt2) }
            more(&json)
        }
    }

    /// A time as a string: `"YYYY-MM-DDTHH:MM:SSZ"` (nothing in it needs escaping).
    mutating func timestamp(_ time: Timestamp) {
        appendByte(UInt8(ascii: "\""))
        appendBytes { time.write(into: &$0) }
        appendByte(UInt8(ascii: "\""))
    }

    /// A stored image: `{"digest", "format", "width", "height", "bytes"}`.
    package mutating func image(_ image: StoredImage) {
        object { json in
            json.field("digest", image.digest.hex)
            json.field("format", image.format.rawValue)
            json.field("width", image.width)
            json.field("height", image.height)
            json.field("bytes", image.bytes)
        }
    }

    /// A poster's timeline: `{"buckets": [{"start", "good1", "good2"}…]}`, oldest first, one
    /// bucket per line.
    package mutating func timeline(_ buckets: [TimelineBucket]) {
        object { json in json.buckets(buckets) }
    }

    /// `"buckets": [{"start", "good1", "good2"}…]`, one bucket per line, inside an object.
    mutating func buckets(_ buckets: [TimelineBucket]) {
        key("buckets")
        array(buckets, layout: .oneItemPerLine) { json, bucket in
            json.object { json in
                json.key("start")
                json.timestamp(bucket.start)
                json.field("good1", bucket.good1)
                json.field("good2", bucket.good2)
            }
        }
    }

    /// A tag's summary: `{"tag", "posterCount", "good1", "good2", "totalVotes", "buckets":
    /// [{"start", "good1", "good2"}…] (a day each), "posters": […], "next"}`.
    package mutating func tagSummary(_ summary: TagSummary) {
        object { json in
            json.field("tag", summary.tag)
            json.field("posterCount", summary.posterCount)
            json.field("good1", summary.good1)
            json.field("good2", summary.good2)
            json.field("totalVotes", summary.totalVotes)
            json.buckets(summary.timeline)
            json.key("posters")
            json.posters(summary.page.posters)
            if let next = summary.page.next { json.field("next", next.encoded) }
        }
    }

    /// An array of posters, one per line.
    package mutating func posters(_ posters: [Poster]) {
        array(posters, layout: .oneItemPerLine) { $0.poster($1) }
    }

    /// A page of posters with an optional cursor for the next page.
    package mutating func page(_ posters: [Poster], next: String?) {
        object { json in
            json.key("posters")
            json.posters(posters)
            if let next { json.field("next", next) }
        }
    }

    /// The import report: counts, then one object per poster, one per line, with `id` only
    /// when there is one and `error` only for failures.
    package mutating func importReport(_ report: ImportReport) {
        object { json in
            json.field("imported", report.imported)
            json.field("skipped", report.skipped)
            json.field("failed", report.failed)
            json.key("items")
            json.array(report.items, layout: .oneItemPerLine) { json, item in
                json.object { json in
                    json.field("source", item.source)
                    json.field("status", item.status.rawValue)
                    if let id = item.id { json.field("id", id) }
                    if let error = item.error { json.field("error", error) }
                }
            }
        }
    }

    /// The check report.
    package mutating func checkReport(_ report: CheckReport) {
        object { json in
            json.field("ok", report.isSound)
            json.field("posters", report.posters)
            json.field("blobs", report.blobs)
            if let rebuilt = report.searchRebuilt { json.field("searchRebuilt", rebuilt) }
            json.key("problems")
            json.strings(report.problems)
            json.key("notes")
            json.strings(report.notes)
        }
    }

    /// The garbage collection report.
    package mutating func garbageReport(_ report: GarbageReport) {
        object { json in
            json.field("removedBlobs", report.removedBlobs.count)
            json.field("removedBytes", report.removedBytes)
            json.field("removedTemporaryFiles", report.removedTemporaryFiles)
            json.field("removedCardFiles", report.removedCardFiles)
        }
    }

    /// A feed's first line: `{"type": "snapshot", "posters": [...]}`, all on one line.
    package mutating func feedSnapshot(_ posters: [Poster]) {
        object { json in
            json.field("type", "snapshot")
            json.key("posters")
            json.array(posters) { $0.poster($1) }
        }
    }

    /// One change: `{"type", "id", …, "poster"}` where `added` has `newIndex`, `removed` has
    /// `oldIndex` and `modified` has both, old first.
    package mutating func feedChange(_ change: FeedChange) {
        let type =
            switch change {
            case .added: "added"
            case .modified: "modified"
            case .removed: "removed"
            }
        object { json in
            json.field("type", type)
            json.field("id", change.poster.id)
            if let oldIndex = change.oldIndex { json.field("oldIndex", oldIndex) }
            if let newIndex = change.newIndex { json.field("newIndex", newIndex) }
            json.key("poster")
            json.poster(change.poster)
        }
    }

    /// The error object: `{"error": {"kind": KIND, "message": MESSAGE}}`.
    package mutating func error(kind: ErrorKind, message: String) {
        object { json in
            json.key("error")
            json.object { json in
                json.field("kind", kind.rawValue)
                json.field("message", message)
            }
        }
    }

    /// The error object for `error`: its kind (``ErrorKind/of(_:)``) and its description.
    package mutating func error(_ error: any Error) {
        self.error(kind: ErrorKind.of(error), message: String(describing: error))
    }
}
