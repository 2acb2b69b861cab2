extension JSON {
    /// The `copy --json` report: `{"copied": {"posters", "blobRows", "filesWritten",
    /// "filesPresent", "resumedAfter"}, "source": SUMMARY, "target": SUMMARY, "milliseconds"}`, each
    /// summary `{"location", "posters", "blobs", "uploads", "firstID", "lastID", "lastPosterID",
    /// "posterDigest", "blobDigest", "timelineBuckets", "timelineDigest"}`.
    public static func copyReport(
        _ report: CopyReport, source: (location: String, summary: BoardSummary), target: (location: String, summary: BoardSummary),
        seconds: Double
    ) -> String {
        var json = JSONWriter()
        json.object { json in
            json.key("copied")
            json.object { json in
                json.field("posters", report.postersCopied)
                json.field("blobRows", report.blobRowsCopied)
                json.field("filesWritten", report.filesWritten)
                json.field("filesPresent", report.filesPresent)
                json.key("resumedAfter")
                if let after = report.resumedAfter { json.integer(after) } else { json.null() }
            }
            summaries(source: source, target: target, into: &json)
            json.field("milliseconds", Int((seconds * 1000).rounded()))
        }
        return json.text
    }

    /// The `backup --json` report: `{"source": SUMMARY, "backup": SUMMARY, "files": {"linked",
    /// "copied"}, "blobRowsSkipped", "milliseconds"}`, the summaries as in ``copyReport(_:source:target:seconds:)``
    /// (the source's as the backup's snapshot read it).
    public static func backupReport(
        _ report: CopyReport, source: (location: String, summary: BoardSummary), backup: (location: String, summary: BoardSummary),
        seconds: Double
    ) -> String {
        var json = JSONWriter()
        json.object { json in
            summaries(source: source, target: backup, targetName: "backup", into: &json)
            json.key("files")
            json.object { json in
                json.field("linked", report.filesLinked)
                json.field("copied", report.filesWritten - report.filesLinked)
            }
            json.field("blobRowsSkipped", report.blobRowsSkipped)
            json.field("milliseconds", Int((seconds * 1000).rounded()))
        }
        return json.text
    }

    /// `"source": SUMMARY, "target": SUMMARY` (the second under `targetName`).
    private static func summaries(
        source: (location: String, summary: BoardSummary), target: (location: String, summary: BoardSummary),
        targetName: String = "target", into json: inout JSONWriter
    ) {
        for (name, side) in [("source", source), (targetName, target)] {
            json.key(name)
            json.object { json in
                json.field("location", side.location)
                json.field("posters", side.summary.posters)
                json.field("blobs", side.summary.blobs)
                json.field("uploads", side.summary.uploads)
                for (field, value) in [("firstID", side.summary.idRange?.lowerBound), ("lastID", side.summary.idRange?.upperBound)] {
                    json.key(field)
                    if let value { json.integer(value) } else { json.null() }
                }
                json.field("lastPosterID", side.summary.lastPosterID)
                json.field("posterDigest", side.summary.posterDigest.hex)
                json.field("blobDigest", side.summary.blobDigest.hex)
                json.field("timelineBuckets", side.summary.timelineBuckets)
                json.field("timelineDigest", side.summary.timelineDigest.hex)
            }
        }
    }
}
